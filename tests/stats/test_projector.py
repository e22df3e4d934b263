"""The stats projector on a real Redis: consumer group, crash recovery, concurrency, trimming."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.codec import encode_record
from services.eventstore import RedisEventStore, StoredEvent
from services.stats import RedisStats, StatsProjector, announce_unrecorded
from services.stats.feed import INBOX_KEY
from services.stats.projector import GROUP

from .games import decisive_game, humans, played_game, store_game

TABLE = humans("Anna", "Bert", "Cleo", "Dirk")


class StallingStore(RedisEventStore):
    """Reads stall until released: a projector stopped there has read but not acknowledged."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self.reading = asyncio.Event()
        self.release = asyncio.Event()

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        self.reading.set()
        await self.release.wait()
        return await super().read(game_id, after_version, limit)


@pytest.fixture
async def stats(fresh_redis_url: str) -> AsyncIterator[RedisStats]:
    projection = RedisStats.from_url(fresh_redis_url)
    yield projection
    await projection.close()


@pytest.fixture
async def store(fresh_redis_url: str) -> AsyncIterator[RedisEventStore]:
    async with RedisEventStore.from_url(fresh_redis_url) as events:
        yield events


async def pending_by_consumer(stats: RedisStats) -> dict[str, int]:
    summary = await stats.redis.xpending(INBOX_KEY, GROUP)
    return {entry["name"]: int(entry["pending"]) for entry in summary["consumers"]}


async def idle_for_at_least(stats: RedisStats, idle_ms: int) -> None:
    """Until Redis reports every pending inbox entry idle for `idle_ms` (XAUTOCLAIM compares
    against the same server clock, so this is the signal that a claim may take them)."""
    async with asyncio.timeout(60):
        while True:
            entries = await stats.redis.xpending_range(INBOX_KEY, GROUP, "-", "+", 100)
            if entries and all(entry["time_since_delivered"] >= idle_ms for entry in entries):
                return
            await asyncio.sleep(0.02)


async def drain(*projectors: StatsProjector) -> None:
    while sum([await projector.step() for projector in projectors]):
        pass


async def kill_between_read_and_ack(
    fresh_redis_url: str, stats: RedisStats, store: RedisEventStore, consumer: str
) -> None:
    """Announce g1 and stop a projector named `consumer` while it reads g1's log."""
    await store_game(store, "g1", decisive_game(TABLE)[1])
    stalling = StallingStore(fresh_redis_url)
    doomed = StatsProjector(stats, stalling, consumer=consumer, block_ms=20)
    await stats.record_finished("g1")
    doomed.start()
    await asyncio.wait_for(stalling.reading.wait(), 10)
    await doomed.stop()
    await stalling.close()
    assert await pending_by_consumer(stats) == {consumer: 1}
    assert not await stats.is_applied("g1")


async def test_a_projector_restarted_under_its_name_finishes_what_it_had_read(
    fresh_redis_url: str, stats: RedisStats, store: RedisEventStore
) -> None:
    await kill_between_read_and_ack(fresh_redis_url, stats, store, "pod-a")
    restarted = StatsProjector(stats, store, consumer="pod-a", block_ms=20)
    assert await restarted.step() == 1
    assert await stats.is_applied("g1")
    assert await pending_by_consumer(stats) == {}
    assert (await stats.rating(TABLE[0].player_id)).rating.rated_games == 1


async def test_another_projector_claims_what_a_dead_one_left_pending(
    fresh_redis_url: str, stats: RedisStats, store: RedisEventStore
) -> None:
    await kill_between_read_and_ack(fresh_redis_url, stats, store, "pod-a")
    # Not idle long enough (a minute, whatever the machine's speed): pod-a might still be at work.
    patient = StatsProjector(stats, store, consumer="pod-b", block_ms=20, claim_idle_ms=60_000)
    assert await patient.step() == 0
    other = StatsProjector(stats, store, consumer="pod-b", block_ms=20, claim_idle_ms=200)
    await idle_for_at_least(stats, 200)  # Redis's own clock says the entry is idle enough now
    assert await other.step() == 1
    assert await stats.is_applied("g1")
    assert await pending_by_consumer(stats) == {}
    [game] = await stats.finished_games(TABLE[0].player_id)
    assert game.end_order == 1
    assert (await stats.rating(TABLE[0].player_id)).rating.rated_games == 1


