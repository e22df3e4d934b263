"""Resharding while a game plays: its slot is moved to another master key by key, as
`redis-cli --cluster reshard` does, and appends and reads go on throughout: the old owner
serves the stream until it has moved, the new one (after ``ASKING``) while the slot is half
migrated, and the new owner once the slot map says so."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis
from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.eventstore import RedisEventStore


@pytest.fixture
async def cluster_store(fresh_cluster_url: str) -> AsyncIterator[RedisEventStore]:
    store = RedisEventStore.from_url(fresh_cluster_url, client_name="resharding-test")
    yield store
    await store.close()


def _masters(cluster: RedisClusterServers) -> list[redis.Redis]:
    masters = []
    for node in cluster.nodes:
        if not node.running:
            continue
        client = redis.Redis(port=node.port)
        if client.info("replication")["role"] == "master":
            masters.append(client)
        else:
            client.close()
    return masters


def _port(client: redis.Redis) -> int:
    return int(client.connection_pool.connection_kwargs["port"])


async def test_a_game_plays_on_while_its_slot_moves_to_another_master(
    cluster_store: RedisEventStore, redis_cluster: RedisClusterServers
) -> None:
    game = "resharded-1"
    key = cluster_store.stream_key(game)
    slot = key_slot(key.encode())
    await cluster_store.append(game, 0, [b"setup"])
    source_port = redis_cluster.master_of(key).port
    masters = _masters(redis_cluster)
    try:
        source = next(m for m in masters if _port(m) == source_port)
        target = next(m for m in masters if m is not source)
        target_port = _port(target)
        source_id = source.execute_command("CLUSTER", "MYID").decode()
        target_id = target.execute_command("CLUSTER", "MYID").decode()
        target.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        source.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        moved = False
        try:
            # The slot is migrating, the stream is still on its old owner: it serves it.
            await cluster_store.append(game, 1, [b"deal"])
            source.execute_command("MIGRATE", "127.0.0.1", target_port, "", 0, 5000, "KEYS", key)
            moved = True
            # The stream has moved, the slot not yet: the old owner answers ASK, the store
            # asks the new one, and neither the append nor the read fails.
            assert source.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 0
            await cluster_store.append(game, 2, [b"bid"])
            assert [e.payload for e in await cluster_store.read(game)] == [
                b"setup",
                b"deal",
                b"bid",
            ]
        finally:
            for master in masters:
                if moved:
                    master.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
                elif master in (source, target):
                    master.execute_command("CLUSTER", "SETSLOT", slot, "STABLE")
        # The slot is the new owner's: the old one answers MOVED, the store reads the map again.
        await cluster_store.append(game, 3, [b"pass"])
        assert redis_cluster.master_of(key).port == target_port
        assert [e.version for e in await cluster_store.read(game)] == [1, 2, 3, 4]
        assert target.xlen(key) == 4
    finally:
        for master in masters:
            master.close()
