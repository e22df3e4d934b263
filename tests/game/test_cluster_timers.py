"""Turn timers where a shard's failure stays on its shard: on a Redis Cluster each game's
wake-up lives in its own slot, a paused master holds up no other master's timers, and a look at
a game whose store does not answer holds up no other look and comes again a second later."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.engine import initial_state
from services.eventstore import StoreUnavailable
from services.game.timers import (
    FULL_SWEEP_S,
    RETRY_MS,
    InMemoryTurnTimers,
    RedisTurnTimers,
    TimerSweeper,
)
from services.game.timers.redis_timers import _SET, BUCKETS_PER_CALL, CALL_TIMEOUT_S, SLOTS
from services.game.values import Resting
from tests.support.waiting import wait_until


def _games_on(cluster: RedisClusterServers, masters: int) -> list[str]:
    """One game id per master, each on a different master."""
    found: dict[int, str] = {}
    number = 0
    while len(found) < masters:
        game = f"game-{number}"
        number += 1
        found.setdefault(cluster.master_of(f"verrater:{{{game}}}:events").port, game)
    return list(found.values())


@pytest.fixture
async def cluster_timers(fresh_cluster_url: str) -> AsyncIterator[RedisTurnTimers]:
    timers = RedisTurnTimers.from_url(fresh_cluster_url)
    yield timers
    await timers.close()


async def test_each_games_wake_up_lives_in_the_slot_of_its_events(
    cluster_timers: RedisTurnTimers, redis_cluster: RedisClusterServers
) -> None:
    games = [f"slot-{n}" for n in range(50)]
    for number, game in enumerate(games):
        await cluster_timers.set(game, 1, 1_000 + number)
        wake_key, version_key = cluster_timers.keys_of(game)
        events_slot = key_slot(f"verrater:{{{game}}}:events".encode())
        assert key_slot(wake_key.encode()) == key_slot(version_key.encode()) == events_slot
        with redis.Redis(port=redis_cluster.master_of(wake_key).port) as client:
            assert client.zscore(wake_key, game) == 1_000 + number
    due = await cluster_timers.claim_due(10_000, 500, 100)
    assert sorted(due.games) == sorted(games)
    assert due.next_wake_ms == 10_500  # every one claimed: held for the lease
    assert await cluster_timers.next_wake_ms() == 10_500


async def test_wake_ups_of_the_single_bucket_of_earlier_releases_move_to_their_games(
    cluster_timers: RedisTurnTimers, redis_cluster: RedisClusterServers
) -> None:
    old_wake, old_versions = "verrater:{timers}:wake", "verrater:{timers}:version"
    with redis.RedisCluster(host="127.0.0.1", port=redis_cluster.nodes[0].port) as client:
        client.zadd(old_wake, {"old-1": 2_000, "old-2": 9_000})
        client.hset(old_versions, mapping={"old-1": 5, "old-2": 7})
        await cluster_timers.set("old-2", 8, 3_000)  # set since by a newer version: it stands
        assert (await cluster_timers.claim_due(2_500, 500, 10)).games == ["old-1"]
        assert not client.exists(old_wake, old_versions)
    assert await cluster_timers.next_wake_ms() == 3_000


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of this test's own: it pauses a master."""
    with RedisClusterServers(tmp_path / "cluster", node_timeout_ms=60_000) as cluster:
        yield cluster


async def test_a_paused_master_holds_up_no_other_masters_timers(
    own_cluster: RedisClusterServers,
) -> None:
    timers = RedisTurnTimers.from_url(own_cluster.url)
    try:
        frozen, going = _games_on(own_cluster, 2)
        await timers.set(frozen, 1, 1_000)
        await timers.set(going, 1, 1_000)
        paused = own_cluster.master_of(f"verrater:{{{frozen}}}:events")
        paused.pause()
        try:
            began = time.monotonic()
            due = await timers.claim_due(2_000, 500, 10)
            # Handed out without waiting for the paused master's call to time out; the sweeper
            # is told to come back in a moment (not at once: the paused master's bucket is due).
            assert time.monotonic() - began < CALL_TIMEOUT_S
            assert due.games == [going]
            assert due.next_wake_ms is not None and 2_000 < due.next_wake_ms <= 3_000
            again = await timers.claim_due(2_100, 500, 10)  # still paused: not asked again
            assert again.games == []
            assert again.next_wake_ms is not None and 2_100 < again.next_wake_ms <= 3_100
        finally:
            paused.resume()
        found: list[str] = []
        async with asyncio.timeout(30):
            while not found:
                found = (await timers.claim_due(2_200, 500, 10)).games
                await asyncio.sleep(0.05)
        assert found == [frozen]
    finally:
        await timers.close()


