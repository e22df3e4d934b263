"""The game service's announcements feed finished games to the stats, through their handler
(services/handlers.py) as bootstrap wires it."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Callable

import pytest

from services.engine import CreateGame, Phase, Ruleset, legal_commands, to_act
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.game.announcements import Publish
from services.game.service import GameApplication
from services.handlers import Followers, message_bus
from services.notifications import GameNotifier, InMemoryNotifications, Publisher
from services.stats import FinishedGameFeed, InMemoryStats, RedisStats, StatsProjector

from .games import humans

TABLE = humans("Anna", "Bert", "Cleo", "Dirk")


@pytest.fixture
async def announced_to() -> AsyncIterator[Callable[[FinishedGameFeed], Publish]]:
    """The game's announcements through the handlers to a feed (the players' notifications
    kept in memory), as bootstrap wires them."""
    publisher = Publisher(InMemoryNotifications())

    def bus(feed: FinishedGameFeed) -> Publish:
        return message_bus(Followers(GameNotifier(publisher), feed)).handle

    yield bus
    await publisher.close()


async def play(app: GameApplication, game_id: str, seed: int) -> None:
    rng = random.Random(seed)
    state = await app.create_game(
        game_id, CreateGame(Ruleset.standard(4), rng.randbytes(32), seats=TABLE, ranked=True)
    )
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        result = await app.submit(
            game_id, seat, command, expected_version=state.version, command_id=uuid.uuid4().hex
        )
        state = result.state


async def test_embedded_games_reach_the_in_memory_stats_as_they_end(
    announced_to: Callable[[FinishedGameFeed], Publish],
) -> None:
    store = InMemoryEventStore()
    stats = InMemoryStats(store)
    feed = FinishedGameFeed(stats.record_finished)
    app = GameApplication(store, publish=announced_to(feed))
    await play(app, "g1", 1)
    await feed.drain()
    [game] = await stats.finished_games(TABLE[0].player_id)
    assert game.result.game_id == "g1" and game.result.ranked
    # A replica that loads the finished game cold announces it again: still one result.
    await GameApplication(store, publish=announced_to(feed)).state("g1")
    other = FinishedGameFeed(stats.record_finished)
    await GameApplication(store, publish=announced_to(other)).state("g1")
    await feed.drain()
    assert len(await stats.finished_games(TABLE[0].player_id)) == 1
    assert (await stats.rating(TABLE[0].player_id)).rating.rated_games == 1
    await feed.close()


async def test_games_on_redis_reach_the_inbox_and_the_projector_applies_them(
    fresh_redis_url: str, announced_to: Callable[[FinishedGameFeed], Publish]
) -> None:
    async with RedisEventStore.from_url(fresh_redis_url) as store:
        stats = RedisStats.from_url(fresh_redis_url)
        feed = FinishedGameFeed(stats.record_finished)
        app = GameApplication(store, publish=announced_to(feed))
        projector = StatsProjector(stats, store, consumer="pod", block_ms=20)
        projector.start()
        try:
            await play(app, "g1", 1)
            # g1's announcement is a task of its own: written before g2 ends, so that the
            # inbox (and the projector, which applies it in order) has g1 first. Two games
            # ending at the same moment may be listed either way.
            await feed.drain()
            await play(app, "g2", 2)
            await feed.drain()
            async with asyncio.timeout(60):
                while len(await stats.finished_games(TABLE[0].player_id)) < 2:
                    await asyncio.sleep(0.02)
            games = await stats.finished_games(TABLE[0].player_id)
            assert [game.result.game_id for game in games] == ["g2", "g1"]
            assert (await stats.rating(TABLE[1].player_id)).rating.rated_games == 2
        finally:
            await projector.stop()
            await feed.close()
            await stats.close()
