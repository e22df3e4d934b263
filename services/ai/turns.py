"""Playing a bot seat's turn through the public game API, exactly once.

The announcing replica puts the seat's view (and the game's ruleset) into the turn, so a bot
usually decides at once and submits with one call: the view's version as the expected version
and a command id derived from (game, seat, version). A stale view means ABORTED: the bot reads
the view again and retries. A turn that runs twice (a redelivery after a worker died, a
re-announced turn) submits the same command id again and gets the recorded answer, so the bot
never moves twice.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, ruleset_pb2, view_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.engine import Ruleset
from services.rpc import Role, TokenIssuer, bearer, refusal_of, status_code

from .levels import policy_for_level, searches

log = logging.getLogger("verrater.ai")

MAX_ATTEMPTS = 5
#: Seat tokens: minted for five minutes, used for four, at most this many kept.
TOKEN_TTL_S = 300
TOKEN_REUSE_S = 240
TOKEN_CACHE = 4096
#: Channel options for the game service: `dns:///` names (and `ipv4:a,b` lists) resolve to every
#: replica and calls spread over them, instead of all going to the first address.
CHANNEL_OPTIONS = (("grpc.lb_policy_name", "round_robin"),)


def game_channel(address: str) -> aio.Channel:
    """A channel to the game service that balances calls over its replicas."""
    return aio.insecure_channel(address, options=CHANNEL_OPTIONS)


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One decision a bot owes: for `seat` of `game_id`, as of game `version`.

    `turn_timer_expired` marks a human seat whose timer ran out: the bot acts only if the game
    is still at `version` (the human has not moved meanwhile). `view` and `ruleset` are the
    seat's serialized `PlayerView` at `version` and the game's `Ruleset`, when the announcer
    had them (empty: the bot reads them). `replica` is the announcing game replica's own
    address (VERRATER_ADVERTISE_ADDR), where the game is in memory at `version`, and
    `replica_seal` vouches for it (`seal_replica`): the worker submits there, not through the
    balanced address (empty: no such address).
    """

    game_id: str
    seat: int
    version: int
    level: str
    turn_timer_expired: bool = False
    view: bytes = b""
    ruleset: bytes = b""
    replica: str = ""
    replica_seal: str = ""

    @property
    def command_id(self) -> str:
        return command_id(self.game_id, self.seat, self.version)

    def as_kwargs(self) -> dict[str, object]:
        """JSON-safe keyword arguments of the `verrater.bot_turn` task (the replica only when
        there is one, so that workers of earlier releases still read the turns of game
        services that advertise none)."""
        kwargs: dict[str, object] = {
            "game_id": self.game_id,
            "seat": self.seat,
            "version": self.version,
            "level": self.level,
            "turn_timer_expired": self.turn_timer_expired,
            "view": base64.b64encode(self.view).decode(),
            "ruleset": base64.b64encode(self.ruleset).decode(),
        }
        if self.replica:
            kwargs["replica"] = self.replica
            kwargs["replica_seal"] = self.replica_seal
        return kwargs

    @classmethod
    def from_kwargs(
        cls,
        *,
        game_id: str,
        seat: int,
        version: int,
        level: str,
        turn_timer_expired: bool = False,
        view: str = "",
        ruleset: str = "",
        replica: str = "",
        replica_seal: str = "",
    ) -> BotTurn:
        return cls(
            game_id,
            seat,
            version,
            level,
            turn_timer_expired,
            base64.b64decode(view),
            base64.b64decode(ruleset),
            replica,
            replica_seal,
        )


def seal_replica(secret: str, address: str) -> str:
    """What vouches that a game replica announced `address` as its own: an HMAC with the token
    secret. A worker connects only to a sealed address, so whoever can write to the broker
    cannot make workers send seat tokens to a host of their choosing."""
    mac = hmac.new(secret.encode(), b"verrater-replica\0" + address.encode(), hashlib.sha256)
    return mac.hexdigest()[:32]


def command_id(game_id: str, seat: int, version: int) -> str:
    """The one command id of a bot's decision for `seat` at `version`: every run of the turn
    uses it, so the decision is applied at most once."""
    return f"bot:{game_id}:{seat}:{version}"


#: Game replicas a client keeps a direct channel to (the least recently used is closed first),
#: and how long one that could not be reached is passed over.
REPLICAS_KEPT = 64
REPLICA_PASSED_OVER_S = 10.0
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
_T = TypeVar("_T")

#: Rulesets a client remembers: of the games it played bot turns in lately (a worker lives for
#: many games; one forgotten costs a GetRuleset call).
RULESETS_KEPT = 1024


