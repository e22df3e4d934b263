"""A table write stands once the table holds it: on a Redis Cluster its index entries live on
other masters, and one of those that does not answer must not fail a change that happened (a
retried request would make it twice: a second bot at a table of four). The entries are left to
the sweep, which finishes them once that master answers."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.engine import BotLevel
from services.lobby import redis_keys as keys
from services.lobby.model import Player, add_bot, new_table
from services.lobby.redis_store import RedisLobbyStore


def _id_served_elsewhere(
    cluster: RedisClusterServers, away: int, key_of: Callable[[str], str]
) -> str:
    """An id whose key (`key_of(id)`) is not on the master at port `away`."""
    number = 0
    while True:
        candidate = f"t{number:04d}"
        number += 1
        if cluster.master_of(key_of(candidate)).port != away:
            return candidate


async def test_a_write_stands_when_a_master_of_its_index_entries_does_not_answer(
    tmp_path: Path,
) -> None:
    # A long node timeout: the pause is the whole outage, no failover.
    with RedisClusterServers(tmp_path / "cluster", node_timeout_ms=60_000) as cluster:
        store = RedisLobbyStore.from_url(cluster.url)
        try:
            paused = cluster.master_of(keys.BOT_FILL)  # every table write sets its bot-fill entry
            host = Player(_id_served_elsewhere(cluster, paused.port, keys.player_key), "Host")
            table = new_table(
                host,
                size=4,
                private=False,
                builder_may_move=False,
                auto_start=False,
                setup=None,
                turn_seconds=0,
                now_ms=int(time.time() * 1000),
            )
            table_id = _id_served_elsewhere(cluster, paused.port, keys.table_key)
            assert key_slot(keys.table_key(table_id).encode()) != key_slot(keys.BOT_FILL.encode())
            await store.create_table(dataclasses.replace(table, table_id=table_id))
            paused.pause()
            try:
                async with asyncio.timeout(15):  # it waited for the paused master before
                    changed = await store.update_table(
                        table_id, lambda t: add_bot(t, host.player_id, BotLevel.NORMAL)
                    )
            finally:
                paused.resume()
            assert sum(1 for seat in changed.seats if seat.bot_level) == 1
            stored = await store.table(table_id)
            assert stored is not None and stored.version == changed.version
            # The sweep finishes the entries the write left, once their lease has run out.
            repaired = 0
            async with asyncio.timeout(30):
                while not repaired:
                    await asyncio.sleep(0.1)
                    repaired = await store.repair_indexes()
            assert repaired == 1
            assert [t.table_id for t in await store.open_tables(4, 10)] == [table_id]
        finally:
            await store.close()
