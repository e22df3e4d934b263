"""The scale benchmark's measured phase: people's commands on games among all of them, paced,
with ListMyGames, WatchNotifications and turn timers measured beside them.

- `active` players' slots each take a game nobody touched since it was set up (oldest first:
  the ones least likely to be in a replica's cache), load it (GetView: the cold load), and
  make `DECISIONS_PER_GAME` decisions on it, each by the person whose turn it is (their seat
  token from GetSeatToken, their view, SubmitCommand), `rate` commands a second in all. The
  loads are paced too, at `rate / DECISIONS_PER_GAME` a second (what the slots need in the
  steady state), so the phase does not begin with all `active` loads at once.
- Up to `WATCHED_PLAYERS` players hold a WatchNotifications stream: "your turn" for a game a
  command was just submitted on is timed from the command's start.
- ListMyGames is asked for random players `LIST_RATE` times a second.
- The timer games (four people who never decide, turn timers of a few seconds) are watched:
  each stand-in decision is timed from the deadline it came after.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.api.verrater.v1 import events_pb2, game_pb2, lobby_pb2
from services.rpc import bearer

from .scale_setup import Metadata, Players, SetUpGame

#: Decisions made on a game before its slot moves on to another.
DECISIONS_PER_GAME = 3
#: Players whose notifications are watched (one stream each).
WATCHED_PLAYERS = 200
#: ListMyGames calls a second.
LIST_RATE = 10.0
CALL_TIMEOUT = 30.0


@dataclass
class Figures:
    """What the measured phase saw."""

    submit_ms: list[float] = field(default_factory=list)
    cold_load_ms: list[float] = field(default_factory=list)
    list_ms: list[float] = field(default_factory=list)
    notify_ms: list[float] = field(default_factory=list)
    timer_late_ms: list[float] = field(default_factory=list)
    games_touched: set[str] = field(default_factory=set)
    stale: int = 0
    #: Calls that failed (after the call's own deadline): by method and status.
    failures: dict[str, int] = field(default_factory=dict)

    def failed(self, method: str, error: grpc.aio.AioRpcError) -> None:
        name = f"{method} {error.code().name}"
        self.failures[name] = self.failures.get(name, 0) + 1

    seconds: float = 0.0

    @property
    def commands_per_s(self) -> float:
        """People's commands answered a second over the phase."""
        return len(self.submit_ms) / max(self.seconds, 1e-9)


