"""The lobby's Redis keys spread over a cluster's slots, and its indexes (open tables, who hosts
what, each player's tables) follow every table write even when a writer dies in between.

The table's write and its index entries are separate steps (they live on different slots): a
writer that dies after the first leaves a lease that the next write of the table, or the
lobby's sweep, finishes. Tested on a standalone Redis and on a 3+3 Redis Cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import redis

from services.errors import ServiceError
from services.eventstore import redis_client
from services.lobby import model
from services.lobby import redis_keys as keys
from services.lobby.model import GameProgress, Player, Table
from services.lobby.redis_store import RedisLobbyStore
from tests.lobby.harness import waiting_table

HOST = Player("host01", "Hanna")
GUEST = Player("guest02", "Gero")
THIRD = Player("third03", "Tilo")


class WriterDied(Exception):
    """Stands for the end of a lobby process between a table's write and its index entries."""


class DiesBeforeIndexing(RedisLobbyStore):
    """A lobby replica that dies after writing a table and before writing its index entries:
    the real scripts run, only the second step never happens."""

    async def _apply_ops(self, *args: object, **kwargs: object) -> None:
        raise WriterDied


@pytest.fixture(params=["redis", "redis-cluster"])
def url(request: pytest.FixtureRequest) -> str:
    fixture = "fresh_redis_url" if request.param == "redis" else "fresh_cluster_url"
    return str(request.getfixturevalue(fixture))


@pytest.fixture
async def store(url: str) -> AsyncIterator[RedisLobbyStore]:
    lobby = RedisLobbyStore.from_url(url)
    yield lobby
    await lobby.close()


async def _listed(store: RedisLobbyStore, table_id: str) -> bool:
    return table_id in {t.table_id for t in await store.open_tables(None, 100)}


async def _repair_when_lease_expires(store: RedisLobbyStore) -> int:
    """Run the lobby's sweep until it finishes something (the dead writer's lease is short)."""
    for _ in range(500):
        finished = await store.repair_indexes()
        if finished:
            return finished
        await asyncio.sleep(0.01)
    raise AssertionError("the sweep never finished the dead writer's index entries")


async def test_indexes_follow_table_writes(store: RedisLobbyStore) -> None:
    table = await store.create_table(waiting_table(HOST, opened_from="10.0.0.7"))
    assert await _listed(store, table.table_id)
    assert await store.hosted_tables(HOST.player_id) == 1
    assert await store.peer_tables("10.0.0.7") == 1
    assert await store.my_tables(HOST.player_id, 10) == [table.table_id]

    joined = await store.update_table(table.table_id, lambda t: model.join(t, GUEST, ""))
    assert await store.my_tables(GUEST.player_id, 10) == [table.table_id]
    await store.update_table(table.table_id, lambda t: model.leave(t, GUEST.player_id))
    assert await store.my_tables(GUEST.player_id, 10) == []
    assert joined.version < (await store.table(table.table_id) or joined).version

    await store.update_table(
        table.table_id, lambda t: model.begin_start(model.fill_all_with_bots(t), HOST.player_id)
    )
    started = await store.update_table(table.table_id, model.finish_start)
    assert not started.waiting
    assert not await _listed(store, table.table_id)
    assert await store.hosted_tables(HOST.player_id) == 0
    assert await store.peer_tables("10.0.0.7") == 0
    # A started table stays in its players' lists until they see its game end.
    assert await store.my_tables(HOST.player_id, 10) == [table.table_id]
    result = GameProgress(round=9, version=300, finished=True)
    await store.record_finished(HOST.player_id, started, result)
    assert await store.my_tables(HOST.player_id, 10) == []
    assert [t for t, _ in await store.finished_games(HOST.player_id)] == [table.table_id]
    assert await store.redis.zcard(keys.UNINDEXED) == 0


async def test_a_dead_writers_index_entries_are_finished_by_the_sweep(url: str) -> None:
    dying = DiesBeforeIndexing(redis_client(url), url=url, index_lease_ms=50)
    survivor = RedisLobbyStore(redis_client(url), url=url, index_lease_ms=50)
    try:
        with pytest.raises(WriterDied):
            await dying.create_table(waiting_table(HOST))
        table_id = (await _only_table(survivor)).table_id
        # The table is written, its index entries are not: it is not listed yet.
        assert await survivor.table(table_id) is not None
        assert not await _listed(survivor, table_id)
        assert await survivor.my_tables(HOST.player_id, 10) == []

        assert await _repair_when_lease_expires(survivor) == 1
        assert await _listed(survivor, table_id)
        assert await survivor.hosted_tables(HOST.player_id) == 1
        assert await survivor.my_tables(HOST.player_id, 10) == [table_id]
        assert await survivor.redis.zcard(keys.UNINDEXED) == 0
        assert await survivor.repair_indexes() == 0
    finally:
        await dying.close()
        await survivor.close()


