"""ListMyGames waits for Redis twice when no game of the player's has ended since they last
looked: their table ids and kept results in one pipeline, then the tables' records and their
games' summaries at once (issue 40: in a busy lobby every wait costs an event-loop turn, 15-20
ms, so the number of waits one after the other is what the player feels). Round trips are
counted on a logical clock (tests/support/round_trips.py), never timed. On a standalone Redis
and on a Redis Cluster (the player's keys share a slot; tables and summaries spread over all).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from services.engine import SeatAssignment
from services.eventstore import redis_client
from services.lobby import model
from services.lobby.model import GameProgress, Player, Table
from services.lobby.progress import GameSummary
from services.lobby.redis_progress import RedisProgressBoard
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.service import LobbyApplication, MyGame
from services.rpc import Identity, Role, TokenIssuer
from tests.lobby.harness import SECRET, waiting_table
from tests.support.round_trips import RoundTrips, counted

HOST = Player("host01", "Hanna")
ME = Identity(HOST.player_id, Role.PLAYER, None, None, expires_at=2_000_000_000)
RUNNING = GameSummary(version=40, round=3, turn=(0,))
OVER = GameSummary(version=300, round=9, final_vp=(15, 12, 11, 9))
#: What the game service says of a game the board has no summary of.
ASKED = GameProgress(round=2, version=20)


class GameService:
    """The game service, asked only for games the board does not know (each ask one round
    trip, noted beside Redis's)."""

    def __init__(self, trips: RoundTrips) -> None:
        self._trips = trips
        self.asked: list[str] = []

    async def create_game(
        self,
        game_id: str,
        *,
        players: int,
        builder_may_move: bool,
        setup: dict[str, object] | None,
        seats: tuple[SeatAssignment, ...],
        ranked: bool,
        turn_seconds: int,
    ) -> None:
        raise AssertionError("ListMyGames creates no game")

    async def progress(self, game_id: str, seat: int | None) -> GameProgress | None:
        self.asked.append(game_id)
        return await self._trips.timed(_answer(ASKED))


async def _answer(progress: GameProgress) -> GameProgress:
    return progress


@dataclass
class Lobby:
    app: LobbyApplication
    store: RedisLobbyStore
    board: RedisProgressBoard
    games: GameService
    trips: RoundTrips

    async def sit_at_started_game(self, created_ms: int, summary: GameSummary | None) -> Table:
        """A table the host started with bots, its game's summary on the board (if any)."""
        table = await self.store.create_table(waiting_table(HOST, now_ms=created_ms))
        await self.store.update_table(
            table.table_id,
            lambda t: model.begin_start(model.fill_all_with_bots(t), HOST.player_id),
        )
        started = await self.store.update_table(table.table_id, model.finish_start)
        if summary is not None:
            self.board.post(started.game_id, summary)
            await self.board.drain()
        return started

    async def look(self) -> list[MyGame]:
        """ListMyGames, its round trips counted from nought."""
        self.trips.clear()
        return await self.app.my_games(ME)


def _ids(games: list[MyGame]) -> list[str]:
    return [game.table.table_id for game in games]


@pytest.fixture(params=["redis", "redis-cluster"])
async def lobby(request: pytest.FixtureRequest) -> AsyncIterator[Lobby]:
    fixture = "fresh_redis_url" if request.param == "redis" else "fresh_cluster_url"
    url = str(request.getfixturevalue(fixture))
    trips = RoundTrips()
    store = RedisLobbyStore(counted(redis_client(url), trips), url=url)
    board = RedisProgressBoard(counted(redis_client(url), trips))
    games = GameService(trips)
    app = LobbyApplication(store, TokenIssuer(SECRET), games, progress=board)
    yield Lobby(app, store, board, games, trips)
    await board.close()
    await store.close()


async def test_with_no_game_ended_since_the_last_look_the_list_waits_for_redis_twice(
    lobby: Lobby,
) -> None:
    over = [await lobby.sit_at_started_game(500 + i, OVER) for i in range(3)]
    running = [await lobby.sit_at_started_game(1_000 + i, RUNNING) for i in range(6)]
    waiting = [
        await lobby.store.create_table(waiting_table(HOST, now_ms=2_000 + i)) for i in (0, 1)
    ]
    first = await lobby.look()  # sees the three games end: moves them to the results

    again = await lobby.look()
    assert lobby.trips.sequential() <= 2
    # Running games, open tables, finished games: each group newest first.
    expected = [t.table_id for group in (running, waiting, over) for t in reversed(group)]
    assert _ids(again) == _ids(first) == expected
    assert again == first
    assert lobby.games.asked == []


async def test_a_game_seen_ending_costs_one_more_round_trip_and_moves_to_the_results(
    lobby: Lobby,
) -> None:
    earlier = await lobby.sit_at_started_game(500, OVER)
    await lobby.look()  # loads the script that moves a game to the results (once per server)
    ended = await lobby.sit_at_started_game(1_000, RUNNING)
    [running, _] = await lobby.look()
    assert running.progress is not None and not running.progress.finished
    lobby.board.post(ended.game_id, OVER)
    await lobby.board.drain()

    [seen_ending, _] = await lobby.look()
    assert lobby.trips.sequential() <= 3
    assert seen_ending.progress == GameProgress(
        round=9, version=300, finished=True, final_vp=15, rank=1
    )
    assert await lobby.store.my_tables(HOST.player_id, 10) == []
    results = await lobby.store.finished_games(HOST.player_id)
    assert [table_id for table_id, _ in results] == [ended.table_id, earlier.table_id]
    assert _ids(await lobby.look()) == [ended.table_id, earlier.table_id]
    assert lobby.trips.sequential() <= 2


async def test_a_game_without_a_summary_is_asked_of_the_game_service_after_the_two_reads(
    lobby: Lobby,
) -> None:
    known = await lobby.sit_at_started_game(1_000, RUNNING)
    unknown = await lobby.sit_at_started_game(2_000, None)
    [asked, read] = await lobby.look()
    assert (asked.table.table_id, read.table.table_id) == (unknown.table_id, known.table_id)
    assert asked.progress == ASKED
    assert lobby.games.asked == [unknown.game_id]
    assert lobby.trips.sequential() <= 3


async def test_the_count_takes_calls_sent_together_as_one_wait() -> None:
    trips = RoundTrips()

    async def call() -> None:
        await trips.timed(asyncio.sleep(0))

    await call()
    await asyncio.gather(call(), call(), call())
    await call()
    assert trips.sequential() == 3
