"""The one Redis live reader on a real Redis Cluster (services/devtools): keys of every master
and of many slots read with one connection per node, and a master killed and restarted without
an entry missed."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisError, ResponseError

from services.devtools.redis_cluster import RedisClusterServers
from services.redislive import LiveReader
from tests.redislive.following import Follower

NAME = "live-cluster-test"


def _keys_on_every_master(cluster: RedisClusterServers, per_master: int) -> list[str]:
    """Keys hash-tagged as chat tables are, ``per_master`` on each master, in distinct slots."""
    found: dict[int, list[str]] = {}
    slots: set[int] = set()
    number = 0
    while sum(len(keys) for keys in found.values()) < 3 * per_master:
        key = f"verrater:{{table-{number}}}:chat"
        number += 1
        slot = key_slot(key.encode())
        port = cluster.master_of(key).port
        if slot in slots or len(found.setdefault(port, [])) >= per_master:
            continue
        slots.add(slot)
        found[port].append(key)
    return [key for keys in found.values() for key in keys]


def _plain_url(url: str) -> str:
    return url.replace("redis+cluster://", "redis://")


@pytest.fixture
async def cluster_client(fresh_cluster_url: str) -> AsyncIterator[RedisCluster]:
    client = RedisCluster.from_url(_plain_url(fresh_cluster_url))
    yield client
    await client.aclose()


async def test_keys_of_every_master_and_many_slots_read_on_one_connection_per_node(
    fresh_cluster_url: str, cluster_client: RedisCluster, redis_cluster: RedisClusterServers
) -> None:
    keys = _keys_on_every_master(redis_cluster, 4)
    reader = LiveReader.on_client(fresh_cluster_url, cluster_client, client_name=NAME)
    try:
        cursors = {key: await cluster_client.xadd(key, {"v": b"old"}) for key in keys}
        followers = [
            Follower(cluster_client, key, await reader.subscribe(key, cursors[key]), cursors[key])
            for key in keys
            for _ in range(2)
        ]
        for round_ in range(3):
            for key in keys:
                await cluster_client.xadd(key, {"v": b"%d" % round_})
        for follower in followers:
            assert await follower.take(3) == [b"0", b"1", b"2"]
        readers = 0
        for node in redis_cluster.nodes:
            with redis.Redis(port=node.port) as admin:
                names = [c["name"] for c in admin.client_list()]
            assert names.count(f"{NAME}-hub") <= 1
            readers += names.count(f"{NAME}-hub")
        assert readers == 3
    finally:
        await reader.close()


@pytest.fixture
def failover_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own: this test kills one of its masters."""
    with RedisClusterServers(tmp_path / "cluster") as cluster:
        yield cluster


async def test_a_master_killed_and_restarted_costs_no_entry(
    failover_cluster: RedisClusterServers,
) -> None:
    client = RedisCluster.from_url(_plain_url(failover_cluster.url))
    reader = LiveReader.on_client(failover_cluster.url, client, client_name=NAME)
    keys = _keys_on_every_master(failover_cluster, 1)
    try:
        followers = [
            Follower(client, key, await reader.subscribe(key, b"0-0"), b"0-0") for key in keys
        ]
        for key in keys:
            await _append_replicated(client, key, b"before", 1)
        for follower in followers:
            assert await follower.take(1) == [b"before"]

        master = failover_cluster.master_of(keys[0])
        master.kill()
        await asyncio.to_thread(failover_cluster.wait_until_ok)
        assert failover_cluster.master_of(keys[0]) is not master
        master.start()  # it joins again, as the new master's replica

        for number, value in ((2, b"after 1"), (3, b"after 2")):
            for key in keys:
                await _append_replicated(client, key, value, number)
        for follower in followers:
            assert await follower.take(3, timeout=120) == [b"before", b"after 1", b"after 2"]
    finally:
        await reader.close()
        await client.aclose()


async def _append_replicated(client: RedisCluster, key: str, value: bytes, number: int) -> None:
    """``XADD`` of entry ``<number>-0`` then ``WAIT`` for a replica (retried while the cluster
    fails over: a retry finds the entry there if it was written), so that a master's death
    cannot take the entry with it."""
    async with asyncio.timeout(120):
        while True:
            try:
                await client.initialize()  # (once: the slot map, before the first command)
                node = client.get_node_from_key(key)
                try:
                    await client.xadd(key, {"v": value}, id=f"{number}-0")
                except ResponseError as error:
                    if "equal or smaller" not in str(error):
                        raise
                await client.execute_command("WAIT", 1, 5000, target_nodes=node)
                return
            except (RedisError, OSError):
                with contextlib.suppress(Exception):
                    await client.nodes_manager.initialize()
                await asyncio.sleep(0.1)