async def test_projectors_sharing_the_inbox_lose_no_rating_update(
    stats: RedisStats, store: RedisEventStore
) -> None:
    games = 8
    for index in range(games):
        await store_game(store, f"g{index}", played_game(TABLE, seed=index))
        await stats.record_finished(f"g{index}")
    projectors = [
        StatsProjector(stats, store, consumer=f"pod-{n}", block_ms=20, batch=1) for n in range(3)
    ]
    await asyncio.gather(*(drain(projector) for projector in projectors))
    for seat in TABLE:
        assert (await stats.rating(seat.player_id)).rating.rated_games == games
    orders = [game.end_order for game in await stats.finished_games(TABLE[0].player_id)]
    assert orders == list(range(games, 0, -1))
    assert await pending_by_consumer(stats) == {}


async def test_an_announced_game_that_is_not_over_is_dropped_without_effect(
    stats: RedisStats, store: RedisEventStore
) -> None:
    records = played_game(TABLE)
    await store.append("running", 0, [encode_record(record) for record in records[:-5]])
    await stats.record_finished("running")
    await stats.record_finished("unknown")
    projector = StatsProjector(stats, store, consumer="pod", block_ms=20)
    await drain(projector)
    assert not await stats.is_applied("running")
    assert await stats.finished_games(TABLE[0].player_id) == []
    assert await pending_by_consumer(stats) == {}


async def test_acknowledged_entries_are_trimmed_from_the_inbox(
    stats: RedisStats, store: RedisEventStore
) -> None:
    for index in range(3):
        await store_game(store, f"g{index}", played_game(TABLE, seed=index))
        await stats.record_finished(f"g{index}")
    projector = StatsProjector(stats, store, consumer="pod", block_ms=20)
    await drain(projector)
    await projector.trim()
    assert await stats.redis.xlen(INBOX_KEY) <= 1
    await stats.record_finished("g0")  # a late repeat still reaches the group
    await drain(projector)
    assert [g.end_order for g in await stats.finished_games(TABLE[0].player_id)] == [3, 2, 1]


async def test_the_projector_creates_its_group_and_resumes_after_the_inbox_is_lost(
    stats: RedisStats, store: RedisEventStore
) -> None:
    projector = StatsProjector(stats, store, consumer="pod", block_ms=20)
    task = asyncio.get_running_loop().create_task(projector.run())
    try:
        await store_game(store, "g1", played_game(TABLE, seed=1))
        await stats.record_finished("g1")
        async with asyncio.timeout(60):
            while not await stats.is_applied("g1"):
                await asyncio.sleep(0.02)
        await stats.redis.delete(INBOX_KEY)
        await store_game(store, "g2", played_game(TABLE, seed=2))
        await stats.record_finished("g2")
        async with asyncio.timeout(60):
            while not await stats.is_applied("g2"):
                await asyncio.sleep(0.02)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_finished_games_nobody_announced_are_found_by_a_sweep(
    stats: RedisStats, store: RedisEventStore
) -> None:
    await store_game(store, "announced", played_game(TABLE, seed=1))
    await store_game(store, "forgotten", played_game(TABLE, seed=2))
    records = played_game(TABLE, seed=3)
    await store.append("running", 0, [encode_record(record) for record in records[:-5]])
    await stats.record_finished("announced")
    projector = StatsProjector(stats, store, consumer="pod", block_ms=20)
    await drain(projector)
    assert await announce_unrecorded(store, stats) == 1
    await drain(projector)
    assert await stats.is_applied("forgotten")
    assert not await stats.is_applied("running")
    assert await announce_unrecorded(store, stats) == 0
