"""One connection to a Verräter server: stubs, tokens that renew themselves, retries, and
resumable streams.

A dropped connection (UNAVAILABLE and friends) is retried with exponential backoff; a stream
resumes from the last version it delivered, so no event is lost or seen twice. Tokens are
short-lived (an hour by default): an `Auth` renews its token shortly before it expires, and
once more when the server says `TOKEN_EXPIRED` (a call is retried once; a stream, which the
server ends when its token expires, is opened again where it stopped). Every other failure is
a `ServerRefused` carrying the server's words and its stable reason (docs/CLIENTS.md, Errors).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2

from services.api.verrater.v1 import (
    ai_pb2_grpc,
    chat_pb2,
    chat_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2_grpc,
)

DEFAULT_SERVER = "127.0.0.1:50051"
#: Where the server is, when `--server` does not say (else DEFAULT_SERVER).
SERVER_ENV = "VERRATER_SERVER"

#: Codes that mean "the server (or the way to it) is away for now": try again.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)
#: Seconds a unary call may take before it counts as lost.
CALL_TIMEOUT_S = 15.0
#: Renew a token this long before it expires (or a quarter of its life, when that is shorter).
RENEW_AHEAD_S = 300.0
TOKEN_EXPIRED = "TOKEN_EXPIRED"
_DETAILS_KEY = "grpc-status-details-bin"

_CHANNEL_OPTIONS = [
    # Reconnect quickly once the server is back (gRPC's own default backoff grows to 2 min).
    ("grpc.initial_reconnect_backoff_ms", 300),
    ("grpc.min_reconnect_backoff_ms", 300),
    ("grpc.max_reconnect_backoff_ms", 3000),
    # Notice a silently dead peer on a long Watch; the server accepts pings every 5 minutes.
    ("grpc.keepalive_time_ms", 300_000),
    ("grpc.keepalive_timeout_ms", 20_000),
]

Request = TypeVar("Request")
Response = TypeVar("Response")


class ClientError(Exception):
    """A failure to show people in one line (never a traceback)."""


class ServerRefused(ClientError):
    """The server answered with an error status: `message` in its words, `reason` the stable
    reason of its ErrorInfo ("" when it sent none)."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason


class ConnectionLost(ClientError):
    """The server stayed unreachable for longer than the client is willing to wait."""


@dataclass
class Backoff:
    """Exponential backoff: first, first*2, ... up to `cap` seconds; `limit_s` of continuous
    failure in all before giving up."""

    first_s: float = 0.5
    cap_s: float = 5.0
    limit_s: float = 300.0
    _next_s: float = 0.0
    _failing_since: float | None = None

    def reset(self) -> None:
        self._next_s = 0.0
        self._failing_since = None

    def next_delay(self) -> float | None:
        """Seconds to wait before the next try, or None when it is time to give up."""
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        if now - self._failing_since > self.limit_s:
            return None
        self._next_s = self.first_s if self._next_s == 0 else min(self._next_s * 2, self.cap_s)
        return self._next_s


@dataclass(frozen=True, slots=True)
class Issued:
    """A token and when it expires (Unix seconds; 0: the client does not know)."""

    token: str
    expires_at: float = 0.0


