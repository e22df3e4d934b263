"""One connection to a Verräter server: stubs, the caller's token, retries and resumable Watch.

A dropped connection (UNAVAILABLE and friends) is retried with exponential backoff; a Watch
resumes from the last version it delivered, so no event is lost or seen twice. Every other
failure is turned into a `ServerRefused` that carries the server's own words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import grpc

from services.api.verrater.v1 import (
    ai_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2_grpc,
)

DEFAULT_SERVER = "127.0.0.1:50051"

#: Codes that mean "the server (or the way to it) is away for now": try again.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
)
#: Seconds a unary call may take before it counts as lost.
CALL_TIMEOUT_S = 15.0

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
    """The server answered with an error status; `reason` is its message."""

    def __init__(self, code: grpc.StatusCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
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


def status_text(error: grpc.RpcError) -> str:
    """The server's reason for a failed call, in words."""
    code = error.code() if isinstance(error, grpc.Call) else None
    details = error.details() if isinstance(error, grpc.Call) else None
    if details:
        return str(details)
    return code.name if code is not None else str(error)


def _code(error: grpc.RpcError) -> grpc.StatusCode | None:
    return error.code() if isinstance(error, grpc.Call) else None


class Connection:
    """The Lobby, Game and Ai stubs on one channel, called with the current token."""

    def __init__(
        self,
        address: str,
        *,
        notify: Callable[[str], None] = lambda message: None,
        backoff: Callable[[], Backoff] = Backoff,
    ) -> None:
        self.address = address
        self.token = ""
        self._notify = notify
        self._backoff = backoff
        self._lost = False
        self._reached = False
        self._channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self._channel)
        self.game = game_pb2_grpc.GameServiceStub(self._channel)
        self.ai = ai_pb2_grpc.AiServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()

    def _wait(self, backoff: Backoff, problem: str) -> None:
        delay = backoff.next_delay()
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
        if self._lost:
            self._lost = False
            self._notify(f"{'Reconnected' if self._reached else 'Connected'} to {self.address}.")
        self._reached = True

    def _retry_or_raise(
        self, backoff: Backoff, error: grpc.RpcError, retryable: frozenset[grpc.StatusCode]
    ) -> None:
        code = _code(error)
        if code not in retryable:
            raise ServerRefused(code or grpc.StatusCode.UNKNOWN, status_text(error)) from error
        self._wait(backoff, code.name if code is not None else "no answer")

    def call(
        self,
        method: grpc.UnaryUnaryMultiCallable[Request, Response],
        request: Request,
        *,
        timeout: float = CALL_TIMEOUT_S,
        patience_s: float | None = None,
        idempotent: bool = True,
    ) -> Response:
        """One unary call; retried while the server is unreachable (for `patience_s` seconds,
        when given, instead of the backoff's limit).

        Reads and game commands (which carry a command id) are idempotent. Other calls are
        retried only on UNAVAILABLE, when the request most likely never reached the server:
        after a timeout nobody knows whether it did.
        """
        retryable = RETRYABLE if idempotent else frozenset({grpc.StatusCode.UNAVAILABLE})
        backoff = self._backoff()
        if patience_s is not None:
            backoff.limit_s = patience_s
        while True:
            try:
                response = method(request, timeout=timeout, metadata=self.metadata())
            except grpc.RpcError as error:
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
        connection drops, and, with `reopen_when_closed`, when the server ends it."""
        backoff = self._backoff()
        while True:
            call = method(request_for(), metadata=self.metadata())
            try:
                for item in call:
                    backoff.reset()
                    self._recovered()
                    yield item
            except grpc.RpcError as error:
                self._retry_or_raise(backoff, error, RETRYABLE)
            else:
                if not reopen_when_closed:
                    return
                self._wait(backoff, "the server closed the stream")
            finally:
                call.cancel()

    def watch(self, game_id: str, after_version: int) -> Iterator[game_pb2.GameUpdate]:
        """Every update of a game after `after_version`, live, for as long as the caller reads;
        a dropped stream resumes from the last version delivered."""
        version = after_version

        def request() -> game_pb2.WatchRequest:
            return game_pb2.WatchRequest(
                game_id=game_id, from_version=version, mode=game_pb2.WATCH_MODE_EVENTS
            )

        for response in self.stream(self.game.Watch, request, reopen_when_closed=True):
            update = response.update
            version = update.version
            yield update
