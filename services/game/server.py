"""The Game gRPC service: a thin entry point over `GameApplication`.

Every handler validates the request, calls one application method, and maps the outcome to a
status a client can act on: INVALID_ARGUMENT (malformed), FAILED_PRECONDITION (rule violation,
with the engine's code in the status details), ABORTED (stale version), NOT_FOUND,
UNAUTHENTICATED (interceptor), PERMISSION_DENIED, UNAVAILABLE (store down, retry). A client's
mistake is never INTERNAL, and a rejected request changes nothing.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import NoReturn

import grpc
import structlog
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status

from services.api.verrater.v1 import (
    errors_pb2,
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    ruleset_pb2,
    view_pb2,
)
from services.codec import (
    MalformedCommand,
    command_from_proto,
    event_to_proto,
    ruleset_to_proto,
    setup_from_proto,
    view_to_proto,
    violation_to_proto,
)
from services.engine import (
    CreateGame,
    Event,
    GameState,
    Ruleset,
    RuleViolation,
    SeatAssignment,
    ViolationCode,
    evolve,
    redact_event,
    view,
)
from services.engine.rng import new_seed
from services.eventstore import StoreUnavailable
from services.observability import COMMAND_SECONDS, COMMANDS, bind_call
from services.rpc.interceptor import Context, RateLimiter, caller
from services.rpc.tokens import Identity, Role

from .service import (
    GameAlreadyExists,
    GameApplication,
    GameNotFinished,
    GameNotFound,
    SeatNotInGame,
    SpectatorHasNoTurns,
    StaleVersion,
    Update,
    VersionOutOfRange,
    WatchMode,
)

log = structlog.get_logger("verrater.game")
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_COMMAND_ID = 128
SERVICE_NAME = "verrater.v1.Game"
#: Commands sent on a Play stream count against SubmitCommand's rate limit.
SUBMIT_METHOD = f"/{SERVICE_NAME}/SubmitCommand"
_WATCH_MODES = {
    game_pb2.WATCH_MODE_EVENTS: WatchMode.EVENTS,
    game_pb2.WATCH_MODE_VIEWS: WatchMode.VIEWS,
    game_pb2.WATCH_MODE_TURNS: WatchMode.TURNS,
}


class _Abort(Exception):
    """A status to end the call with (raised inside handlers, turned into an abort once)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        violation: errors_pb2.RuleViolationDetail | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.violation = violation


def _fail(code: grpc.StatusCode, message: str) -> NoReturn:
    raise _Abort(code, message)


def _violation_status(violation: errors_pb2.RuleViolationDetail) -> status_pb2.Status:
    detail = any_pb2.Any()
    detail.Pack(violation)
    return status_pb2.Status(
        code=code_pb2.FAILED_PRECONDITION, message=violation.message, details=[detail]
    )


@contextmanager
def _client_errors() -> Iterator[None]:
    """Map what the application raises to the status a client can act on."""
    try:
        yield
    except RuleViolation as violation:
        if violation.code is ViolationCode.INVALID_SETUP:
            raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, violation.message) from violation
        raise _Abort(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"{violation.code}: {violation.message}",
            violation_to_proto(violation),
        ) from violation
    except MalformedCommand as malformed:
        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, str(malformed)) from malformed
    except StaleVersion as stale:
        raise _Abort(grpc.StatusCode.ABORTED, str(stale)) from stale
    except GameNotFound as missing:
        raise _Abort(grpc.StatusCode.NOT_FOUND, str(missing)) from missing
    except GameAlreadyExists as exists:
        raise _Abort(grpc.StatusCode.ALREADY_EXISTS, str(exists)) from exists
    except GameNotFinished as running:
        raise _Abort(grpc.StatusCode.FAILED_PRECONDITION, str(running)) from running
    except SpectatorHasNoTurns as spectator:
        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, str(spectator)) from spectator
    except SeatNotInGame as stranger:
        raise _Abort(grpc.StatusCode.PERMISSION_DENIED, str(stranger)) from stranger
    except VersionOutOfRange as beyond:
        raise _Abort(grpc.StatusCode.OUT_OF_RANGE, str(beyond)) from beyond
    except StoreUnavailable as down:
        raise _Abort(
            grpc.StatusCode.UNAVAILABLE, f"the event store is unavailable, retry: {down}"
        ) from down