class GameClient:
    """The game API as the AI service uses it: service tokens that name the bot's seat."""

    def __init__(
        self,
        address: str,
        issuer: TokenIssuer,
        *,
        rulesets_kept: int = RULESETS_KEPT,
        replicas_kept: int = REPLICAS_KEPT,
    ) -> None:
        self._channel = game_channel(address)
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._issuer = issuer
        self._rulesets: OrderedDict[str, Ruleset] = OrderedDict()
        self._rulesets_kept = rulesets_kept
        # Direct channels to the replicas that announced turns (see `_route`).
        self._replicas: OrderedDict[str, tuple[aio.Channel, game_pb2_grpc.GameServiceAsyncStub]] = (
            OrderedDict()
        )
        self._replicas_kept = replicas_kept
        self._passed_over: dict[str, float] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._tokens: OrderedDict[tuple[str, int], tuple[str, tuple[tuple[str, str]], float]] = (
            OrderedDict()
        )
        # Moves waiting to go out together in a SubmitCommands call, by the replica they go to
        # ("": the balanced address); the routes with a call due or under way; the calls under
        # way (see `submit`). `_together` is False once the game service answered that it has
        # no SubmitCommands (an earlier release): each move then goes in a call of its own.
        self._outgoing: dict[str, list[_Outgoing]] = {}
        self._busy: set[str] = set()
        self._sending: set[asyncio.Task[None]] = set()
        self._together = True

    def _seat_token(self, game_id: str, seat: int) -> tuple[str, tuple[tuple[str, str]]]:
        """A token for the seat and the metadata that carries it, reused while it has most of
        its life left: the game service verifies a token it has seen before from its cache, a
        new one with an HMAC."""
        now = time.monotonic()
        known = self._tokens.get((game_id, seat))
        if known is not None and known[2] > now:
            self._tokens.move_to_end((game_id, seat))
            return known[0], known[1]
        token = self._issuer.mint(
            "ai", role=Role.SERVICE, game_id=game_id, seat=seat, ttl_seconds=TOKEN_TTL_S
        )
        metadata = bearer(token)
        self._tokens[(game_id, seat)] = (token, metadata, now + TOKEN_REUSE_S)
        while len(self._tokens) > TOKEN_CACHE:
            self._tokens.popitem(last=False)
        return token, metadata

    def _route(self, turn: BotTurn) -> tuple[game_pb2_grpc.GameServiceAsyncStub, str | None]:
        """Where the turn's calls go: the replica that announced it, where the game is in
        memory at the announced version (no other replica need read it from the store), when
        the turn names one with a valid seal and it was not unreachable lately; else the
        balanced channel. The stub, and the replica (None: balanced)."""
        address = turn.replica
        if not address or self._passed_over.get(address, 0.0) > time.monotonic():
            return self._stub, None
        known = self._replicas.get(address)
        if known is None:
            if not hmac.compare_digest(
                turn.replica_seal, seal_replica(self._issuer.secret, address)
            ):
                log.warning(
                    "bot turn %s names replica %r without a valid seal (another token "
                    "secret?): sent through the balanced address",
                    turn.command_id,
                    address,
                )
                return self._stub, None
            channel = aio.insecure_channel(address)
            known = self._replicas[address] = (channel, game_pb2_grpc.GameServiceStub(channel))
            while len(self._replicas) > self._replicas_kept:
                _, (old, _) = self._replicas.popitem(last=False)
                self._close_later(old)
        self._replicas.move_to_end(address)
        return known[1], address

    async def _call(
        self,
        turn: BotTurn,
        call: Callable[[game_pb2_grpc.GameServiceAsyncStub], Awaitable[_T]],
    ) -> _T:
        """`call` on the turn's route. A replica that cannot be reached is passed over for a
        while: UNAVAILABLE (gone, draining) goes on at once through the balanced channel,
        DEADLINE_EXCEEDED is raised (the caller's retry takes the balanced channel)."""
        stub, replica = self._route(turn)
        try:
            return await call(stub)
        except grpc.aio.AioRpcError as error:
            if replica is None or error.code() not in _UNREACHABLE:
                raise
            if refusal_of(error) is not None:
                # The replica answered: it is there, only the game's store is not (a Redis
                # Cluster master failing over). The caller's retry comes back to it.
                raise
            self._passed_over[replica] = time.monotonic() + REPLICA_PASSED_OVER_S
            if len(self._passed_over) > self._replicas_kept:
                now = time.monotonic()
                self._passed_over = {a: t for a, t in self._passed_over.items() if t > now}
            log.info("game replica %s: %s; through the balanced address", replica, error.code())
            if error.code() is not grpc.StatusCode.UNAVAILABLE:
                raise
        return await call(self._stub)

    def _close_later(self, channel: aio.Channel) -> None:
        task = asyncio.get_running_loop().create_task(channel.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def view(self, turn: BotTurn) -> view_pb2.PlayerView:
        request = game_pb2.GetViewRequest(game_id=turn.game_id)
        _, metadata = self._seat_token(turn.game_id, turn.seat)
        answer = await self._call(
            turn, lambda stub: stub.GetView(request, metadata=metadata, timeout=10)
        )
        return answer.view

    async def ruleset(self, turn: BotTurn) -> Ruleset:
        """The turn's game's ruleset: cached, else decoded from the turn, else asked for."""
        game_id = turn.game_id
        ruleset = self._rulesets.get(game_id)
        if ruleset is None:
            if turn.ruleset:
                message = ruleset_pb2.Ruleset.FromString(turn.ruleset)
            else:
                request = game_pb2.GetRulesetRequest(game_id=game_id)
                answer = await self._call(turn, lambda stub: stub.GetRuleset(request, timeout=10))
                message = answer.ruleset
            ruleset = self._rulesets[game_id] = ruleset_from_proto(message)
            while len(self._rulesets) > self._rulesets_kept:
                self._rulesets.popitem(last=False)
        self._rulesets.move_to_end(game_id)
        return ruleset

    async def submit(self, turn: BotTurn, view: view_pb2.PlayerView, command: object) -> None:
        """Submit the bot's move; raises the call's `AioRpcError`, or `CommandRefused`.

        Moves go out together in SubmitCommands calls, which the replica takes one after
        another: one call instead of one per move, on the worker and on the replica. A call
        leaves once the event loop has run what was ready (so the bots of a message, deciding
        together, share it), but while one is under way to a replica, the moves for it wait for
        its answer and then go in the next. No move waits for a call that is not under way.
        """
        request = game_pb2.SubmitCommandRequest(
            game_id=turn.game_id,
            expected_version=view.version,
            command_id=command_id(turn.game_id, turn.seat, view.version),
            command=command,  # type: ignore[arg-type]
            turn_timer_expired=turn.turn_timer_expired,
            version_only=True,
        )
        token, metadata = self._seat_token(turn.game_id, turn.seat)
        if not self._together:
            await self._submit_one(turn, request, metadata)
            return
        outgoing = _Outgoing(turn, game_pb2.SeatCommand(token=token, command=request))
        route = turn.replica
        self._outgoing.setdefault(route, []).append(outgoing)
        if route not in self._busy:
            self._busy.add(route)
            asyncio.get_running_loop().call_soon(self._send_outgoing, route)
        await outgoing.answered

    def _send_outgoing(self, route: str) -> None:
        """Send up to MOVES_PER_CALL of the moves waiting for `route` in one call. Should the
        call still be under way `SLOW_CALL_S` later (a move in it waits on a store that does
        not answer: a Redis Cluster master failing over), the moves that waited meanwhile go
        in a call of their own, beside it, rather than behind it."""
        waiting = self._outgoing.pop(route, [])
        if not waiting:
            return
        if len(waiting) > MOVES_PER_CALL:
            self._outgoing[route] = waiting[MOVES_PER_CALL:]
            waiting = waiting[:MOVES_PER_CALL]
        loop = asyncio.get_running_loop()
        task = loop.create_task(self._send_together(route, waiting))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        loop.call_later(SLOW_CALL_S, self._beside_slow_call, route, task)

    def _beside_slow_call(self, route: str, call: asyncio.Task[None]) -> None:
        if not call.done() and route in self._outgoing:
            self._send_outgoing(route)

    async def _send_together(self, route: str, moves: list[_Outgoing]) -> None:
        """One SubmitCommands call for `moves`; each move hears how it went, whatever happens
        (a move whose call was cancelled is cancelled). Then the moves that waited meanwhile."""
        try:
            await self._answer_together(moves)
        finally:
            for move in moves:
                move.answered.cancel()  # a no-op for every move already answered
            if route in self._outgoing:
                self._send_outgoing(route)
            else:
                self._busy.discard(route)

    async def _answer_together(self, moves: list[_Outgoing]) -> None:
        request = game_pb2.SubmitCommandsRequest(commands=[move.command for move in moves])
        metadata = bearer(moves[0].command.token)
        try:
            answer = await self._call(
                moves[0].turn,
                lambda stub: stub.SubmitCommands(request, metadata=metadata, timeout=10),
            )
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.UNIMPLEMENTED:
                for move in moves:
                    move.answer(error)
                return
            log.info("the game service has no SubmitCommands: one call per bot move")
            self._together = False
            await self._send_one_by_one(moves)
            return
        except Exception as error:  # not the service's answer: the moves' turns report it
            for move in moves:
                move.answer(error)
            return
        for index, move in enumerate(moves):
            if index >= len(answer.results):
                move.answer(CommandRefused(grpc.StatusCode.INTERNAL, "no answer for this move"))
            elif answer.results[index].HasField("refused"):
                refused = answer.results[index].refused
                code = status_code(refused.code)
                move.answer(CommandRefused(code, refused.message, refused.reason))
            else:
                move.answer(None)

    async def _submit_one(
        self,
        turn: BotTurn,
        request: game_pb2.SubmitCommandRequest,
        metadata: tuple[tuple[str, str]],
    ) -> None:
        await self._call(
            turn, lambda stub: stub.SubmitCommand(request, metadata=metadata, timeout=10)
        )

    async def _send_one_by_one(self, moves: list[_Outgoing]) -> None:
        for move in moves:
            try:
                await self._submit_one(move.turn, move.command.command, bearer(move.command.token))
            except Exception as error:
                move.answer(error)
            else:
                move.answer(None)

    async def close(self) -> None:
        while self._sending:  # a call's end may start the next one for its route
            await asyncio.gather(*self._sending, return_exceptions=True)
        for channel, _ in self._replicas.values():
            self._close_later(channel)
        self._replicas.clear()
        await asyncio.gather(self._channel.close(), *self._closing)


#: Moves one SubmitCommands call carries at most (the game service takes up to 64).
MOVES_PER_CALL = 64
#: How long a SubmitCommands call may be under way before the moves waiting for its replica
#: go in another call beside it (a call takes milliseconds, unless a store does not answer).
SLOW_CALL_S = 0.25


class CommandRefused(Exception):
    """A move the game service refused in a SubmitCommands call: the status code, message and
    reason SubmitCommand would have failed with (read as an `AioRpcError`'s: `code()`,
    `details()`)."""

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "") -> None:
        super().__init__(f"{code.name}: {message}")
        self._code = code
        self._message = message
        self.reason = reason

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message


