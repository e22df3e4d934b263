"""Reading many small keys in one round trip (services/eventstore/redis/wire.py, ``read_many``:
ListMyGames' tables and summaries): on a standalone Redis one command, on a cluster one script a
master; every value in the order asked, None where there is none, and on a cluster the right
value still while a key's slot moves to another master (half migrated, then moved), which the
client's slot map does not know yet."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
import redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.eventstore import AnyRedis, read_many, redis_client
from tests.support.round_trips import RoundTrips, counted


@pytest.fixture
async def cluster(fresh_cluster_url: str) -> AsyncIterator[RedisCluster]:
    client = redis_client(fresh_cluster_url)
    assert isinstance(client, RedisCluster)
    await client.initialize()
    yield client
    await client.aclose()


async def _tables_and_summaries(client: AnyRedis, count: int) -> tuple[list[str], list[str]]:
    """`count` tables' hashes (every seventh missing) and games' summaries (every fifth
    missing), each on a slot of its own: their names."""
    tables = [f"t:{{table-{i}}}" for i in range(count)]
    summaries = [f"s:{{game-{i}}}" for i in range(count)]
    for i, name in enumerate(tables):
        if i % 7:
            await client.hset(name, mapping={"json": f"table {i}", "other": "x"})
    for i, name in enumerate(summaries):
        if i % 5:
            await client.set(name, f"summary {i}")
    return tables, summaries


async def test_on_one_redis_values_come_in_order_in_one_round_trip(fresh_redis_url: str) -> None:
    trips = RoundTrips()
    client = redis_client(fresh_redis_url)
    try:
        tables, summaries = await _tables_and_summaries(client, 30)
        counting = counted(client, trips)
        trips.clear()
        got = await read_many(counting, tables, "json")  # type: ignore[arg-type]
        assert got == [f"table {i}".encode() if i % 7 else None for i in range(30)]
        assert len(trips.calls) == 1
        trips.clear()
        got = await read_many(counting, summaries)  # type: ignore[arg-type]
        assert got == [f"summary {i}".encode() if i % 5 else None for i in range(30)]
        assert len(trips.calls) == 1
        assert await read_many(client, []) == []
    finally:
        await client.aclose()


async def test_values_come_in_the_order_asked_with_none_where_there_is_none(
    cluster: RedisCluster,
) -> None:
    tables, summaries = await _tables_and_summaries(cluster, 60)
    assert len({key_slot(name.encode()) for name in tables}) > 50  # on many slots and masters

    got = await read_many(cluster, tables, "json")
    assert got == [f"table {i}".encode() if i % 7 else None for i in range(60)]
    got = await read_many(cluster, summaries)
    assert got == [f"summary {i}".encode() if i % 5 else None for i in range(60)]
    assert await read_many(cluster, []) == []


async def test_the_masters_are_asked_together_one_call_each(fresh_cluster_url: str) -> None:
    trips = RoundTrips()
    client = redis_client(fresh_cluster_url)
    assert isinstance(client, RedisCluster)
    await client.initialize()
    try:
        names = [f"s:{{game-{i}}}" for i in range(100)]
        await client.set(names[0], "first")
        trips.clear()
        got = await read_many(counted(client, trips), names)  # type: ignore[arg-type]
        assert got[0] == b"first" and got[1:] == [None] * 99
        assert len(trips.calls) == 3  # one a master
        assert trips.sequential() == 1
    finally:
        await client.aclose()


async def test_a_key_whose_slot_moves_is_still_read_and_the_map_is_read_again(
    cluster: RedisCluster, redis_cluster: RedisClusterServers, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="services.eventstore.redis.wire")
    names = [f"s:{{moving-{i}}}" for i in range(20)]
    for i, name in enumerate(names):
        await cluster.set(name, f"v{i}")
    key = names[3]
    slot = key_slot(key.encode())
    masters = []
    for node in redis_cluster.nodes:
        client = redis.Redis(port=node.port)
        if node.running and client.info("replication")["role"] == "master":
            masters.append(client)
        else:
            client.close()
    source = next(
        m
        for m in masters
        if m.connection_pool.connection_kwargs["port"] == redis_cluster.master_of(key).port
    )
    target = next(m for m in masters if m is not source)
    target_port = int(target.connection_pool.connection_kwargs["port"])
    source_id = source.execute_command("CLUSTER", "MYID").decode()
    target_id = target.execute_command("CLUSTER", "MYID").decode()
    expected = [f"v{i}".encode() for i in range(20)]
    try:
        target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        source.execute_command("MIGRATE", "127.0.0.1", target_port, "", 0, 5000, "KEYS", key)
        # Half migrated: the old owner has not the key any more and would answer ASK, so its
        # script fails and its keys are read by the pipeline.
        assert await read_many(cluster, names) == expected
        assert [r for r in caplog.records if "by pipeline" in r.getMessage()]
        caplog.clear()
        for master in masters:
            master.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
        # Moved: the client's map still names the old owner, which refuses the key.
        assert await read_many(cluster, names) == expected
        assert [r for r in caplog.records if "by pipeline" in r.getMessage()]
        # The pipeline followed MOVED and the map was read again: scripts only from now on.
        assert cluster.nodes_manager.slots_cache[slot][0].port == target_port
        caplog.clear()
        assert await read_many(cluster, names) == expected
        assert not [r for r in caplog.records if "by pipeline" in r.getMessage()]
    finally:
        for master in masters:
            master.close()