async def _abort(context: Context, abort: _Abort) -> NoReturn:
    if abort.violation is not None:
        status = rpc_status.to_status(_violation_status(abort.violation))
        await context.abort(status.code, status.details, status.trailing_metadata)
    await context.abort(abort.code, abort.message)
    raise AssertionError("context.abort returns only by raising")


def _game_id(value: str) -> str:
    if not GAME_ID.match(value):
        _fail(
            grpc.StatusCode.INVALID_ARGUMENT,
            "game_id must be 1-64 characters of letters, digits, '-' or '_'",
        )
    return value


def _identity() -> Identity:
    identity = caller()
    if identity is None:
        _fail(grpc.StatusCode.UNAUTHENTICATED, "this call needs a valid token")
    return identity


def _seat(identity: Identity, game_id: str) -> int:
    seat = identity.seat_in(game_id)
    if seat is None:
        _fail(
            grpc.StatusCode.PERMISSION_DENIED,
            f"your token is not bound to a seat in game {game_id}; ask the lobby for a seat token",
        )
    return seat


def redact_batch(
    before: GameState, events: tuple[Event, ...], seat: int | None
) -> list[events_pb2.GameEvent]:
    """The batch's events as `seat` may see them (redaction needs the state before each)."""
    out = []
    state = before
    for event in events:
        out.append(event_to_proto(redact_event(event, seat, state)))
        state = evolve(state, event)
    return out


def _update_message(update: Update, game_id: str) -> game_pb2.GameUpdate:
    message = game_pb2.GameUpdate(version=update.version)
    if update.event is not None:
        message.event.CopyFrom(event_to_proto(update.event))
        message.event.turn_timer_expired = update.turn_timer_expired
    if update.view is not None:
        message.view.CopyFrom(view_to_proto(update.view, game_id))
    return message