class Auth:
    """The token calls are made with, and how to get the next one.

    `issue(current)` fetches a fresh token (RefreshToken, SignIn, GetSeatToken...); it is called
    when the current one is due (a quarter of its life or RENEW_AHEAD_S before it expires,
    whichever is sooner) and when the server said it expired. Safe to share between threads.
    """

    def __init__(
        self,
        issue: Callable[[Issued | None], Issued] | None,
        first: Issued | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._issue = issue
        self._clock = clock
        self._lock = threading.RLock()
        self._issued: Issued | None = None
        self._renew_at = 0.0
        if first is not None:
            self._take(first)

    @classmethod
    def fixed(cls, token: str) -> Auth:
        """A token that is never renewed (one given on the command line)."""
        return cls(None, Issued(token))

    @property
    def renewable(self) -> bool:
        return self._issue is not None

    def _take(self, issued: Issued) -> None:
        self._issued = issued
        if issued.expires_at:
            life = max(0.0, issued.expires_at - self._clock())
            self._renew_at = issued.expires_at - min(RENEW_AHEAD_S, life / 4)
        else:
            self._renew_at = float("inf")

    def token(self) -> str:
        """The current token, renewed first when it is due."""
        with self._lock:
            if self._issued is None or (self.renewable and self._clock() >= self._renew_at):
                self.renew()
            assert self._issued is not None
            return self._issued.token

    def renew(self) -> None:
        with self._lock:
            if self._issue is None:
                raise ClientError("the token expired (a token given on the command line)")
            self._take(self._issue(self._issued))

    def metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        token = self.token()
        return (("authorization", f"Bearer {token}"),) if token else ()


#: For the calls that need no token (RegisterGuest, SignIn, GetRuleset).
NO_AUTH = Auth.fixed("")


def status_text(error: grpc.RpcError) -> str:
    """The server's reason for a failed call, in words."""
    code = error.code() if isinstance(error, grpc.Call) else None
    details = error.details() if isinstance(error, grpc.Call) else None
    if details:
        return str(details)
    return code.name if code is not None else str(error)


def reason_of(error: grpc.RpcError) -> str:
    """The stable reason of a refusal (its google.rpc.ErrorInfo), or "" when it has none."""
    if not isinstance(error, grpc.Call):
        return ""
    for key, value in error.trailing_metadata() or ():
        if key != _DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return str(info.reason)
    return ""


#: Refusals of a server that answered while its game's store did not (docs/CLIENTS.md): the
#: same call is safe to send again, and the screen says why it waits.
_STORE_WAITS = {
    "REPLICATION_UNCONFIRMED": (
        "The server has the game's latest move but its store has not confirmed it yet (a move "
        "is made once, however often it is sent)"
    ),
    "STORE_UNAVAILABLE": "The server's store does not answer",
}
#: How far apart a call the store made wait is tried again, at most.
STORE_RETRY_CAP_S = 1.0


def _code(error: grpc.RpcError) -> grpc.StatusCode | None:
    return error.code() if isinstance(error, grpc.Call) else None


def _expired(error: grpc.RpcError) -> bool:
    return _code(error) == grpc.StatusCode.UNAUTHENTICATED and reason_of(error) == TOKEN_EXPIRED


class Connection:
    """The Lobby, Game and Ai stubs on one channel, called with the current `auth`."""

    def __init__(
        self,
        address: str,
        *,
        notify: Callable[[str], None] = lambda message: None,
        backoff: Callable[[], Backoff] = Backoff,
    ) -> None:
        self.address = address
        self.auth = NO_AUTH
        self._notify = notify
        self._backoff = backoff
        self._lost = False
        self._store_waited = False
        self._reached = False
        self._channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self._channel)
        self.chat = chat_pb2_grpc.ChatServiceStub(self._channel)
        self.game = game_pb2_grpc.GameServiceStub(self._channel)
        self.ai = ai_pb2_grpc.AiServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def set_notify(self, notify: Callable[[str], None]) -> None:
        """Where news of the connection goes from now on (e.g. into the game screen)."""
        self._notify = notify

    def _wait(self, backoff: Backoff, problem: str, reason: str = "") -> None:
        delay = backoff.next_delay()
        waiting_for_store = _STORE_WAITS.get(reason)
        if waiting_for_store is not None and delay is not None:
            # The server answered: only its store is away (a failover takes seconds), so the
            # retries stay close, and the screen says what is going on.
            delay = min(delay, STORE_RETRY_CAP_S)
            self._notify(f"{waiting_for_store}; asking again in {delay:.1f} s ...")
            self._store_waited = True
            time.sleep(delay)
            return
        if delay is None:
            if not self._reached:
                raise ConnectionLost(
                    f"cannot reach a server at {self.address} ({problem}); "
                    "is `verrater serve` running there?"
                )
            raise ConnectionLost(f"lost the connection to {self.address} ({problem}); giving up")
        if self._reached:
            self._notify(
                f"Connection to {self.address} lost ({problem}); reconnecting in {delay:.1f} s ..."
            )
        else:
            self._notify(
                f"No answer from {self.address} ({problem}); trying again in {delay:.1f} s"
            )
        self._lost = True
        time.sleep(delay)

    def _recovered(self) -> None:
        if self._store_waited:
            self._store_waited = False
            self._notify("The server's store answers again.")
        if self._lost:
            self._lost = False
            self._notify(f"{'Reconnected' if self._reached else 'Connected'} to {self.address}.")
        self._reached = True

    def _retry_or_raise(
        self, backoff: Backoff, error: grpc.RpcError, retryable: frozenset[grpc.StatusCode]
    ) -> None:
        code = _code(error)
        reason = reason_of(error)
        if code not in retryable:
            raise ServerRefused(
                code or grpc.StatusCode.UNKNOWN, status_text(error), reason
            ) from error
        self._wait(backoff, code.name if code is not None else "no answer", reason)

    def call(
        self,
        method: grpc.UnaryUnaryMultiCallable[Request, Response],
        request: Request,
        *,
        auth: Auth | None = None,
        timeout: float = CALL_TIMEOUT_S,
        patience_s: float | None = None,
        idempotent: bool = True,
    ) -> Response:
        """One unary call with `auth` (default: the connection's); retried while the server is
        unreachable (for `patience_s` seconds, when given, instead of the backoff's limit), and
        once with a fresh token when the server says the token expired.

        Reads, game commands (which carry a command id) and lobby calls with a request id are
        idempotent. Other calls are retried only on UNAVAILABLE, when the request most likely
        never reached the server: after a timeout nobody knows whether it did.
        """
        caller = self.auth if auth is None else auth
        retryable = RETRYABLE if idempotent else frozenset({grpc.StatusCode.UNAVAILABLE})
        backoff = self._backoff()
        if patience_s is not None:
            backoff.limit_s = patience_s
        renewed = False
        while True:
            try:
                response = method(request, timeout=timeout, metadata=caller.metadata())
            except grpc.RpcError as error:
                if _expired(error) and caller.renewable and not renewed:
                    caller.renew()
                    renewed = True
                    continue
                self._retry_or_raise(backoff, error, retryable)
            else:
                self._recovered()
                return response

    def stream(
        self,
        method: grpc.UnaryStreamMultiCallable[Request, Response],
        request_for: Callable[[], Request],
        *,
        reopen_when_closed: bool = False,
    ) -> Iterator[Response]:
        """A server stream that is opened again (with a fresh `request_for()`) whenever the
        connection drops or its token expires, and, with `reopen_when_closed`, when the server
        ends it."""
        backoff = self._backoff()
        expiries = 0  # in a row, without an item between: a token that keeps failing is refused
        while True:
            call = method(request_for(), metadata=self.auth.metadata())
            try:
                for item in call:
                    backoff.reset()
                    expiries = 0
                    self._recovered()
                    yield item
            except grpc.RpcError as error:
                if _expired(error) and self.auth.renewable and expiries < 2:
                    expiries += 1
                    self.auth.renew()
                    continue
                self._retry_or_raise(backoff, error, RETRYABLE)
            else:
                if not reopen_when_closed:
                    return
                self._wait(backoff, "the server closed the stream")
            finally:
                call.cancel()

    def watch(self, game_id: str, after_version: int) -> Iterator[list[game_pb2.GameUpdate]]:
        """Every update of a game after `after_version`, live, a batch appended together at a
        time (the view rides on its last update), for as long as the caller reads; a dropped
        stream resumes from the last version delivered."""
        version = after_version

        def request() -> game_pb2.WatchRequest:
            return game_pb2.WatchRequest(
                game_id=game_id,
                from_version=version,
                mode=game_pb2.WATCH_MODE_EVENTS,
                grouped=True,  # a batch of events in one message
            )

        for response in self.stream(self.game.Watch, request, reopen_when_closed=True):
            batch = list(response.updates)
            version = batch[-1].version
            yield batch

    def chat_messages(self, table_id: str, backlog: int) -> Iterator[chat_pb2.ChatMessage]:
        """The table's chat: the latest `backlog` messages, then each new one, for as long as
        the caller reads; a dropped stream resumes after the last message delivered."""
        cursor = ""

        def request() -> chat_pb2.WatchChatRequest:
            return chat_pb2.WatchChatRequest(table_id=table_id, cursor=cursor, backlog=backlog)

        for response in self.stream(self.chat.WatchChat, request, reopen_when_closed=True):
            cursor = response.message.cursor
            yield response.message
