"""The lobby on Redis: a hash per table, sorted sets and sets as projections, one compare-and-set
script per write, pub/sub for changes (see store.py for what a lobby store does).

Redis keys share the hash tag `{lobby}` so every Lua script touches one cluster slot; the
lobby's load is small next to the games', which shard by game id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from services.engine import PLAYER_COUNTS
from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, redis_client
from services.tasks import cancel_and_wait

from .model import GameProgress, Player, Table
from .store import FINISHED_KEPT, LobbyStore, LobbyUnavailable, RequestRecord, index_change

_CAS_SCRIPT = """
-- KEYS: table hash, open:3 zset, open:4 zset, bot-fill zset, previous host's hosting set,
--       host's hosting set, opening peer's hosting set, then the table lists (zsets) of the
--       players to drop the table for, then of those to list it for
-- ARGV: expected version, new version, json, table id, listed size (0/3/4), created ms,
--       bot-fill ms (0: none), change channel, waiting (1: not started or closed),
--       how many players to drop it for, opened from a known peer (1/0)
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'json', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('ZREM', KEYS[3], ARGV[4])
if ARGV[5] == '3' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[4]) end
if ARGV[5] == '4' then redis.call('ZADD', KEYS[3], ARGV[6], ARGV[4]) end
if ARGV[7] ~= '0' then
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[4])
else
  redis.call('ZREM', KEYS[4], ARGV[4])
end
redis.call('SREM', KEYS[5], ARGV[4])
if ARGV[9] == '1' then
  redis.call('SADD', KEYS[6], ARGV[4])
else
  redis.call('SREM', KEYS[6], ARGV[4])
end
if ARGV[11] == '1' then
  if ARGV[9] == '1' then
    redis.call('SADD', KEYS[7], ARGV[4])
  else
    redis.call('SREM', KEYS[7], ARGV[4])
  end
end
local dropped = tonumber(ARGV[10])
for i = 8, #KEYS do
  if i < 8 + dropped then
    redis.call('ZREM', KEYS[i], ARGV[4])
  else
    redis.call('ZADD', KEYS[i], ARGV[6], ARGV[4])
  end
end
redis.call('PUBLISH', ARGV[8], ARGV[4])
return 1
"""

_FINISHED_SCRIPT = """
-- KEYS: the player's table list, finished list (zsets), results hash
-- ARGV: table id, created ms, result json, how many results to keep
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local beyond = -(tonumber(ARGV[4]) + 1)
for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, beyond)) do
  redis.call('HDEL', KEYS[3], old)