class _Outgoing:
    """A move waiting to be sent, and how it went once answered."""

    __slots__ = ("answered", "command", "turn")

    def __init__(self, turn: BotTurn, command: game_pb2.SeatCommand) -> None:
        self.turn = turn
        self.command = command
        self.answered: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def answer(self, error: BaseException | None) -> None:
        if self.answered.done():  # its turn was cancelled meanwhile
            return
        if error is None:
            self.answered.set_result(None)
        else:
            self.answered.set_exception(error)


async def play_bot_turn(client: GameClient, turn: BotTurn, min_think_s: float = 0.0) -> bool:
    """Decide and submit the turn; False when there was nothing (left) to do.

    `min_think_s` makes the bot take at least that long per move (bots that answer instantly
    feel odd to people; operators set it with VERRATER_BOT_MIN_THINK_MS). Raises the call's
    `AioRpcError`, or the move's `CommandRefused`, when it cannot go on.
    """
    try:  # before any call: a turn whose view does not decode costs the game service nothing
        message = view_pb2.PlayerView.FromString(turn.view) if turn.view else None
    except DecodeError:
        log.warning("bot turn %s carries a view that does not decode: dropped", turn.command_id)
        return False
    ruleset = await client.ruleset(turn)
    policy = policy_for_level(turn.level)
    for _ in range(MAX_ATTEMPTS):
        if message is None:
            message = await client.view(turn)
        if turn.turn_timer_expired and message.version != turn.version:
            return False  # the human moved in time
        if turn.seat not in message.turn.seats:
            return False  # already decided (by an earlier run of this task, or anyone)
        view = view_from_proto(message)
        rng = random.Random(command_id(turn.game_id, turn.seat, message.version))
        if min_think_s > 0 or searches(turn.level):
            # Search policies think for a while: keep the event loop free meanwhile.
            choice, _ = await asyncio.gather(
                asyncio.to_thread(policy.choose, view, ruleset, rng), asyncio.sleep(min_think_s)
            )
        else:
            choice = policy.choose(view, ruleset, rng)
        try:
            await client.submit(turn, message, command_to_proto(choice.command))
        except (grpc.aio.AioRpcError, CommandRefused) as error:
            if error.code() is grpc.StatusCode.ABORTED:
                message = None  # someone else moved first, or the view was stale: read again
                continue
            raise
        log.debug(
            "bot %s (seat %d of %s) played at version %d: %s",
            turn.level,
            turn.seat,
            turn.game_id,
            message.version,
            choice.reason,
        )
        return True
    return False