class _Stores:
    """What the sweeper reads: one game's store hangs until released, another's is away."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.looked: list[str] = []

    async def state_of(self, game_id: str) -> Resting:
        if game_id == "hanging":
            await self.release.wait()
        if game_id == "away":
            raise StoreUnavailable("its master is failing over")
        self.looked.append(game_id)
        return Resting(initial_state(), 0, None)


async def test_a_look_that_waits_on_its_store_holds_up_no_other_look() -> None:
    timers, stores = InMemoryTurnTimers(), _Stores()
    sweeper = TimerSweeper(timers, stores.state_of, lambda news: None, clock=lambda: 2.0)
    await timers.set("hanging", 1, 1_000)
    sweeper.start()
    try:
        await wait_until(lambda: "hanging" in sweeper._looking, "the hanging look began")
        await timers.set("fine", 1, 1_000)
        await wait_until(lambda: stores.looked == ["fine"], "the other game was looked at")
        stores.release.set()
        await wait_until(lambda: stores.looked == ["fine", "hanging"], "the hanging look ended")
    finally:
        await sweeper.stop()


async def test_a_game_whose_store_is_away_is_looked_at_again_a_second_later() -> None:
    timers, stores = InMemoryTurnTimers(), _Stores()
    sweeper = TimerSweeper(timers, stores.state_of, lambda news: None, clock=lambda: 2.0)
    await timers.set("away", 1, 1_000)
    assert await sweeper.sweep() == 1
    assert await timers.next_wake_ms() == 2_000 + RETRY_MS  # not the lease: a second


class _Monotonic:
    """A sweeper's own clock for when it names every bucket again."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _claims_run(cluster: RedisClusterServers) -> int:
    """Claim scripts the cluster's masters have run so far."""
    total = 0
    for node in cluster.nodes:
        with redis.Redis(port=node.port) as client:
            stats = client.info("commandstats")
            total += sum(
                stats.get(f"cmdstat_{name}", {}).get("calls", 0) for name in ("evalsha", "eval")
            )
    return total


async def test_an_idle_sweeper_names_every_bucket_once_a_round_a_slice_at_a_time(
    fresh_cluster_url: str, redis_cluster: RedisClusterServers
) -> None:
    """After the first claim (every bucket at once), claims name the buckets due and a slice
    of the others: each bucket once in every FULL_SWEEP_S, never all in one claim (which held
    the masters and the replica's loop every FULL_SWEEP_S)."""
    clock = _Monotonic()
    timers = RedisTurnTimers.from_url(fresh_cluster_url)
    timers._monotonic = clock  # the test's clock for the rolling look
    named: list[list[int]] = []
    real_claim_on = timers._claim_on

    async def recorded(node: Any, slots: list[int], *args: Any) -> Any:
        named[-1].extend(slots)
        return await real_claim_on(node, slots, *args)

    try:
        await timers.set("later", 1, 50_000)
        assert (await timers.claim_due(1_000, 500, 10)).games == []  # the first: every bucket
        timers._claim_on = recorded  # type: ignore[method-assign]
        before = _claims_run(redis_cluster)
        steps = 20
        for step in range(steps):  # a round in steps of FULL_SWEEP_S / 20, nothing due
            clock.now += FULL_SWEEP_S / steps
            named.append([])
            assert await timers.claim_due(2_000 + step, 500, 10) == ([], 50_000)
        assert sorted(slot for claim in named for slot in claim) == list(range(SLOTS))
        assert max(len(claim) for claim in named) <= SLOTS // steps + 1
        # A slice lies on one or two masters: a script each (BUCKETS_PER_CALL is larger).
        assert SLOTS // steps < BUCKETS_PER_CALL
        assert _claims_run(redis_cluster) - before <= 2 * steps
        named.append([])
        assert (await timers.claim_due(50_000, 500, 10)).games == ["later"]  # due: claimed
    finally:
        await timers.close()


async def test_a_wake_up_another_replica_set_is_found_by_the_next_sweep_of_every_bucket(
    fresh_cluster_url: str,
) -> None:
    mine, theirs = _Monotonic(), _Monotonic()
    replica, other = (
        RedisTurnTimers.from_url(fresh_cluster_url),
        RedisTurnTimers.from_url(fresh_cluster_url),
    )
    replica._monotonic, other._monotonic = mine, theirs
    try:
        assert (await replica.claim_due(1_000, 500, 10)).games == []  # knows every bucket empty
        await other.set("set-elsewhere", 1, 2_000)
        await replica.set("set-here", 1, 2_000)
        mine.now += FULL_SWEEP_S / SLOTS / 2  # too soon for the rolling look to name a slot
        # Its own wake-up fires on time; the other replica's waits for the rolling look to
        # reach its bucket (the other replica, alive, claims it on time itself).
        assert (await replica.claim_due(2_000, 500, 10)).games == ["set-here"]
        mine.now += FULL_SWEEP_S
        assert (await replica.claim_due(2_100, 500, 10)).games == ["set-elsewhere"]
    finally:
        await replica.close()
        await other.close()


async def test_a_claim_keeps_a_wake_up_set_while_it_was_under_way(
    fresh_cluster_url: str,
) -> None:
    """A claim may read a bucket before this replica's set of a wake-up there reaches the
    master: the bucket's remembered wake-up is the set's, not the claim's 'empty'."""
    clock = _Monotonic()
    timers = RedisTurnTimers.from_url(fresh_cluster_url)
    timers._monotonic = clock
    write, real_script = asyncio.Event(), timers._script

    async def slow_writes(script: str, keys: Sequence[str], args: Sequence[Any], **at: Any) -> Any:
        if script == _SET:
            await write.wait()
        return await real_script(script, keys, args, **at)

    timers._script = slow_writes  # type: ignore[method-assign]
    try:
        setting = asyncio.ensure_future(timers.set("racing", 1, 3_000))
        await asyncio.sleep(0)  # the set is under way, its write held back
        assert (await timers.claim_due(1_000, 500, 10)).games == []  # the bucket read empty
        write.set()
        await setting  # the write lands after the claim's read
        clock.now += 1  # not a sweep of every bucket: only what is remembered is named
        assert (await timers.claim_due(3_000, 500, 10)).games == ["racing"]
    finally:
        await timers.close()
