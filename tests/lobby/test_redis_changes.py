"""A table's change reaches the watchers of every lobby replica through the change stream and
the live reader (services/redislive), on a standalone Redis and on a Redis Cluster; the stream
stays small; a reader that lost its connection wakes every watcher to re-read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis

from services.eventstore import redis_client
from services.lobby import model
from services.lobby import redis_keys as keys
from services.lobby.model import Player
from services.lobby.redis_store import RedisLobbyStore
from tests.lobby.harness import waiting_table
from tests.support.waiting import wait_until_true

HOST = Player("host01", "Hanna")
GUEST = Player("guest02", "Gero")


@pytest.fixture(params=["redis", "redis-cluster"])
def url(request: pytest.FixtureRequest) -> str:
    fixture = "fresh_cluster_url" if request.param == "redis-cluster" else "fresh_redis_url"
    found: str = request.getfixturevalue(fixture)
    return found


@pytest.fixture
async def replicas(url: str) -> AsyncIterator[list[RedisLobbyStore]]:
    stores = [
        RedisLobbyStore(redis_client(url), url=url, client_name=f"lobby-{n}") for n in range(2)
    ]
    yield stores
    for store in stores:
        await store.close()


async def test_a_change_on_one_replica_wakes_the_watchers_of_another(
    replicas: list[RedisLobbyStore],
) -> None:
    writer, watcher = replicas
    table = await writer.create_table(waiting_table(HOST))
    async with watcher.subscription(table.table_id) as ticks:
        await writer.update_table(table.table_id, lambda t: model.join(t, GUEST, ""))
        await asyncio.wait_for(ticks.get(), timeout=30)
        seen = await watcher.table(table.table_id)
        assert seen is not None and GUEST.player_id in seen.members
    assert await writer.redis.xlen(keys.CHANGES) >= 2  # one entry per write


async def test_the_change_stream_stays_capped(replicas: list[RedisLobbyStore]) -> None:
    writer, _ = replicas
    table = await writer.create_table(waiting_table(HOST))
    async with writer.redis.pipeline(transaction=False) as pipe:
        for _ in range(keys.CHANGES_KEPT * 2):
            pipe.xadd(keys.CHANGES, {"t": table.table_id})
        await pipe.execute()
    await writer.update_table(table.table_id, lambda t: model.join(t, GUEST, ""))
    assert await writer.redis.xlen(keys.CHANGES) < keys.CHANGES_KEPT * 1.2


async def test_a_reader_that_lost_its_connection_wakes_every_watcher(
    url: str, replicas: list[RedisLobbyStore], fresh_redis_url: str
) -> None:
    writer, watcher = replicas
    table = await writer.create_table(waiting_table(HOST))
    async with watcher.subscription(table.table_id) as ticks:

        async def kill_the_reader() -> bool:
            """Kill the watching replica's reader connection once it is there."""
            for port in _ports(url, fresh_redis_url):
                with redis.Redis(port=port) as admin:
                    for client in admin.client_list():
                        if client["name"] == "lobby-1-hub":
                            admin.client_kill_filter(_id=client["id"])
                            return True
            return False

        await wait_until_true(kill_the_reader, "the reader's connection is killed", timeout=30)
        await asyncio.wait_for(ticks.get(), timeout=30)  # no change made: the reconnect's tick


def _ports(url: str, fresh_redis_url: str) -> list[int]:
    if url == fresh_redis_url:
        return [redis.Redis.from_url(url).connection_pool.connection_kwargs["port"]]
    port = int(url.rsplit(":", 1)[1].split("/", maxsplit=1)[0])
    with redis.Redis(port=port) as admin:
        return [int(node.split(":")[1].split("@")[0]) for node in admin.cluster("nodes")]