class _Phase:
    def __init__(
        self,
        lobby: Any,
        game: Any,
        players: Players,
        figures: Figures,
        *,
        rate: float,
        seed: int,
    ) -> None:
        self.lobby, self.game, self.players, self.figures = lobby, game, players, figures
        self.rate = rate
        self.rng = random.Random(seed)
        self.next_at = time.monotonic()
        self.next_load_at = self.next_at
        self.seat_tokens: dict[tuple[str, int], Metadata] = {}
        #: Game id -> when a command on it started, until "your turn" for it is seen.
        self.awaiting: dict[str, float] = {}

    async def pace(self) -> None:
        now = time.monotonic()
        at = max(self.next_at, now)
        self.next_at = at + 1.0 / self.rate
        await asyncio.sleep(at - now)

    async def pace_load(self) -> None:
        now = time.monotonic()
        at = max(self.next_load_at, now)
        self.next_load_at = at + DECISIONS_PER_GAME / self.rate
        await asyncio.sleep(at - now)

    async def seat_token(self, game: SetUpGame, seat: int) -> Metadata:
        key = (game.table_id, seat)
        if key not in self.seat_tokens:
            player = game.seats[seat]
            assert player is not None
            request = lobby_pb2.GetSeatTokenRequest(table_id=game.table_id)
            answer = await self.lobby.GetSeatToken(
                request, metadata=self.players.tokens[player], timeout=CALL_TIMEOUT
            )
            self.seat_tokens[key] = bearer(answer.token)
        return self.seat_tokens[key]

    async def view(self, game: SetUpGame, seat: int) -> Any:
        request = game_pb2.GetViewRequest(game_id=game.game_id)
        token = await self.seat_token(game, seat)
        return (await self.game.GetView(request, metadata=token, timeout=CALL_TIMEOUT)).view

    async def play(self, game: SetUpGame) -> None:
        """A cold load of `game`, then decisions on it by whoever must decide."""
        first = next(seat for seat, player in enumerate(game.seats) if player is not None)
        token = await self.seat_token(game, first)
        await self.pace_load()
        started = time.perf_counter()
        load = game_pb2.GetViewRequest(game_id=game.game_id)
        view = (await self.game.GetView(load, metadata=token, timeout=CALL_TIMEOUT)).view
        self.figures.cold_load_ms.append((time.perf_counter() - started) * 1000)
        self.figures.games_touched.add(game.game_id)
        for _ in range(DECISIONS_PER_GAME):
            people = [seat for seat in view.turn.seats if game.seats[seat] is not None]
            if view.phase == events_pb2.PHASE_GAME_OVER or not people:
                return
            seat = people[0]
            if view.seat != seat:
                view = await self.view(game, seat)
            if not view.legal:
                return
            await self.pace()
            request = game_pb2.SubmitCommandRequest(
                game_id=game.game_id,
                expected_version=view.version,
                command_id=uuid.uuid4().hex,
                command=self.rng.choice(list(view.legal)),
            )
            started = time.perf_counter()
            self.awaiting[game.game_id] = started
            try:
                answer = await self.game.SubmitCommand(
                    request, metadata=await self.seat_token(game, seat), timeout=CALL_TIMEOUT
                )
            except grpc.aio.AioRpcError as error:
                if error.code() is not grpc.StatusCode.ABORTED:  # a stand-in, a bot
                    raise
                self.figures.stale += 1
                view = await self.view(game, seat)
                continue
            self.figures.submit_ms.append((time.perf_counter() - started) * 1000)
            view = answer.view

    async def commands(self, games: Iterator[SetUpGame], until: float) -> None:
        while time.monotonic() < until:
            game = next(games, None)
            if game is None:
                return
            try:
                await self.play(game)
            except grpc.aio.AioRpcError as error:  # counted; the slot goes on with another game
                self.figures.failed("command", error)

    async def list_my_games(self, until: float) -> None:
        count = len(self.players.tokens)
        while time.monotonic() < until:
            token = self.players.tokens[self.rng.randrange(count)]
            started = time.perf_counter()
            try:
                await self.lobby.ListMyGames(
                    lobby_pb2.ListMyGamesRequest(), metadata=token, timeout=CALL_TIMEOUT
                )
                self.figures.list_ms.append((time.perf_counter() - started) * 1000)
            except grpc.aio.AioRpcError as error:  # counted, and its time is not a latency
                self.figures.failed("ListMyGames", error)
            await asyncio.sleep(1.0 / LIST_RATE)

    async def notifications(self, player: int) -> None:
        stream = self.lobby.WatchNotifications(
            lobby_pb2.WatchNotificationsRequest(), metadata=self.players.tokens[player]
        )
        async for answer in stream:
            note = answer.notification
            if note.WhichOneof("kind") != "your_turn":
                continue
            started = self.awaiting.pop(note.game_id, None)
            if started is not None:
                self.figures.notify_ms.append((time.perf_counter() - started) * 1000)

    async def timers(self, game: SetUpGame) -> None:
        """Watch a timer game: every stand-in's decision timed from the deadline it followed."""
        token = await self.seat_token(game, 0)
        request = game_pb2.WatchRequest(game_id=game.game_id, mode=game_pb2.WATCH_MODE_VIEWS)
        deadline: float | None = None
        first = True
        async for answer in self.game.Watch(request, metadata=token):
            now = time.time()
            if not first and deadline is not None and now >= deadline:
                self.figures.timer_late_ms.append((now - deadline) * 1000)
                self.figures.games_touched.add(game.game_id)
            first = False
            views = [update.view for update in answer.updates if update.HasField("view")]
            if answer.HasField("update") and answer.update.HasField("view"):
                views.append(answer.update.view)
            if views:
                turn = views[-1].turn
                at = turn.deadline
                deadline = at.seconds + at.nanos / 1e9 if turn.HasField("deadline") else None


async def measure(
    lobby: Any,
    game: Any,
    players: Players,
    idle: Iterator[SetUpGame],
    timed: list[SetUpGame],
    *,
    active: int,
    rate: float,
    seconds: float,
    seed: int = 1,
) -> Figures:
    """The measured phase (see the module docstring) for `seconds`, on games taken from
    `idle` (shared by successive phases, so that each takes games nobody touched)."""
    figures = Figures()
    phase = _Phase(lobby, game, players, figures, rate=rate, seed=seed)
    started = time.monotonic()
    until = started + seconds
    background = [
        asyncio.create_task(phase.notifications(index))
        for index in range(min(WATCHED_PLAYERS, len(players.ids)))
    ] + [asyncio.create_task(phase.timers(one)) for one in timed]
    try:
        await asyncio.gather(
            phase.list_my_games(until),
            *(phase.commands(idle, until) for _ in itertools.repeat(None, active)),
        )
        figures.seconds = time.monotonic() - started
    finally:
        for task in background:
            task.cancel()
        for task in background:
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await task
    return figures
