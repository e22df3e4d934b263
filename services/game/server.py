"""The Game gRPC service: a thin entry point over `GameApplication`.

Each handler decodes its request, calls the application, and encodes the answer. Refusals are
raised and leave through the rpc edge's one table (services/rpc/status.py): INVALID_ARGUMENT
(malformed), FAILED_PRECONDITION (rule violation, with the engine's code in the status details),
ABORTED (stale version), NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE (retry),
each with its stable reason. A refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc
from services.codec import (
    bot_level_from_proto,
    event_to_proto,
    ruleset_to_proto,
    setup_from_proto,
    view_to_proto,
)
from services.engine import PLAYER_COUNTS, PLAYER_COUNTS_TEXT, Ruleset, SeatAssignment, view
from services.errors import Reason, ServiceError
from services.observability import bind_call
from services.rpc import (
    Context,
    Identity,
    RateLimiter,
    Role,
    VerifiedTokens,
    authenticated,
    checked_id,
    cutting_off,
    send_headers,
)

from . import messages
from .play import DEFAULT_MAX_PENDING, Answer, PlaySession, Submission, apply, decide
from .service import GameApplication
from .values import NewGame, Update, WatchMode

SERVICE_NAME = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
#: Decisions sent on a Play stream count against SubmitCommand's rate limit.
SUBMIT_METHOD = f"/{SERVICE_NAME}/SubmitCommand"
#: Commands one SubmitCommands call may carry (a bot-turn message's moves: TURNS_PER_TASK).
MAX_COMMANDS_PER_CALL = 64
#: The longest one command of a SubmitCommands call holds the replica's turn (an append takes
#: a millisecond or two; one that takes longer waits on a store that does not answer).
HOLD_S = 0.05
#: Spectators' update messages kept to be shared (`GameServicer._public_message`): a game's
#: spectators are at most a few versions apart, so a few per watched game are plenty.
PUBLIC_MESSAGES = 1024


class GameServicer(game_pb2_grpc.GameServiceServicer):
    """The Game service's RPCs."""

    def __init__(
        self,
        app: GameApplication,
        tokens: VerifiedTokens,
        limiter: RateLimiter | None = None,
        *,
        stream_backlog: int = DEFAULT_MAX_PENDING,
    ) -> None:
        """`tokens` verifies the tokens inside SubmitCommands requests (the interceptor's own,
        so a token seen in either is verified once); `stream_backlog`: answers a Play stream
        holds for a client that does not read."""
        self.app = app
        self._tokens = tokens
        # SubmitCommands calls take their commands one at a time between them (see there).
        self._one_at_a_time = asyncio.Lock()
        # The interceptor limits calls; a Play stream's decisions are limited one by one.
        self._limiter = limiter
        self._stream_backlog = stream_backlog
        # Spectators' updates as messages, made once for all a game's spectators (`_public`).
        self._public: OrderedDict[int, tuple[Update, game_pb2.GameUpdate]] = OrderedDict()

    async def GetView(
        self, request: game_pb2.GetViewRequest, context: Context
    ) -> game_pb2.GetViewResponse:
        """The game as the caller's seat (or a spectator) sees it now."""
        game_id = checked_id(request.game_id, "game_id")
        identity = authenticated()
        seen = await self.app.view(game_id, identity.seat_in(game_id))
        return game_pb2.GetViewResponse(view=view_to_proto(seen.view, game_id, seen.deadline_ms))

    async def SubmitCommand(
        self, request: game_pb2.SubmitCommandRequest, context: Context
    ) -> game_pb2.SubmitCommandResponse:
        """Apply one command for the caller's seat; a retried command id is applied once."""
        started = time.perf_counter()
        kind = request.command.WhichOneof("command") or "none"
        try:
            identity = authenticated()
            game_id = checked_id(request.game_id, "game_id")
            seat = messages.seat_of(identity, game_id)
            bind_call(
                game_id=game_id, seat=seat, command_id=request.command_id[: messages.MAX_COMMAND_ID]
            )
            submission = messages.submission(request, identity, seat)
            result = await apply(self.app, game_id, seat, submission)
        except Exception as error:
            messages.count_command(kind, messages.outcome(error), started)
            raise
        messages.count_command(kind, "replayed" if result.replayed else "applied", started)
        if request.version_only:
            return game_pb2.SubmitCommandResponse(
                version=result.version, event_count=len(result.events)
            )
        events = [event_to_proto(event) for event in result.events_for(seat)]
        if result.decision is not None:  # the decision event's metadata, as stored
            events[0].command_id = result.decision.command_id
            events[0].turn_timer_expired = result.decision.turn_timer_expired
            events[0].recorded_at_ms = result.decision.recorded_at_ms
        return game_pb2.SubmitCommandResponse(
            version=result.version,
            event_count=len(result.events),
            events=events,
            view=view_to_proto(view(result.state, seat), game_id),
        )

    async def SubmitCommands(
        self, request: game_pb2.SubmitCommandsRequest, context: Context
    ) -> game_pb2.SubmitCommandsResponse:
        """Several decisions, each for the seat its own token names, taken in order and each
        answered (services/game/play.py's `decide`, as on a Play stream).

        The replica takes the commands of all SubmitCommands calls one at a time (workers send
        bots' moves this way): each command's append is awaited before the next starts, so a
        person's SubmitCommand waits behind one such command at most, not behind every call
        the workers have under way. Measured at full load, this cut a person's p99 by a third
        for a tenth fewer commands a second (docs/BENCHMARKS.md). A command whose store does not
        answer (its Redis Cluster master failing over) holds the turn `HOLD_S` at most and goes
        on waiting beside the others: one game's shard holds up no other game's move."""
        authenticated()
        count = len(request.commands)
        if not 0 < count <= MAX_COMMANDS_PER_CALL:
            raise ServiceError(
                Reason.MISSING_FIELD if count == 0 else Reason.MALFORMED_REQUEST,
                f"send 1 to {MAX_COMMANDS_PER_CALL} commands in a SubmitCommands call "
                f"(this one has {count})",
                field="commands",
            )
        taken: list[asyncio.Task[Answer]] = []
        for entry in request.commands:
            async with self._one_at_a_time:
                deciding = asyncio.ensure_future(self._one_of_many(entry))
                await asyncio.wait({deciding}, timeout=HOLD_S)
            taken.append(deciding)
        response = game_pb2.SubmitCommandsResponse()
        for each in taken:
            response.results.append(messages.command_result(await each))
        del taken
        return response

    async def _one_of_many(self, entry: game_pb2.SeatCommand) -> Answer:
        command = entry.command
        try:
            identity = self._tokens.verify(entry.token)
            game_id = checked_id(command.game_id, "game_id")
            seat = messages.seat_of(identity, game_id)
        except Exception as error:  # answers this command only
            kind = command.command.WhichOneof("command") or "none"
            return Answer(Submission(command.command_id, None, None, kind=kind), None, error, 0.0)
        bind_call(
            game_id=game_id, seat=seat, command_id=command.command_id[: messages.MAX_COMMAND_ID]
        )
        submission = messages.submission(command, identity, seat)
        return await decide(self.app, game_id, seat, submission, self._admission(identity))

    async def Watch(
        self, request: game_pb2.WatchRequest, context: Context
    ) -> AsyncIterator[game_pb2.WatchResponse]:
        """Events after from_version, then live, redacted for the caller."""
        game_id = checked_id(request.game_id, "game_id")
        identity = authenticated()
        mode = messages.WATCH_MODES.get(request.mode)
        if mode is None:
            if request.mode == game_pb2.WATCH_MODE_UNSPECIFIED:
                raise ServiceError(
                    Reason.MISSING_FIELD,
                    "mode is required: WATCH_MODE_EVENTS, WATCH_MODE_VIEWS or WATCH_MODE_TURNS",
                    field="mode",
                )
            raise ServiceError(
                Reason.MALFORMED_REQUEST, f"unknown watch mode {request.mode}", field="mode"
            )
        seat = identity.seat_in(game_id)
        updates = self.app.updates(game_id, seat, messages.from_version(request.from_version), mode)
        # A spectator following the events shares what it is sent (a views-only one does not).
        shared = seat is None and mode is WatchMode.EVENTS
        message = self._public_message if shared else messages.update_message
        if not request.grouped:
            async for update in updates:
                yield game_pb2.WatchResponse(update=message(update, game_id))
                del update  # not held while the next is awaited
            return
        batch: list[game_pb2.GameUpdate] = []
        async for update in updates:
            batch.append(message(update, game_id))
            # A batch ends where the game is at rest again: the update that carries the view
            # (every update, in the views-only modes). The cache holds whole batches, so the
            # updates of one come without a wait in between.
            if update.view is not None:
                yield game_pb2.WatchResponse(updates=batch)
                batch = []
            del update
        if batch:  # not expected (a batch ends at rest), but never dropped
            yield game_pb2.WatchResponse(updates=batch)

    def _public_message(self, update: Update, game_id: str) -> game_pb2.GameUpdate:
        """A spectator's update as a message: the application hands every spectator following a
        game's events the same `Update` (GameApplication's public updates), so it is turned into
        a message once, for the last PUBLIC_MESSAGES of them (a response copies it in)."""
        known = self._public.get(id(update))
        if known is not None and known[0] is update:
            return known[1]
        made = messages.update_message(update, game_id)
        self._public[id(update)] = (update, made)
        if len(self._public) > PUBLIC_MESSAGES:
            self._public.popitem(last=False)
        return made

    async def Play(
        self, requests: AsyncIterator[game_pb2.PlayRequest], context: Context
    ) -> AsyncIterator[game_pb2.PlayResponse]:
        """One seat's game over one stream (services/game/play.py; game.proto)."""
        identity = authenticated()
        first = await anext(aiter(requests), None)
        if first is None or first.WhichOneof("request") != "open":
            raise ServiceError(
                Reason.MALFORMED_REQUEST,
                "open a Play stream with a PlayOpen message (`open`) naming the game",
                field="open",
            )
        game_id = checked_id(first.open.game_id, "game_id")
        seat = messages.seat_of(identity, game_id)
        session = PlaySession(
            self.app,
            game_id,
            seat,
            from_version=messages.from_version(first.open.from_version),
            admit=self._admission(identity),
            max_pending=self._stream_backlog,
            on_cut_while_sending=cutting_off(context),
        )
        del first
        await send_headers(context)  # so that a cut can end the stream (`cut_off`)
        decisions = messages.decisions(requests, identity, game_id, seat)
        async for item in session.run(decisions):
            if isinstance(item, Answer):
                yield game_pb2.PlayResponse(result=messages.command_result(item))
            else:
                yield game_pb2.PlayResponse(turn=messages.update_message(item, game_id))
            del item

    def _admission(self, identity: Identity) -> Callable[[], None] | None:
        limiter = self._limiter
        if limiter is None or identity.role is Role.SERVICE:
            return None
        return lambda: limiter.check(SUBMIT_METHOD, identity.subject)

    async def GetLog(
        self, request: game_pb2.GetLogRequest, context: Context
    ) -> game_pb2.GetLogResponse:
        """The complete log of a finished game, with its hash chain and exact stored bytes."""
        game_id = checked_id(request.game_id, "game_id")
        authenticated()
        return game_pb2.GetLogResponse(
            game_id=game_id,
            events=[
                game_pb2.LoggedEvent(
                    version=stored.version,
                    prev_hash=stored.prev_hash,
                    hash=stored.hash,
                    # The stored message itself: command ids and times included.
                    event=events_pb2.GameEvent.FromString(stored.payload),
                    payload=stored.payload,
                )
                for stored, _ in await self.app.log(game_id)
            ],
        )

    async def GetRuleset(
        self, request: game_pb2.GetRulesetRequest, context: Context
    ) -> game_pb2.GetRulesetResponse:
        """A game's ruleset, or the standard one for a player count and variant (no token)."""
        if request.game_id:
            state = await self.app.state(checked_id(request.game_id, "game_id"), fresh=False)
            return game_pb2.GetRulesetResponse(
                ruleset=ruleset_to_proto(state.rules, action_cards=True)
            )
        if request.players not in PLAYER_COUNTS:
            raise ServiceError(
                Reason.MALFORMED_REQUEST, f"players must be {PLAYER_COUNTS_TEXT}", field="players"
            )
        ruleset = Ruleset.standard(request.players, builder_may_move=request.builder_may_move)
        return game_pb2.GetRulesetResponse(ruleset=ruleset_to_proto(ruleset, action_cards=True))

    async def CreateGame(
        self, request: game_pb2.CreateGameRequest, context: Context
    ) -> game_pb2.CreateGameResponse:
        """Start a game (service tokens only: the lobby, or an operator's sandbox tool)."""
        if authenticated().role is not Role.SERVICE:
            raise ServiceError(Reason.SERVICE_ONLY, "only the lobby may create games")
        game_id, state = await self.app.start_game(
            NewGame(
                players=request.players,
                game_id=checked_id(request.game_id, "game_id") if request.game_id else "",
                builder_may_move=request.builder_may_move,
                setup=setup_from_proto(request.setup) if request.HasField("setup") else None,
                seed=request.seed if request.HasField("seed") else None,
                seats=tuple(
                    SeatAssignment(
                        seat.player_id,
                        seat.name,
                        bot_level_from_proto(seat.bot_level, "seats.bot_level"),
                    )
                    for seat in request.seats
                ),
                ranked=request.ranked,
                turn_seconds=request.turn_seconds,
            )
        )
        return game_pb2.CreateGameResponse(game_id=game_id, version=state.version)
