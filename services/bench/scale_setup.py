"""Setting up the scale benchmark's games through the lobby, as players would.

Every game is real: a player registers (RegisterGuest), opens a table (CreateTable), and the
other players join it (JoinTable) until its last seat starts it (auto_start: the lobby creates
the game in a game replica); one table in `BOT_EVERY` is its host's with three bots
(AddBot, StartGame), whose bots play on the Celery workers until the host must decide. The
players sit in about `games_per_player` games each (ListMyGames is measured on them).

What goes around the limits that protect a real lobby is the operator path of
docs/OPERATING.md ("Setting up many games at once"): the per-player and per-address rates set
to 0 and a long token lifetime, for the stack of this run only. Calls go many at once
(`concurrency` tables in flight, each table's calls in order).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2
from services.rpc import bearer

from .common import patiently

#: One table in this many has its host and three bots (the rest four people).
BOT_EVERY = 20
#: A correspondence game's turn timer (14 days): the idle games' decisions wait that long.
IDLE_TURN_SECONDS = 1_209_600
#: Tries of a setup call while it answers one of RETRYABLE.
ATTEMPTS = 12
#: What a setup call may answer and be tried again: the lobby not reached, or the host's quota
#: of waiting tables while another of their tables is being filled. Setup calls carry no
#: request id (a lobby keeps each id's answer ten minutes: memory and work a setup of this
#: size does not need), so a call that may have been done (DEADLINE_EXCEEDED) is not retried.
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED})

#: How long the setup waits for a table's game before it asks StartGame to finish the start
#: (a lobby whose call to the game service failed leaves the table STARTING, or FULL, until a
#: StartGame finishes the job), and before it gives up on the table (a setup failure).
START_NUDGE_S = 5.0
START_GIVE_UP_S = 60.0

Metadata = tuple[tuple[str, str]]


class StartStalled(Exception):
    """A table's game did not start within START_GIVE_UP_S."""


@dataclass(frozen=True, slots=True)
class SetUpGame:
    """A game the setup started: its table, game id, and the player (index) in each seat
    (None for a bot)."""

    table_id: str
    game_id: str
    seats: tuple[int | None, ...]

    @property
    def with_bots(self) -> bool:
        return None in self.seats


@dataclass
class Players:
    """The registered players: their ids and player tokens, by index."""

    ids: list[str] = field(default_factory=list)
    tokens: list[Metadata] = field(default_factory=list)
    by_id: dict[str, int] = field(default_factory=dict)


async def _call(method: Any, request: Any, **options: Any) -> Any:
    return await patiently(
        functools.partial(method, request, timeout=30, **options),
        retryable=RETRYABLE,
        attempts=ATTEMPTS,
        max_delay=5.0,
    )


async def register(lobby: Any, count: int, concurrency: int, offset: int = 0) -> Players:
    """`count` guests, `concurrency` registrations at once."""
    players = Players(ids=[""] * count, tokens=[(("", ""),)] * count)
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int) -> None:
        async with gate:
            request = lobby_pb2.RegisterGuestRequest(display_name=f"Scale {offset + index}")
            session = (await _call(lobby.RegisterGuest, request)).session
        players.ids[index] = session.player_id
        players.tokens[index] = bearer(session.token)
        players.by_id[session.player_id] = index

    await asyncio.gather(*(one(index) for index in range(count)))
    return players


def seating(game: int, players: int) -> tuple[int, ...]:
    """The players (indices) of game `game`'s four seats: four different ones as long as
    there are at least four players, every player in about 4 * games / players games."""
    stride = max(1, players // 4)
    return tuple((game + k * stride) % players for k in range(4))


async def open_table(
    lobby: Any,
    players: Players,
    seated: tuple[int, ...],
    *,
    turn_seconds: int,
    with_bots: bool,
) -> SetUpGame:
    """One table opened, filled and started through the lobby: four people (the last join
    starts it), or its host and three bots."""
    host = players.tokens[seated[0]]
    create = lobby_pb2.CreateTableRequest(
        size=4, auto_start=not with_bots, turn_seconds=turn_seconds
    )
    table = (await _call(lobby.CreateTable, create, metadata=host)).table
    if with_bots:
        for _ in range(3):
            bot = lobby_pb2.AddBotRequest(
                table_id=table.table_id,
                level=events_pb2.BOT_LEVEL_NORMAL,
            )
            await _call(lobby.AddBot, bot, metadata=host)
        start = lobby_pb2.StartGameRequest(table_id=table.table_id)
        table = (await _call(lobby.StartGame, start, metadata=host)).table
    else:
        for index in seated[1:]:
            join = lobby_pb2.JoinTableRequest(table_id=table.table_id)
            table = (await _call(lobby.JoinTable, join, metadata=players.tokens[index])).table
    waiting_since = nudged = time.monotonic()
    while not table.game_id:  # STARTING: the game is being created
        await asyncio.sleep(0.05)
        now = time.monotonic()
        if now - waiting_since > START_GIVE_UP_S:
            status = lobby_pb2.TableStatus.Name(table.status)
            raise StartStalled(f"table {table.table_id} still {status} after {START_GIVE_UP_S} s")
        if now - nudged > START_NUDGE_S:
            nudged = now
            start = lobby_pb2.StartGameRequest(table_id=table.table_id)
            with contextlib.suppress(grpc.aio.AioRpcError):  # then read the table below
                table = (await _call(lobby.StartGame, start, metadata=host)).table
                continue
        get = lobby_pb2.GetTableRequest(table_id=table.table_id)
        table = (await _call(lobby.GetTable, get, metadata=host)).table
    seats = tuple(players.by_id.get(seat.player_id) for seat in table.seats)
    return SetUpGame(table.table_id, table.game_id, seats)


async def open_tables(
    lobby: Any,
    players: Players,
    games: range,
    *,
    turn_seconds: Callable[[int], int],
    concurrency: int,
    with_bots: Callable[[int], bool] = lambda game: game % BOT_EVERY == BOT_EVERY - 1,
    progress: Callable[[int], None] | None = None,
    failed: list[str] | None = None,
) -> list[SetUpGame]:
    """The games `games` (indices), `concurrency` tables in flight; in the order of `games`.
    A table whose call fails (after its retries) is left out, its error added to `failed`."""
    failed = [] if failed is None else failed
    made: list[SetUpGame | None] = [None] * len(games)
    positions = iter(range(len(games)))
    done = 0
    told = time.monotonic()

    async def worker() -> None:
        nonlocal done, told
        for position in positions:  # shared: each position taken by one worker
            game = games[position]
            try:
                made[position] = await open_table(
                    lobby,
                    players,
                    seating(game, len(players.ids)),
                    turn_seconds=turn_seconds(game),
                    with_bots=with_bots(game),
                )
            except grpc.aio.AioRpcError as error:  # counted and said; the others go on
                failed.append(f"{error.code().name}: {error.details()}")
                continue
            except StartStalled as stalled:
                failed.append(str(stalled))
                continue
            done += 1
            if progress is not None and time.monotonic() - told > 10:
                told = time.monotonic()
                progress(done)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(games)))))
    return [game for game in made if game is not None]