class GameServicer(game_pb2_grpc.GameServicer):
    """The Game service's RPCs."""

    def __init__(self, app: GameApplication, limiter: RateLimiter | None = None) -> None:
        self.app = app
        # The interceptor limits calls; a Play stream's commands are limited here, one by one.
        self._limiter = limiter

    async def GetView(
        self, request: game_pb2.GetViewRequest, context: Context
    ) -> view_pb2.PlayerView:
        """The game as the caller's seat (or a spectator) sees it now."""
        try:
            game_id = _game_id(request.game_id)
            identity = _identity()
            with _client_errors():
                current = await self.app.view(game_id, identity.seat_in(game_id))
            return view_to_proto(current, game_id)
        except _Abort as abort:
            await _abort(context, abort)

    async def SubmitCommand(
        self, request: game_pb2.SubmitCommandRequest, context: Context
    ) -> game_pb2.SubmitCommandResponse:
        """Apply one command for the caller's seat; a retried command id is applied once."""
        try:
            return await self._submit(request, caller(), request.game_id)
        except _Abort as abort:
            await _abort(context, abort)

    async def _submit(
        self, request: game_pb2.SubmitCommandRequest, identity: Identity | None, game_id: str
    ) -> game_pb2.SubmitCommandResponse:
        """One command of SubmitCommand or of a Play stream; refusals raise _Abort (and, like
        applied commands, count in the command metrics)."""
        started = time.perf_counter()
        kind = request.command.WhichOneof("command") or "none"
        outcome = "applied"
        try:
            game_id = _game_id(game_id)
            if identity is None:
                identity = _identity()
            seat = _seat(identity, game_id)
            bind_call(game_id=game_id, seat=seat, command_id=request.command_id[:MAX_COMMAND_ID])
            if request.turn_timer_expired and identity.role is not Role.SERVICE:
                _fail(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "only the AI service decides for a seat whose turn timer ran out",
                )
            if len(request.command_id) > MAX_COMMAND_ID:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "command_id is longer than 128 characters")
            if request.expected_version < 0:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "expected_version cannot be negative")
            with _client_errors():
                command = command_from_proto(request.command, seat)
                result = await self.app.submit(
                    game_id,
                    seat,
                    command,
                    expected_version=request.expected_version or None,
                    command_id=request.command_id,
                    turn_timer_expired=request.turn_timer_expired,
                )
            if result.replayed:
                outcome = "replayed"
            if request.version_only:
                return game_pb2.SubmitCommandResponse(
                    version=result.version, event_count=len(result.events)
                )
            events = redact_batch(result.before, result.events, seat)
            events[0].turn_timer_expired = request.turn_timer_expired and not result.replayed
            return game_pb2.SubmitCommandResponse(
                version=result.version,
                event_count=len(result.events),
                events=events,
                view=view_to_proto(view(result.state, seat), game_id),
            )
        except _Abort as abort:
            outcome = abort.code.name.lower()
            log.info("command refused", outcome=outcome, reason=abort.message)
            raise
        finally:
            COMMANDS.labels(kind, outcome).inc()
            COMMAND_SECONDS.observe(time.perf_counter() - started)

    async def Watch(
        self, request: game_pb2.WatchRequest, context: Context
    ) -> AsyncIterator[game_pb2.GameUpdate]:
        """Events after from_version, then live, redacted for the caller."""
        try:
            game_id = _game_id(request.game_id)
            identity = _identity()
            if request.from_version < 0:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "from_version cannot be negative")
            mode = _WATCH_MODES.get(request.mode)
            if mode is None:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, f"unknown watch mode {request.mode}")
            with _client_errors():
                updates = self.app.updates(
                    game_id, identity.seat_in(game_id), request.from_version, mode
                )
                async for update in updates:
                    yield _update_message(update, game_id)
                    del update  # not held while the next is awaited
        except _Abort as abort:
            await _abort(context, abort)

    async def Play(
        self, requests: AsyncIterator[game_pb2.PlayRequest], context: Context
    ) -> AsyncIterator[game_pb2.PlayUpdate]:
        """One seat's game over one stream: its turns go out, its commands come in, and each
        command is answered in order (see game.proto).

        Two tasks feed one outbox, the seat's turns and the answers to its commands, and this
        generator sends what they put in it. The stream ends after the final view, once the
        command in hand (if any) is answered. No message is held longer than it takes to send
        it: with hundreds of streams waiting, what each holds is what the collector walks.
        """
        try:
            identity = _identity()
            first = await anext(aiter(requests), None)
            if first is None or first.WhichOneof("request") != "open":
                _fail(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "open a Play stream with a PlayOpen message (`open`) naming the game",
                )
            game_id = _game_id(first.open.game_id)
            seat = _seat(identity, game_id)
            if first.open.from_version < 0:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "from_version cannot be negative")
            outbox: asyncio.Queue[game_pb2.PlayUpdate | Exception | None] = asyncio.Queue()
            deciding = asyncio.Lock()
            turns = asyncio.create_task(
                self._follow_turns(game_id, seat, first.open.from_version, outbox, deciding)
            )
            commands = asyncio.create_task(
                self._take_commands(requests, identity, game_id, outbox, deciding)
            )
            del first
            try:
                while True:
                    item = await outbox.get()
                    if item is None:
                        break
                    if isinstance(item, Exception):
                        raise item
                    yield item
                    del item
            finally:
                turns.cancel()
                commands.cancel()
                await asyncio.gather(turns, commands, return_exceptions=True)
        except _Abort as abort:
            await _abort(context, abort)

    async def _follow_turns(
        self,
        game_id: str,
        seat: int,
        from_version: int,
        outbox: asyncio.Queue[game_pb2.PlayUpdate | Exception | None],
        deciding: asyncio.Lock,
    ) -> None:
        """A Play stream's turns into its outbox; at the end, stop taking commands."""
        try:
            with _client_errors():
                async for update in self.app.updates(game_id, seat, from_version, WatchMode.TURNS):
                    outbox.put_nowait(game_pb2.PlayUpdate(turn=_update_message(update, game_id)))
                    del update
        except Exception as error:  # handed to the stream, which ends with it
            outbox.put_nowait(error)
            return
        async with deciding:  # a command in hand is answered before the stream ends
            outbox.put_nowait(None)

    async def _take_commands(
        self,
        requests: AsyncIterator[game_pb2.PlayRequest],
        identity: Identity,
        game_id: str,
        outbox: asyncio.Queue[game_pb2.PlayUpdate | Exception | None],
        deciding: asyncio.Lock,
    ) -> None:
        """A Play stream's commands, decided one at a time, their answers into its outbox."""
        try:
            async for request in requests:
                kind = request.WhichOneof("request")
                if kind != "command":
                    _fail(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "a Play stream is opened once: send only `command` messages after the "
                        "first"
                        if kind == "open"
                        else "a PlayRequest must carry `open` or `command`",
                    )
                if identity.expires_at <= time.time():
                    _fail(
                        grpc.StatusCode.UNAUTHENTICATED,
                        "the token has expired; refresh it with the lobby and open a new Play "
                        "stream",
                    )
                async with deciding:
                    answer = await self._play_command(request.command, identity, game_id)
                    outbox.put_nowait(answer)
                del request, answer
        except Exception as error:  # handed to the stream, which ends with it
            outbox.put_nowait(error)

    async def _play_command(
        self, request: game_pb2.SubmitCommandRequest, identity: Identity, game_id: str
    ) -> game_pb2.PlayUpdate:
        """A Play stream's command, answered with its result: applied or refused."""
        result = game_pb2.CommandResult(command_id=request.command_id)
        try:
            if request.game_id and request.game_id != game_id:
                _fail(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"this Play stream plays game {game_id}: leave game_id empty, or open "
                    f"another stream for {request.game_id}",
                )
            if self._limiter is not None and identity.role is not Role.SERVICE:
                refusal = self._limiter.refusal(SUBMIT_METHOD, identity.subject)
                if refusal is not None:
                    _fail(grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
            request.version_only = True
            result.applied.CopyFrom(await self._submit(request, identity, game_id))
        except _Abort as abort:
            result.refused.code = abort.code.value[0]
            result.refused.message = abort.message
            if abort.violation is not None:
                result.refused.violation.CopyFrom(abort.violation)
        return game_pb2.PlayUpdate(result=result)

    async def GetLog(self, request: game_pb2.GetLogRequest, context: Context) -> game_pb2.GameLog:
        """The complete log of a finished game, with its hash chain and exact stored bytes."""
        try:
            game_id = _game_id(request.game_id)
            _identity()
            with _client_errors():
                entries = await self.app.log(game_id)
            return game_pb2.GameLog(
                game_id=game_id,
                events=[
                    game_pb2.LoggedEvent(
                        version=stored.version,
                        prev_hash=stored.prev_hash,
                        hash=stored.hash,
                        event=event_to_proto(record.event),
                        payload=stored.payload,
                    )
                    for stored, record in entries
                ],
            )
        except _Abort as abort:
            await _abort(context, abort)

    async def GetRuleset(
        self, request: game_pb2.GetRulesetRequest, context: Context
    ) -> ruleset_pb2.Ruleset:
        """A game's ruleset, or the standard one for a player count and variant (no token)."""
        try:
            if request.game_id:
                with _client_errors():
                    state = await self.app.state(_game_id(request.game_id), fresh=False)
                return ruleset_to_proto(state.rules)
            if request.players not in (3, 4):
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "players must be 3 or 4")
            return ruleset_to_proto(
                Ruleset.standard(request.players, builder_may_move=request.builder_may_move)
            )
        except _Abort as abort:
            await _abort(context, abort)

    async def CreateGame(
        self, request: game_pb2.CreateGameRequest, context: Context
    ) -> game_pb2.CreateGameResponse:
        """Start a game (service tokens only: the lobby, or an operator's sandbox tool)."""
        try:
            identity = _identity()
            if identity.role is not Role.SERVICE:
                _fail(grpc.StatusCode.PERMISSION_DENIED, "only the lobby may create games")
            game_id = _game_id(request.game_id) if request.game_id else secrets.token_hex(8)
            if request.players not in (3, 4):
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "players must be 3 or 4")
            if request.HasField("seed") and len(request.seed) != 32:
                _fail(grpc.StatusCode.INVALID_ARGUMENT, "seed must be exactly 32 bytes")
            with _client_errors():
                setup = setup_from_proto(request.setup) if request.HasField("setup") else None
                ruleset = Ruleset.standard(
                    request.players, builder_may_move=request.builder_may_move
                )
                seed = request.seed if request.HasField("seed") else new_seed()
                seats = tuple(
                    SeatAssignment(seat.player_id, seat.name, seat.bot_level)
                    for seat in request.seats
                )
                command = CreateGame(
                    ruleset, seed, setup, seats, request.ranked, request.turn_seconds
                )
                state = await self.app.create_game(game_id, command)
            return game_pb2.CreateGameResponse(game_id=game_id, version=state.version)
        except _Abort as abort:
            await _abort(context, abort)