end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, beyond)
return 1
"""

# Answer or release a request-id claim only if `holder` still holds it.
_ANSWER_SCRIPT = """
local held = redis.call('GET', KEYS[1])
if not held or cjson.decode(held)['holder'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""
_RELEASE_SCRIPT = """
local held = redis.call('GET', KEYS[1])
if not held or cjson.decode(held)['holder'] ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""

_PREFIX = "verrater:{lobby}"


class RedisLobbyStore(LobbyStore):
    """The lobby on Redis: a hash per table, sorted sets as projections, pub/sub for changes.

    One pub/sub connection per process serves every WatchTable stream.
    """

    CHANNEL = f"{_PREFIX}:changed"

    def __init__(self, client: AnyRedis) -> None:
        super().__init__()
        self._redis = client
        self._cas = client.register_script(_CAS_SCRIPT)
        self._finished_script = client.register_script(_FINISHED_SCRIPT)
        self._answer = client.register_script(_ANSWER_SCRIPT)
        self._release = client.register_script(_RELEASE_SCRIPT)
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisLobbyStore:
        return cls(redis_client(url))

    @staticmethod
    def _table_key(table_id: str) -> str:
        return f"{_PREFIX}:table:{table_id}"

    @staticmethod
    def _hosting_key(player_id: str) -> str:
        return f"{_PREFIX}:hosting:{player_id}"

    @staticmethod
    def _peer_hosting_key(peer: str) -> str:
        return f"{_PREFIX}:peer-hosting:{peer}"

    @staticmethod
    def _player_key(player_id: str) -> str:
        return f"{_PREFIX}:player:{player_id}"

    @staticmethod
    def _mine_key(player_id: str) -> str:
        return f"{_PREFIX}:mine:{player_id}"

    async def hosted_tables(self, player_id: str) -> int:
        async with _available():
            count: int = await self._redis.scard(self._hosting_key(player_id))
        return count

    async def peer_tables(self, peer: str) -> int:
        async with _available():
            count: int = await self._redis.scard(self._peer_hosting_key(peer))
        return count

    async def my_tables(self, player_id: str, limit: int) -> list[str]:
        async with _available():
            ids = await self._redis.zrevrange(self._mine_key(player_id), 0, limit - 1)
        return [_text(member) for member in ids]

    async def record_finished(self, player_id: str, table: Table, result: GameProgress) -> None:
        async with _available():
            await self._finished_script(
                keys=[
                    self._mine_key(player_id),
                    f"{_PREFIX}:finished:{player_id}",
                    f"{_PREFIX}:results:{player_id}",
                ],
                args=[
                    table.table_id,
                    table.created_at_ms,
                    json.dumps(result.to_dict()),
                    FINISHED_KEPT,
                ],
            )

    async def finished_games(self, player_id: str) -> list[tuple[str, GameProgress]]:
        async with _available():
            ids = [
                _text(member)
                for member in await self._redis.zrevrange(
                    f"{_PREFIX}:finished:{player_id}", 0, FINISHED_KEPT - 1
                )
            ]
            raws = await self._redis.hmget(f"{_PREFIX}:results:{player_id}", ids) if ids else []
        return [
            (table_id, GameProgress.from_dict(json.loads(raw)))
            for table_id, raw in zip(ids, raws, strict=True)
            if raw is not None
        ]

    @staticmethod
    def _request_key(key: str) -> str:
        return f"{_PREFIX}:request:{key}"

    async def claim_request(
        self, key: str, record: RequestRecord, ttl_ms: int
    ) -> RequestRecord | None:
        async with _available():
            while True:
                if await self._redis.set(
                    self._request_key(key), record.to_json(), nx=True, px=ttl_ms
                ):
                    return None
                held = await self._redis.get(self._request_key(key))
                if held is not None:  # else it expired meanwhile: claim again
                    return RequestRecord.from_json(held)

    async def answer_request(self, key: str, holder: str, answer: bytes, ttl_ms: int) -> None:
        async with _available():
            held = await self._redis.get(self._request_key(key))
            if held is None:
                return
            record = RequestRecord.from_json(held)
            answered = RequestRecord(record.fingerprint, holder, answer)
            await self._answer(
                keys=[self._request_key(key)], args=[holder, answered.to_json(), ttl_ms]
            )

    async def release_request(self, key: str, holder: str) -> None:
        async with _available():
            await self._release(keys=[self._request_key(key)], args=[holder])

    @staticmethod
    def _open_key(size: int) -> str:
        return f"{_PREFIX}:open:{size}"

    async def add_player(self, player: Player, credential_digest: str) -> None:
        async with _available():
            await self._redis.hset(
                self._player_key(player.player_id),
                mapping={"name": player.name, "credential": credential_digest},
            )

    async def player(self, player_id: str) -> Player | None:
        async with _available():
            name = await self._redis.hget(self._player_key(player_id), "name")
        return Player(player_id, _text(name)) if name is not None else None

    async def credential_digest(self, player_id: str) -> str | None:
        async with _available():
            stored = await self._redis.hget(self._player_key(player_id), "credential")
        return _text(stored) if stored is not None else None

    async def replace_credential(self, player_id: str, credential_digest: str) -> None:
        async with _available():
            await self._redis.hset(self._player_key(player_id), "credential", credential_digest)

    async def table(self, table_id: str) -> Table | None:
        async with _available():
            raw = await self._redis.hget(self._table_key(table_id), "json")
        return Table.from_dict(json.loads(raw)) if raw is not None else None

    async def tables(self, table_ids: list[str]) -> list[Table]:
        async with _available(), self._redis.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(self._table_key(table_id), "json")
            raws: list[Any] = await pipe.execute()
        return [Table.from_dict(json.loads(raw)) for raw in raws if raw is not None]

    async def _write(self, table: Table, expected_version: int, previous: Table | None) -> bool:
        listed = str(table.size) if table.listed else "0"
        fill_at = str(table.fill_bots_at_ms) if table.fill_bots_at_ms else "0"
        dropped, listing = index_change(previous, table)
        async with _available():
            written = await self._cas(
                keys=[
                    self._table_key(table.table_id),
                    self._open_key(3),
                    self._open_key(4),
                    f"{_PREFIX}:botfill",
                    self._hosting_key(previous.host if previous is not None else table.host),
                    self._hosting_key(table.host),
                    self._peer_hosting_key(table.opened_from),
                    *(self._mine_key(player_id) for player_id in sorted(dropped)),
                    *(self._mine_key(player_id) for player_id in sorted(listing)),
                ],
                args=[
                    str(expected_version),
                    str(table.version),
                    json.dumps(table.to_dict()),
                    table.table_id,
                    listed,
                    table.created_at_ms,
                    fill_at,
                    self.CHANNEL,
                    "1" if table.waiting else "0",
                    len(dropped),
                    "1" if table.opened_from else "0",
                ],
            )
        return bool(written)

    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        sizes = PLAYER_COUNTS if size is None else (size,)
        async with _available():
            ids: list[tuple[float, str]] = []
            for each in sizes:
                entries: list[Any] = await self._redis.zrange(
                    self._open_key(each), 0, limit - 1, withscores=True
                )
                ids.extend((float(score), _text(member)) for member, score in entries)
        tables = [await self.table(table_id) for _, table_id in sorted(ids)[:limit]]
        return [t for t in tables if t is not None and t.listed]

    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        async with _available():
            due = await self._redis.zrangebyscore(f"{_PREFIX}:botfill", 0, now_ms)
        return [_text(member) for member in due]

    async def _watch_started(self) -> None:
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen())
        await self._listening.wait()

    async def _listen(self) -> None:
        """The one pub/sub connection of this process; reconnects after Redis restarts."""
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self.CHANNEL)
                    self._listening.set()
                    # A reconnect may have missed changes: wake every watcher to re-read.
                    for table_id in list(self._watchers):
                        self._notify(table_id)
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self._notify(_text(message["data"]))
            except TRANSIENT_REDIS_ERRORS + (OSError,):
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        if self._listener is not None:
            await cancel_and_wait(self._listener)
        await super().close()
        await self._redis.aclose()


@contextlib.asynccontextmanager
async def _available() -> AsyncIterator[None]:
    try:
        yield
    except TRANSIENT_REDIS_ERRORS as error:
        raise LobbyUnavailable(f"the lobby store is unavailable, retry: {error}") from error


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