async def test_the_next_write_finishes_a_dead_writers_entries_with_its_own(url: str) -> None:
    dying = DiesBeforeIndexing(redis_client(url), url=url, index_lease_ms=50)
    survivor = RedisLobbyStore(redis_client(url), url=url, index_lease_ms=50)
    try:
        table = await survivor.create_table(waiting_table(HOST))
        # The guest joins, and the replica that wrote it dies before listing it for them.
        with pytest.raises(WriterDied):
            await dying.update_table(table.table_id, lambda t: model.join(t, GUEST, ""))
        assert await survivor.my_tables(GUEST.player_id, 10) == []
        # The next write waits out the dead writer's lease, then does both writers' entries.
        await survivor.update_table(table.table_id, lambda t: model.join(t, THIRD, ""))
        for player in (HOST, GUEST, THIRD):
            assert await survivor.my_tables(player.player_id, 10) == [table.table_id]
        # Only the sweep's marker of the dead write is left; it finds nothing more to do.
        assert await survivor.repair_indexes() == 0
        assert await survivor.redis.zcard(keys.UNINDEXED) == 0
    finally:
        await dying.close()
        await survivor.close()


async def test_concurrent_writers_leave_indexes_equal_to_the_table(url: str) -> None:
    replicas = [RedisLobbyStore(redis_client(url), url=url) for _ in range(3)]
    try:
        table = await replicas[0].create_table(waiting_table(HOST, size=4))
        players = [Player(f"player{n:02d}", f"P{n}") for n in range(12)]

        async def come_and_go(store: RedisLobbyStore, player: Player) -> None:
            for _ in range(3):
                with contextlib.suppress(ServiceError):  # the table is full just now
                    await store.update_table(table.table_id, lambda t: model.join(t, player, ""))
                await store.update_table(
                    table.table_id,
                    lambda t: (
                        model.leave(t, player.player_id) if player.player_id in t.members else t
                    ),
                )

        await asyncio.gather(
            *(come_and_go(replicas[n % 3], player) for n, player in enumerate(players))
        )
        final = await replicas[1].table(table.table_id)
        assert final is not None and final.members == {HOST.player_id}
        for player in players:
            assert await replicas[2].my_tables(player.player_id, 10) == []
        assert await replicas[2].my_tables(HOST.player_id, 10) == [table.table_id]
        assert await _listed(replicas[2], table.table_id)
        assert await replicas[2].redis.zcard(keys.UNINDEXED) == 0
    finally:
        for replica in replicas:
            await replica.close()


async def test_lobby_keys_spread_over_the_clusters_masters(fresh_cluster_url: str) -> None:
    store = RedisLobbyStore.from_url(fresh_cluster_url)
    try:
        hosts = [Player(f"host{n:02d}", f"H{n}") for n in range(24)]
        for host in hosts:
            await store.add_player(host, "digest")
            await store.create_table(waiting_table(host))
        masters_with_keys = 0
        with redis.Redis.from_url(fresh_cluster_url.replace("redis+cluster://", "redis://")) as one:
            nodes = one.execute_command("CLUSTER", "NODES").decode().splitlines()
        for line in nodes:
            fields = line.split()
            if "master" not in fields[2] or "fail" in fields[2]:
                continue
            host, port = fields[1].split("@")[0].rsplit(":", 1)
            with redis.Redis(host=host, port=int(port)) as node:
                if any(True for _ in node.scan_iter(match=f"{keys.PREFIX}:*")):
                    masters_with_keys += 1
                assert not any(True for _ in node.scan_iter(match="verrater:{lobby}:*"))
        assert masters_with_keys == 3
        # Every host's table and name came back, wherever their keys live.
        for host in hosts:
            assert await store.player(host.player_id) == host
            assert await store.hosted_tables(host.player_id) == 1
    finally:
        await store.close()


async def _only_table(store: RedisLobbyStore) -> Table:
    found = [
        _text(key) async for key in store.redis.scan_iter(match=keys.table_key("*"), count=1000)
    ]
    assert len(found) == 1, found
    table = await store.table(found[0].rsplit(":", 1)[1])
    assert table is not None
    return table


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
