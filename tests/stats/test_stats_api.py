"""The Stats gRPC service over a real channel, behind the same auth interceptor as the others."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import events_pb2, stats_pb2, stats_pb2_grpc
from services.eventstore import InMemoryEventStore
from services.rpc import ServiceInterceptor, TokenIssuer, bearer
from services.stats import InMemoryStats
from services.stats.server import StatsServicer

from .games import decisive_game, humans, played_game, store_game, with_bot

SECRET = "stats-test-secret-at-least-32-bytes-long"
TABLE = humans("Anna", "Bert", "Cleo", "Dirk")


@dataclass
class Service:
    stub: stats_pb2_grpc.StatsServiceAsyncStub
    stats: InMemoryStats
    store: InMemoryEventStore
    issuer: TokenIssuer

    def token(self, player_id: str) -> tuple[tuple[str, str]]:
        return bearer(self.issuer.mint(player_id))

    async def finish(self, game_id: str, seed: int, **options: object) -> None:
        await store_game(self.store, game_id, played_game(seed=seed, **options))  # type: ignore[arg-type]
        await self.stats.record_finished(game_id)


@pytest.fixture
async def service() -> AsyncIterator[Service]:
    issuer = TokenIssuer(SECRET)
    store = InMemoryEventStore()
    stats = InMemoryStats(store)
    server = aio.server(interceptors=[ServiceInterceptor(issuer)])
    stats_pb2_grpc.add_StatsServiceServicer_to_server(StatsServicer(stats), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield Service(stats_pb2_grpc.StatsServiceStub(channel), stats, store, issuer)  # type: ignore[arg-type]
    finally:
        await channel.close()
        await server.stop(None)


async def test_a_player_pages_through_their_finished_games_newest_first(service: Service) -> None:
    for index in range(5):
        await service.finish(f"g{index}", index, seats=TABLE)
    anna = service.token(TABLE[0].player_id)
    first = await service.stub.ListFinishedGames(
        stats_pb2.ListFinishedGamesRequest(limit=2), metadata=anna
    )
    assert [game.game_id for game in first.games] == ["g4", "g3"]
    assert first.next_before == first.games[-1].end_order
    second = await service.stub.ListFinishedGames(
        stats_pb2.ListFinishedGamesRequest(limit=2, before=first.next_before), metadata=anna
    )
    assert [game.game_id for game in second.games] == ["g2", "g1"]
    last = await service.stub.ListFinishedGames(
        stats_pb2.ListFinishedGamesRequest(limit=2, before=second.next_before), metadata=anna
    )
    assert [game.game_id for game in last.games] == ["g0"]
    assert last.next_before == 0
    game = last.games[0]
    assert [seat.name for seat in game.seats] == ["Anna", "Bert", "Cleo", "Dirk"]
    assert game.ranked and game.unranked_reason == stats_pb2.UNRANKED_REASON_NONE
    assert set(game.winners) == {seat.seat for seat in game.seats if seat.rank == 1}
    assert all(seat.HasField("ordinal_after") for seat in game.seats)


async def test_anyone_with_a_token_sees_another_players_games_rating_and_the_board(
    service: Service,
) -> None:
    winner_seat, records = decisive_game(TABLE)
    await store_game(service.store, "ranked", records)
    await service.stats.record_finished("ranked")
    await service.finish("casual", 1, seats=with_bot(TABLE, 3), ranked=False)
    watcher = service.token("p-watcher")
    winner = TABLE[winner_seat].player_id
    games = await service.stub.ListFinishedGames(
        stats_pb2.ListFinishedGamesRequest(player_id=TABLE[0].player_id), metadata=watcher
    )
    assert [game.game_id for game in games.games] == ["casual", "ranked"]
    casual = games.games[0]
    assert not casual.ranked and casual.unranked_reason == stats_pb2.UNRANKED_REASON_BOTS
    assert casual.seats[3].bot_level == events_pb2.BOT_LEVEL_NORMAL
    assert not casual.seats[0].HasField("ordinal_after")
    rating = (
        await service.stub.GetRating(stats_pb2.GetRatingRequest(player_id=winner), metadata=watcher)
    ).rating
    assert (rating.position, rating.rated_games, rating.name) == (
        1,
        1,
        TABLE[winner_seat].name,
    )
    assert rating.ordinal == pytest.approx(rating.mu - 3 * rating.sigma)
    board = await service.stub.Leaderboard(stats_pb2.LeaderboardRequest(), metadata=watcher)
    assert [entry.position for entry in board.ratings] == [1, 2, 3, 4]
    assert board.ratings[0].player_id == winner
    newcomer = (await service.stub.GetRating(stats_pb2.GetRatingRequest(), metadata=watcher)).rating
    assert (newcomer.player_id, newcomer.position, newcomer.rated_games) == ("p-watcher", 0, 0)
    assert newcomer.ordinal == pytest.approx(0.0)


async def test_calls_without_a_token_or_with_bad_arguments_are_refused(service: Service) -> None:
    with pytest.raises(aio.AioRpcError) as refused:
        await service.stub.Leaderboard(stats_pb2.LeaderboardRequest())
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    token = service.token("p-anna")
    stub = service.stub
    for call in (
        stub.ListFinishedGames(stats_pb2.ListFinishedGamesRequest(limit=-1), metadata=token),
        stub.ListFinishedGames(stats_pb2.ListFinishedGamesRequest(before=-1), metadata=token),
        stub.GetRating(stats_pb2.GetRatingRequest(player_id="no spaces"), metadata=token),
        stub.Leaderboard(stats_pb2.LeaderboardRequest(limit=-5), metadata=token),
    ):
        with pytest.raises(aio.AioRpcError) as invalid:
            await call
        assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT, invalid.value.details()
