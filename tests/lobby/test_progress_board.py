"""The lobby's progress board (services/lobby/progress.py): where each table's game stands,
posted by the game replicas' handlers and read by ListMyGames instead of loading the games.

The board's contract in memory, on Redis and on a Redis Cluster; then ListMyGames answered
from it by a lobby whose game service is gone (Redis and cluster: the board is what the two
processes share)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from grpc import aio
from redis.crc import key_slot

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.bootstrap import start_backend
from services.config import Config
from services.engine import SeatAssignment, initial_state, to_act
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.game.service import GameApplication
from services.game.values import NewGame
from services.lobby import redis_keys as keys
from services.lobby.progress import GameSummary, InMemoryProgressBoard, ProgressBoard, summarize
from services.lobby.redis_progress import RedisProgressBoard
from services.lobby.redis_store import RedisLobbyStore
from services.rpc import bearer
from tests.lobby.harness import SECRET
from tests.lobby.test_sessions import open_table_with_bots


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def board(request: pytest.FixtureRequest) -> AsyncIterator[ProgressBoard]:
    made: ProgressBoard
    if request.param == "memory":
        made = InMemoryProgressBoard()
    else:
        fixture = "fresh_redis_url" if request.param == "redis" else "fresh_cluster_url"
        made = RedisProgressBoard.from_url(request.getfixturevalue(fixture))
    yield made
    await made.close()


async def test_a_posted_summary_is_read_back_and_a_game_without_one_is_left_out(
    board: ProgressBoard,
) -> None:
    running = GameSummary(version=7, round=1, turn=(2,), deadline_ms=1_900_000_000_000)
    over = GameSummary(version=90, round=5, final_vp=(12, 15, 15))
    board.post("gT1", running)
    board.post("gT2", over)
    await board.drain()
    assert await board.summaries(["gT1", "gT2", "gNone"]) == {"gT1": running, "gT2": over}
    assert await board.summaries([]) == {}


async def test_an_older_version_never_replaces_a_newer_one(board: ProgressBoard) -> None:
    newer = GameSummary(version=12, round=2, turn=(0,))
    board.post("gT1", newer)
    board.post("gT1", GameSummary(version=11, round=2, turn=(1,)))  # waiting: ignored
    await board.drain()
    board.post("gT1", GameSummary(version=10, round=1, turn=(2,)))  # kept: refused by the store
    await board.drain()
    assert await board.summaries(["gT1"]) == {"gT1": newer}
    newest = GameSummary(version=13, round=2, turn=(1,))
    board.post("gT1", newest)
    await board.drain()
    assert await board.summaries(["gT1"]) == {"gT1": newest}


def test_each_seat_sees_its_turn_and_at_the_end_its_vp_and_rank() -> None:
    running = GameSummary(version=7, round=1, turn=(2,), deadline_ms=5_000)
    assert running.progress(2).your_turn and running.progress(2).deadline_ms == 5_000
    assert not running.progress(0).your_turn and not running.progress(None).your_turn
    over = GameSummary(version=90, round=5, final_vp=(12, 15, 15))
    assert [(over.progress(s).final_vp, over.progress(s).rank) for s in range(3)] == [
        (12, 3),
        (15, 1),
        (15, 1),
    ]
    assert over.progress(None).finished and over.progress(None).rank == 0


async def test_a_summary_says_what_the_state_awaits() -> None:
    app = GameApplication(InMemoryEventStore())
    seats = tuple(SeatAssignment(f"p{s}", f"P{s}") for s in range(3))
    _, state = await app.start_game(NewGame(players=3, game_id="gT1", seats=seats))
    summary = summarize(state, deadline_ms=1_234)
    assert (summary.version, summary.round) == (state.version, state.round)
    assert summary.turn == to_act(state) and summary.deadline_ms == 1_234
    assert not summary.finished
    assert summarize(initial_state(), None).turn == ()
    await app.close()


def test_a_summary_sits_in_its_games_slot() -> None:
    """On a cluster, beside the game's log (``verrater:{<game id>}:events``)."""
    assert key_slot(keys.progress_key("gT1").encode()) == key_slot(b"verrater:{gT1}:events")


@pytest.mark.parametrize("cluster", [False, True], ids=["redis", "redis-cluster"])
async def test_my_games_answer_from_the_board_while_the_game_service_is_down(
    request: pytest.FixtureRequest, cluster: bool
) -> None:
    url = request.getfixturevalue("fresh_cluster_url" if cluster else "fresh_redis_url")
    config = Config(
        bind="127.0.0.1:0", token_secret=SECRET, redis_url=url, bots="off", command_rate=0
    )
    game = await start_backend(
        config, frozenset({"game"}), event_store=RedisEventStore.from_url(url)
    )
    lobby = await start_backend(
        replace(config, game_address=f"127.0.0.1:{game.port}"),
        frozenset({"lobby"}),
        lobby_store=RedisLobbyStore.from_url(url),
    )
    game_running = True
    try:
        async with aio.insecure_channel(f"127.0.0.1:{lobby.port}") as channel:
            stub = lobby_pb2_grpc.LobbyServiceStub(channel)
            session = await stub.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Ada"))
            me = bearer(session.session.token)
            table = await open_table_with_bots(stub, me, bots=2)  # type: ignore[arg-type]
            started = await stub.StartGame(
                lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=me
            )
            game_id = started.table.game_id
            seat = await stub.GetSeatToken(
                lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=me
            )
            async with aio.insecure_channel(f"127.0.0.1:{game.port}") as game_channel:
                view = (
                    await game_pb2_grpc.GameServiceStub(game_channel).GetView(  # type: ignore[arg-type]
                        game_pb2.GetViewRequest(game_id=game_id), metadata=bearer(seat.token)
                    )
                ).view
            assert game.progress is not None
            await game.progress.drain()
            await game.stop(None)
            game_running = False
            (mine,) = (await stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
            assert (mine.game_id, mine.status) == (game_id, lobby_pb2.TABLE_STATUS_STARTED)
            assert (mine.version, mine.round) == (view.version, view.round)
            assert mine.your_turn == (seat.seat in view.turn.seats)
            assert not mine.HasField("deadline") and not mine.finished
    finally:
        await lobby.stop(None)
        if game_running:
            await game.stop(None)
