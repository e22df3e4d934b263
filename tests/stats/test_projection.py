"""The finished-games projection, in memory and on a real Redis (through the projector)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.engine import ExplicitSetup
from services.eventstore import redis_client
from services.stats import UnrankedReason
from services.stats.ratings import DEFAULT_MU, DEFAULT_SIGMA

from .games import Harness, decisive_game, harness, humans, played_game, with_bot

TABLE = humans("Anna", "Bert", "Cleo", "Dirk")


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def h(request: pytest.FixtureRequest) -> AsyncIterator[Harness]:
    url = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        async with redis_client(url) as client:
            await client.flushdb()
    elif request.param == "redis-cluster":
        url = request.getfixturevalue("fresh_cluster_url")
    async with harness("memory" if url is None else "redis", url) as running:
        yield running


async def test_a_ranked_game_of_four_people_rates_them_and_the_winner_climbs(h: Harness) -> None:
    winner_seat, records = decisive_game(TABLE)
    await h.finish("g1", records)
    winner = TABLE[winner_seat].player_id
    standing = await h.stats.rating(winner)
    assert standing.rating.rated_games == 1
    assert standing.rating.mu > DEFAULT_MU
    assert standing.rating.ordinal > 0
    assert standing.position == 1
    others = [await h.stats.rating(seat.player_id) for seat in TABLE if seat.player_id != winner]
    assert all(other.rating.ordinal < standing.rating.ordinal for other in others)
    assert all(other.rating.rated_games == 1 for other in others)
    [game] = await h.stats.finished_games(winner)
    assert game.result.ranked and game.end_order == 1
    seat = game.result.seats[winner_seat]
    assert (seat.rank, seat.name, seat.ordinal_before) == (1, TABLE[winner_seat].name, 0.0)
    assert seat.ordinal_after == pytest.approx(standing.rating.ordinal)


async def test_ranks_follow_final_vp_and_tied_seats_share_a_rank(h: Harness) -> None:
    records = played_game(TABLE, seed=3)
    await h.finish("g1", records)
    [game] = await h.stats.finished_games(TABLE[0].player_id)
    vp = [seat.final_vp for seat in game.result.seats]
    for seat in game.result.seats:
        assert seat.rank == 1 + sum(other > seat.final_vp for other in vp)
    assert {seat.seat for seat in game.result.seats if seat.rank == 1} == set(game.result.winners)


@pytest.mark.parametrize(
    ("reason", "options"),
    [
        (UnrankedReason.BOTS, {"seats": with_bot(TABLE, 2), "ranked": False}),
        (UnrankedReason.BOTS, {"seats": with_bot(TABLE, 2), "ranked": True}),
        (UnrankedReason.SANDBOX, {"seats": TABLE, "setup": ExplicitSetup(start_player=1)}),
        (UnrankedReason.SANDBOX, {"seats": (), "players": 4}),
        (UnrankedReason.TABLE, {"seats": TABLE, "ranked": False}),
        (UnrankedReason.TURN_TIMER, {"seats": TABLE, "timed_out_seat": 1}),
    ],
)
async def test_games_with_bots_sandbox_setups_or_timed_out_turns_are_listed_but_unranked(
    h: Harness, reason: UnrankedReason, options: dict[str, object]
) -> None:
    await h.finish("g1", played_game(**options))  # type: ignore[arg-type]
    listed = [game for seat in TABLE for game in await h.stats.finished_games(seat.player_id)]
    seated = [seat for seat in options["seats"] if not seat.bot_level]  # type: ignore[attr-defined]
    assert len(listed) == len(seated)
    for game in listed:
        assert not game.result.ranked
        assert game.result.unranked_reason is reason
        assert all(seat.ordinal_after is None for seat in game.result.seats)
    for seat in TABLE:
        standing = await h.stats.rating(seat.player_id)
        assert standing.rating.rated_games == 0
        assert (standing.rating.mu, standing.rating.sigma) == (DEFAULT_MU, DEFAULT_SIGMA)
        assert standing.position == 0
    assert await h.stats.leaderboard() == []


async def test_the_seat_a_bot_took_over_is_marked(h: Harness) -> None:
    await h.finish("g1", played_game(TABLE, timed_out_seat=2))
    [game] = await h.stats.finished_games(TABLE[0].player_id)
    assert [seat.replaced_by_bot for seat in game.result.seats] == [False, False, True, False]


async def test_a_game_announced_twice_is_applied_once(h: Harness) -> None:
    await h.finish("g1", decisive_game(TABLE)[1])
    before = [await h.stats.rating(seat.player_id) for seat in TABLE]
    await h.announce("g1")
    await h.announce("g1")
    after = [await h.stats.rating(seat.player_id) for seat in TABLE]
    assert after == before
    assert [game.end_order for game in await h.stats.finished_games(TABLE[0].player_id)] == [1]
    if h.kind == "redis":
        assert await h.pending() == 0


async def test_each_players_list_is_newest_first_and_pages_with_before(h: Harness) -> None:
    three = humans("Anna", "Bert", "Eve")
    await h.finish("first", played_game(TABLE, seed=1))
    await h.finish("second", played_game(three, seed=2))
    await h.finish("third", played_game(TABLE, seed=3))
    anna = TABLE[0].player_id
    games = await h.stats.finished_games(anna)
    assert [game.result.game_id for game in games] == ["third", "second", "first"]
    assert [game.end_order for game in games] == [3, 2, 1]
    page = await h.stats.finished_games(anna, limit=2)
    assert [game.result.game_id for game in page] == ["third", "second"]
    rest = await h.stats.finished_games(anna, limit=2, before=page[-1].end_order)
    assert [game.result.game_id for game in rest] == ["first"]
    eve = three[2].player_id
    assert [game.result.game_id for game in await h.stats.finished_games(eve)] == ["second"]
    assert await h.stats.finished_games("p-nobody") == []


async def test_the_leaderboard_orders_rated_players_by_ordinal(h: Harness) -> None:
    for index in range(3):
        await h.finish(f"g{index}", decisive_game(TABLE, first_seed=10 * index)[1])
    board = await h.stats.leaderboard()
    assert [standing.position for standing in board] == [1, 2, 3, 4]
    ordinals = [standing.rating.ordinal for standing in board]
    assert ordinals == sorted(ordinals, reverse=True)
    assert all(standing.rating.rated_games == 3 for standing in board)
    assert {standing.rating.name for standing in board} == {"Anna", "Bert", "Cleo", "Dirk"}
    for standing in board:
        assert await h.stats.rating(standing.rating.player_id) == standing
    assert await h.stats.leaderboard(limit=2) == board[:2]
