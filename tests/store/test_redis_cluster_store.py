"""The Redis store on a Redis Cluster: games on every node, one live reader per node whatever
the number of watchers, appends that wait for a replica, and a master killed mid-game."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.eventstore import RedisEventStore, StoreUnavailable
from tests.support.waiting import close_subscriptions, take, wait_until


def _games_on_every_node(cluster: RedisClusterServers, per_node: int) -> list[str]:
    """Game ids whose streams spread over every master, ``per_node`` on each, all in
    different slots."""
    found: dict[int, list[str]] = {}
    slots: set[int] = set()
    number = 0
    masters = 3
    while sum(len(games) for games in found.values()) < masters * per_node:
        game = f"game-{number}"
        number += 1
        key = f"verrater:{{{game}}}:events"
        slot = key_slot(key.encode())
        port = cluster.master_of(key).port
        if slot in slots or len(found.setdefault(port, [])) >= per_node:
            continue
        slots.add(slot)
        found[port].append(game)
    return [game for games in found.values() for game in games]


@pytest.fixture
async def cluster_store(fresh_cluster_url: str) -> AsyncIterator[RedisEventStore]:
    store = RedisEventStore.from_url(fresh_cluster_url, client_name="cluster-test")
    yield store
    await store.close()


async def test_games_in_every_slot_range_append_and_read_on_the_cluster(
    cluster_store: RedisEventStore, redis_cluster: RedisClusterServers
) -> None:
    games = [f"many-{n}" for n in range(48)]
    for game in games:
        await cluster_store.append(game, 0, [b"setup", b"deal"])
        await cluster_store.append(game, 2, [b"bid"])
    for game in games:
        assert [e.payload for e in await cluster_store.read(game)] == [b"setup", b"deal", b"bid"]
    served_by = {redis_cluster.master_of(cluster_store.stream_key(game)).port for game in games}
    assert len(served_by) == 3


async def test_two_watchers_of_games_on_different_nodes_both_get_their_events(
    cluster_store: RedisEventStore, redis_cluster: RedisClusterServers
) -> None:
    first, second = _games_on_every_node(redis_cluster, 1)[:2]
    watching = [cluster_store.subscribe(first), cluster_store.subscribe(second)]
    pending = [asyncio.ensure_future(take(watch, 2)) for watch in watching]
    try:
        await wait_until(lambda: cluster_store.live_subscriptions == 2, "both watchers are live")
        await cluster_store.append(first, 0, [b"a1"])
        await cluster_store.append(second, 0, [b"b1"])
        await cluster_store.append(second, 1, [b"b2"])
        await cluster_store.append(first, 1, [b"a2"])
        got = await asyncio.gather(*pending)
        assert [[e.payload for e in events] for events in got] == [[b"a1", b"a2"], [b"b1", b"b2"]]
    finally:
        await close_subscriptions(watching, pending)


async def test_many_watchers_on_many_slots_hold_one_reader_connection_per_node(
    cluster_store: RedisEventStore, redis_cluster: RedisClusterServers
) -> None:
    games = _games_on_every_node(redis_cluster, 3)
    watching = [cluster_store.subscribe(game) for game in games for _ in range(3)]
    pending = [asyncio.ensure_future(take(watch, 1)) for watch in watching]
    try:
        await wait_until(lambda: cluster_store.live_subscriptions == 27, "27 watchers are live")
        for game in games:
            await cluster_store.append(game, 0, [game.encode()])
        got = await asyncio.gather(*pending)
        assert [events[0].game_id for events in got] == [g for g in games for _ in range(3)]
        readers = 0
        for node in redis_cluster.nodes:
            with redis.Redis(port=node.port) as client:
                names = [c["name"] for c in client.client_list()]
            assert names.count("cluster-test-hub") <= 1
            readers += names.count("cluster-test-hub")
        assert readers == 3
    finally:
        await close_subscriptions(watching, pending)


async def test_an_append_waits_until_a_replica_holds_it(
    fresh_cluster_url: str, redis_cluster: RedisClusterServers
) -> None:
    store = RedisEventStore.from_url(fresh_cluster_url, wait_replicas=1, wait_timeout_ms=5000)
    try:
        await store.append("durable", 0, [b"setup", b"deal"])
        master = redis_cluster.master_of(store.stream_key("durable"))
        with redis.Redis(port=master.port) as client:
            replica_port = int(client.info("replication")["slave0"]["port"])
        with redis.Redis(port=replica_port) as replica:
            replica.execute_command("READONLY")
            assert replica.xlen(store.stream_key("durable")) == 2
    finally:
        await store.close()


async def test_an_append_no_replica_confirms_is_unavailable_saying_what_that_means(
    fresh_cluster_url: str,
) -> None:
    # Three replicas asked of masters that have one: WAIT runs out.
    store = RedisEventStore.from_url(fresh_cluster_url, wait_replicas=3, wait_timeout_ms=50)
    try:
        with pytest.raises(StoreUnavailable, match="may or may not survive a failover"):
            await store.append("unconfirmed", 0, [b"setup"])
        # The master has it; a reader learns so, and the game goes on from there.
        assert [e.payload for e in await store.read("unconfirmed")] == [b"setup"]
    finally:
        await store.close()


@pytest.fixture
def failover_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own: this test kills one of its masters."""
    with RedisClusterServers(tmp_path / "cluster") as cluster:
        yield cluster


async def test_a_killed_master_loses_no_acknowledged_event_and_the_game_goes_on(
    failover_cluster: RedisClusterServers,
) -> None:
    store = RedisEventStore.from_url(failover_cluster.url, wait_replicas=1, wait_timeout_ms=5000)
    watcher_store = RedisEventStore.from_url(failover_cluster.url)
    game = "failover"
    watching = watcher_store.subscribe(game)
    seen = asyncio.ensure_future(take(watching, 41, timeout=120))
    try:
        for version in range(20):
            await store.append(game, version, [f"move {version + 1}".encode()])
        master = failover_cluster.master_of(store.stream_key(game))
        master.kill()
        # Its replica takes over; the killed node, started again (as Kubernetes would), joins
        # as the new master's replica, and appends can be confirmed on a replica again.
        await asyncio.to_thread(failover_cluster.wait_until_ok)
        assert failover_cluster.master_of(store.stream_key(game)) is not master
        master.start()

        version = 20
        async with asyncio.timeout(120):
            while version < 41:
                try:
                    await store.append(game, version, [f"move {version + 1}".encode()])
                except StoreUnavailable:
                    # The cluster is promoting the replica. An append that failed may still
                    # have landed (unacknowledged): go on from what the store holds.
                    await asyncio.sleep(0.1)
                    with contextlib.suppress(StoreUnavailable):
                        version = await store.version(game)
                    continue
                version += 1
        events = await store.read(game)
        assert [e.payload for e in events] == [f"move {n}".encode() for n in range(1, 42)]
        assert [e.version for e in await seen] == list(range(1, 42))
    finally:
        await close_subscriptions([watching], [seen])
        await store.close()
        await watcher_store.close()
