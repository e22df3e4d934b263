"""A lobby written in the old ``{lobby}`` layout (every key on one cluster slot) is moved onto
today's keys when a lobby starts: players keep their names and credentials, tables their
seats and indexes, players their lists of tables and results; nothing old is left behind."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from services.devtools.redis_server import RedisServer
from services.eventstore import TRANSIENT_REDIS_ERRORS, redis_client
from services.lobby import model
from services.lobby import redis_keys as keys
from services.lobby.model import Player
from services.lobby.redis_migrate import (
    LAYOUT,
    migrate_legacy_keys,
    migrate_when_reachable,
    new_key,
)
from services.lobby.redis_store import RedisLobbyStore
from tests.lobby.harness import running, waiting_table
from tests.support.waiting import wait_until

OLD = "verrater:{lobby}"
HOST = Player("host01", "Hanna")


async def _write_old_layout(url: str) -> str:
    """What the lobby of the previous release left in Redis: one open table of four hosted by
    HOST from a peer, HOST's player hash, lists and one finished game, and a request claim."""
    table = waiting_table(HOST, opened_from="10.1.2.3", now_ms=5_000)
    tid = table.table_id
    async with redis_client(url) as old:
        table_hash = {"v": "1", "json": json.dumps(table.to_dict())}
        await old.hset(f"{OLD}:table:{tid}", mapping=table_hash)
        await old.zadd(f"{OLD}:open:4", {tid: 5_000})
        await old.sadd(f"{OLD}:hosting:{HOST.player_id}", tid)
        await old.sadd(f"{OLD}:peer-hosting:10.1.2.3", tid)
        await old.zadd(f"{OLD}:mine:{HOST.player_id}", {tid: 5_000})
        player_hash = {"name": "Hanna", "credential": "d1"}
        await old.hset(f"{OLD}:player:{HOST.player_id}", mapping=player_hash)
        await old.zadd(f"{OLD}:finished:{HOST.player_id}", {"oldtable": 1_000})
        result = model.GameProgress(round=7, version=250, finished=True, final_vp=31, rank=1)
        await old.hset(f"{OLD}:results:{HOST.player_id}", "oldtable", json.dumps(result.to_dict()))
        await old.set(f"{OLD}:request:{HOST.player_id}:r1", "{}", px=600_000)
    return tid


async def _check_moved(store: RedisLobbyStore, table_id: str) -> None:
    assert await store.player(HOST.player_id) == HOST
    assert await store.credential_digest(HOST.player_id) == "d1"
    table = await store.table(table_id)
    assert table is not None and table.host == HOST.player_id
    assert [t.table_id for t in await store.open_tables(4, 10)] == [table_id]
    assert await store.hosted_tables(HOST.player_id) == 1
    assert await store.peer_tables("10.1.2.3") == 1
    assert await store.my_tables(HOST.player_id, 10) == [table_id]
    [(finished_id, result)] = await store.finished_games(HOST.player_id)
    assert finished_id == "oldtable" and result.final_vp == 31
    ttl = await store.redis.pttl(keys.request_key(f"{HOST.player_id}:r1"))
    assert 0 < ttl <= 600_000
    assert [k async for k in store.redis.scan_iter(match=f"{OLD}:*")] == []
    # The moved table goes on being written under the new keys.
    joined = await store.update_table(
        table_id, lambda t: model.join(t, Player("guest02", "Gero"), "")
    )
    assert await store.my_tables("guest02", 10) == [joined.table_id]


@pytest.fixture(params=["redis", "redis-cluster"])
def url(request: pytest.FixtureRequest) -> str:
    fixture = "fresh_redis_url" if request.param == "redis" else "fresh_cluster_url"
    return str(request.getfixturevalue(fixture))


async def test_old_keys_move_and_the_lobby_goes_on(url: str) -> None:
    table_id = await _write_old_layout(url)
    store = RedisLobbyStore.from_url(url)
    try:
        assert await migrate_legacy_keys(store.redis) == 9
        await _check_moved(store, table_id)
        assert await migrate_legacy_keys(store.redis) == 0  # the marker: nothing to look for
        assert await store.redis.get(LAYOUT) == b"2"
    finally:
        await store.close()


async def test_a_lobby_that_starts_on_old_keys_moves_them_before_it_serves(url: str) -> None:
    table_id = await _write_old_layout(url)
    async with running("redis", url) as stack:
        store = stack.backend.lobby.store if stack.backend.lobby else None
        assert isinstance(store, RedisLobbyStore)
        await _check_moved(store, table_id)


async def test_a_key_already_written_in_the_new_layout_is_merged_not_replaced(url: str) -> None:
    async with redis_client(url) as old:
        await old.zadd(f"{OLD}:open:3", {"a": 1})
    store = RedisLobbyStore.from_url(url)
    try:
        await store.redis.zadd(keys.open_key(3), {"b": 2})
        await migrate_legacy_keys(store.redis)
        assert await store.redis.zrange(keys.open_key(3), 0, -1) == [b"a", b"b"]
    finally:
        await store.close()


def test_every_old_key_kind_has_a_new_home() -> None:
    assert new_key(f"{OLD}:botfill") == keys.BOT_FILL
    assert new_key(f"{OLD}:open:3") == keys.open_key(3)
    assert new_key(f"{OLD}:table:t1") == keys.table_key("t1")
    assert new_key(f"{OLD}:request:guest:r9") == keys.request_key("guest:r9")
    assert new_key(f"{OLD}:changed") is None
    assert new_key("verrater:stream:{g1}") is None


class _Tries:
    """A Redis client that counts the commands that failed to reach Redis."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.failed = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attribute(*args, **kwargs)
            return self._counted(result) if inspect.isawaitable(result) else result

        return call

    async def _counted(self, result: Awaitable[Any]) -> Any:
        try:
            return await result
        except TRANSIENT_REDIS_ERRORS:
            self.failed += 1
            raise


async def test_a_lobby_that_starts_before_its_redis_waits_for_it(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)  # not started yet: its port answers nothing
    client = redis_client(server.url)
    tried = _Tries(client)
    try:
        waiting = asyncio.create_task(migrate_when_reachable(tried, max_delay_s=0.2))  # type: ignore[arg-type]
        await wait_until(lambda: tried.failed >= 3, "it tried three times")
        assert not waiting.done()  # still waiting, not failed
        await asyncio.to_thread(server.start)
        async with asyncio.timeout(30):
            assert await waiting == 0
        assert await client.get(LAYOUT) == b"2"
    finally:
        await client.aclose()
        server.stop()
