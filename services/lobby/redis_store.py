"""The lobby on Redis: a hash per table, sorted sets and sets as indexes, a compare-and-set
script per write, a small capped stream for changes followed by the process's live reader
(see store.py for what a lobby store does, and redis_keys.py for where each key lives on a
cluster).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterPipeline

from services.engine import PLAYER_COUNTS
from services.eventstore import (
    TRANSIENT_REDIS_ERRORS,
    AnyRedis,
    read_many,
    redis_client,
)
from services.redislive import (
    RECONNECT_FIRST_DELAY,
    RECONNECT_MAX_DELAY,
    LiveReader,
    ReaderFailed,
    Resync,
    fields_of,
)
from services.tasks import cancel_and_wait

from . import redis_keys as keys
from .model import GameProgress, Player, Table
from .store import (
    FINISHED_KEPT,
    STARTING_LISTED,
    LobbyStore,
    LobbyUnavailable,
    PlayerGames,
    RequestRecord,
)

log = logging.getLogger("verrater.lobby")

# A table write: compare the version, then take the table's index lease and note the index ops
# the writer is about to apply. A lease still held means another write is indexing: the caller
# waits (reply 2, ms left). An expired one was left by a writer that died: its ops come back to
# the new writer (reply 1, ops), which finishes them with its own.
# KEYS: the table hash. ARGV: expected version, new version, json, index ops (json), lease ms,
# holder (a random token).
_CAS_SCRIPT = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then return {0, ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = redis.call('HMGET', KEYS[1], 'lease', 'ops')
local unfinished = ''
if lease[1] then
  local left = tonumber(lease[1]) - now
  if left > 0 then return {2, tostring(left)} end
  unfinished = lease[2] or ''
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'json', ARGV[3],
           'lease', tostring(now + tonumber(ARGV[5])), 'ops', ARGV[4], 'holder', ARGV[6])
return {1, unfinished}
"""

# Take over an expired index lease (a sweep finishing a dead writer's ops): reply 0 when no
# lease is left, 2 while one is still held, 1 and the ops when taken.
# KEYS: the table hash. ARGV: lease ms, holder.
_TAKE_OVER_SCRIPT = """
local lease = redis.call('HMGET', KEYS[1], 'lease', 'ops')
if not lease[1] then return {0, ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(lease[1]) > now then return {2, ''} end
redis.call('HSET', KEYS[1], 'lease', tostring(now + tonumber(ARGV[1])), 'holder', ARGV[2])
return {1, lease[2] or ''}
"""

# The index ops are applied: drop the lease if `holder` still holds it.
_RELEASE_LEASE_SCRIPT = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'lease', 'ops', 'holder')
return 1
"""

_FINISHED_SCRIPT = """
-- KEYS: the player's table list, finished list (zsets), results hash (one hash tag)
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
#: How long a writer may take to apply a write's index ops before another finishes them.
INDEX_LEASE_MS = 3000
#: The longest a write waits for its index entries once it stands (then the sweep finishes them).
INDEX_TIMEOUT_S = 2.0
#: Markers of unfinished index ops a sweep looks at, at most.
REPAIR_BATCH = 100


class RedisLobbyStore(LobbyStore):
    """The lobby on Redis: a hash per table, sorted sets and sets as indexes, a capped stream
    of changes; its keys spread over a cluster's slots (see redis_keys.py).

    A table write is a compare-and-set on the table's hash alone (one slot); its index entries
    live on other slots, so they follow in a second step under a lease noted in the hash. A
    writer that dies between the two leaves the lease and a marker in ``UNINDEXED``: the next
    write of that table, or the lobby's sweep (:meth:`repair_indexes`), finishes its ops, which
    are absolute and so safe to apply again. Every WatchTable stream of the process is served by
    one subscription to the change stream (``CHANGES``) on the live reader, on one connection
    (``<client_name>-hub``), made at the first watch.
    """

    def __init__(
        self,
        client: AnyRedis,
        *,
        url: str,
        client_name: str = "verrater-lobby",
        index_lease_ms: int = INDEX_LEASE_MS,
    ) -> None:
        super().__init__()
        self._redis = client
        self._live = LiveReader.on_client(url, client, client_name=client_name)
        self._index_lease_ms = index_lease_ms
        self._cas = client.register_script(_CAS_SCRIPT)
        self._take_over = client.register_script(_TAKE_OVER_SCRIPT)
        self._release_lease = client.register_script(_RELEASE_LEASE_SCRIPT)
        self._finished_script = client.register_script(_FINISHED_SCRIPT)
        self._answer = client.register_script(_ANSWER_SCRIPT)
        self._release = client.register_script(_RELEASE_SCRIPT)
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisLobbyStore:
        return cls(redis_client(url), url=url)

    @property
    def redis(self) -> AnyRedis:
        return self._redis

    async def hosted_tables(self, player_id: str) -> int:
        async with _available():
            count: int = await self._redis.scard(keys.hosting_key(player_id))
        return count

    async def peer_tables(self, peer: str) -> int:
        async with _available():
            count: int = await self._redis.scard(keys.peer_hosting_key(peer))
        return count

    async def my_tables(self, player_id: str, limit: int) -> list[str]:
        async with _available():
            ids = await self._redis.zrevrange(keys.mine_key(player_id), 0, limit - 1)
        return [_text(member) for member in ids]

    async def record_finished(self, player_id: str, table: Table, result: GameProgress) -> None:
        async with _available():
            await self._finished_script(
                keys=[
                    keys.mine_key(player_id),
                    keys.finished_key(player_id),
                    keys.results_key(player_id),
                ],
                args=[
                    table.table_id,
                    table.created_at_ms,
                    json.dumps(result.to_dict()),
                    FINISHED_KEPT,
                ],
            )

    async def finished_games(self, player_id: str) -> list[tuple[str, GameProgress]]:
        async with _available(), self._redis.pipeline(transaction=False) as pipe:
            _read_results(pipe, player_id)
            ids, stored = await pipe.execute()
        return _results(ids, stored)

    async def player_games(self, player_id: str, limit: int) -> PlayerGames:
        """One pipeline to the player's slot (their keys share its hash tag)."""
        async with _available(), self._redis.pipeline(transaction=False) as pipe:
            pipe.zrevrange(keys.mine_key(player_id), 0, limit - 1)
            _read_results(pipe, player_id)
            mine, ids, stored = await pipe.execute()
        return PlayerGames([_text(member) for member in mine], _results(ids, stored))

    async def claim_request(
        self, key: str, record: RequestRecord, ttl_ms: int
    ) -> RequestRecord | None:
        async with _available():
            while True:
                if await self._redis.set(
                    keys.request_key(key), record.to_json(), nx=True, px=ttl_ms
                ):
                    return None
                held = await self._redis.get(keys.request_key(key))
                if held is not None:  # else it expired meanwhile: claim again
                    return RequestRecord.from_json(held)

    async def answer_request(self, key: str, holder: str, answer: bytes, ttl_ms: int) -> None:
        async with _available():
            held = await self._redis.get(keys.request_key(key))
            if held is None:
                return
            record = RequestRecord.from_json(held)
            answered = RequestRecord(record.fingerprint, holder, answer)
            await self._answer(
                keys=[keys.request_key(key)], args=[holder, answered.to_json(), ttl_ms]
            )

    async def release_request(self, key: str, holder: str) -> None:
        async with _available():
            await self._release(keys=[keys.request_key(key)], args=[holder])

    async def add_player(self, player: Player, credential_digest: str) -> None:
        async with _available():
            await self._redis.hset(
                keys.player_key(player.player_id),
                mapping={"name": player.name, "credential": credential_digest},
            )

    async def player(self, player_id: str) -> Player | None:
        async with _available():
            name = await self._redis.hget(keys.player_key(player_id), "name")
        return Player(player_id, _text(name)) if name is not None else None

    async def credential_digest(self, player_id: str) -> str | None:
        async with _available():
            stored = await self._redis.hget(keys.player_key(player_id), "credential")
        return _text(stored) if stored is not None else None

    async def replace_credential(self, player_id: str, credential_digest: str) -> None:
        async with _available():
            await self._redis.hset(keys.player_key(player_id), "credential", credential_digest)

    async def table(self, table_id: str) -> Table | None:
        async with _available():
            raw = await self._redis.hget(keys.table_key(table_id), "json")
        return Table.from_dict(json.loads(raw)) if raw is not None else None

    async def tables(self, table_ids: list[str]) -> list[Table]:
        if not table_ids:
            return []
        names = [keys.table_key(table_id) for table_id in table_ids]
        async with _available():
            raws = await read_many(self._redis, names, "json")
        return [Table.from_dict(json.loads(raw)) for raw in raws if raw is not None]

    async def _write(self, table: Table, expected_version: int, previous: Table | None) -> bool:
        ops = keys.index_ops(previous, table)
        holder = secrets.token_hex(8)
        marker = f"{table.table_id}|{table.version}"
        table_key = keys.table_key(table.table_id)
        async with _available():
            # Noted before the write, so a writer that dies after it leaves a trace to finish.
            await self._redis.zadd(keys.UNINDEXED, {marker: _now_ms() + self._index_lease_ms})
            waited = 0
            while True:
                status, detail = await self._cas(
                    keys=[table_key],
                    args=[
                        str(expected_version),
                        str(table.version),
                        json.dumps(table.to_dict()),
                        keys.encode_ops(ops),
                        self._index_lease_ms,
                        holder,
                    ],
                )
                if int(status) != 2:
                    break
                # Another write of this table is applying its index ops: a few ms, or the
                # lease's length if that writer died.
                await asyncio.sleep(min(int(_text(detail)), 1 + 2**waited) / 1000)
                waited = min(waited + 1, 6)
            if int(status) == 0:
                await self._redis.zrem(keys.UNINDEXED, marker)
                return False
        # The write stands: the table holds it. Its index entries (on other slots, other
        # masters of a cluster) follow; a master of theirs that does not answer now must not
        # fail a write that happened (a retry of the request would make the change twice):
        # the lease the write took, and its mark in UNINDEXED, leave them to the sweep.
        unfinished = keys.decode_ops(_text(detail))
        try:
            async with asyncio.timeout(INDEX_TIMEOUT_S), _available():
                await self._apply_ops(table.table_id, unfinished, ops, holder, marker)
        except (LobbyUnavailable, TimeoutError) as error:
            log.warning(
                "table %s: its index entries are left to the sweep (%s)", table.table_id, error
            )
        return True

    async def _apply_ops(
        self,
        table_id: str,
        unfinished: list[keys.IndexOp],
        ops: list[keys.IndexOp],
        holder: str,
        marker: str,
    ) -> None:
        """Apply a dead writer's unfinished ops and then this write's (the later op on the
        same entry wins), drop the lease, and tell every replica that the table changed."""
        merged = {(key, member): (command, score) for command, key, member, score in unfinished}
        merged.update({(key, member): (command, score) for command, key, member, score in ops})
        async with self._redis.pipeline(transaction=False) as pipe:
            for (key, member), (command, score) in merged.items():
                if command == "ZADD":
                    pipe.zadd(key, {member: score})
                elif command == "ZREM":
                    pipe.zrem(key, member)
                elif command == "SADD":
                    pipe.sadd(key, member)
                else:
                    pipe.srem(key, member)
            await pipe.execute()
        await self._release_lease(keys=[keys.table_key(table_id)], args=[holder])
        await self._redis.zrem(keys.UNINDEXED, marker)
        await self._redis.xadd(
            keys.CHANGES, {"t": table_id}, maxlen=keys.CHANGES_KEPT, approximate=True
        )

    async def repair_indexes(self) -> int:
        """Finish the index ops of writers that died mid-write (their lease has expired);
        how many tables it finished. The lobby's sweep runs this in every replica."""
        finished = 0
        async with _available():
            markers = await self._redis.zrangebyscore(
                keys.UNINDEXED, 0, _now_ms(), start=0, num=REPAIR_BATCH
            )
            for raw in markers:
                marker = _text(raw)
                table_id = marker.partition("|")[0]
                holder = secrets.token_hex(8)
                status, ops = await self._take_over(
                    keys=[keys.table_key(table_id)], args=[self._index_lease_ms, holder]
                )
                if int(status) == 2:
                    continue  # a live writer (or a sweep elsewhere) holds it: look again later
                if int(status) == 1:
                    unfinished = keys.decode_ops(_text(ops))
                    await self._apply_ops(table_id, unfinished, [], holder, marker)
                    finished += 1
                else:
                    await self._redis.zrem(keys.UNINDEXED, marker)
        return finished

    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        sizes = PLAYER_COUNTS if size is None else (size,)
        async with _available():
            ids: list[tuple[float, str]] = []
            for each in sizes:
                entries: list[Any] = await self._redis.zrange(
                    keys.open_key(each), 0, limit - 1, withscores=True
                )
                ids.extend((float(score), _text(member)) for member, score in entries)
        tables = await self.tables([table_id for _, table_id in sorted(ids)[:limit]])
        return [t for t in tables if t.listed]

    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        async with _available():
            due = await self._redis.zrangebyscore(keys.BOT_FILL, 0, now_ms)
        return [_text(member) for member in due]

    async def tables_starting(self) -> list[str]:
        async with _available():
            starting = await self._redis.zrange(keys.STARTING, 0, STARTING_LISTED - 1)
        return [_text(member) for member in starting]

    async def _watch_started(self) -> None:
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="lobby-changes")
        await self._listening.wait()

    async def _listen(self) -> None:
        """Follow the change stream from its end, on the live reader; after a reconnect of
        the reader (changes may have been trimmed away meanwhile), or its failure, wake every
        watcher to re-read."""
        delay = RECONNECT_FIRST_DELAY
        while True:
            try:
                async with _available():
                    last = await self._redis.xrevrange(keys.CHANGES, "+", "-", count=1)
                after = _text(last[0][0]) if last else "0-0"
                async with await self._live.subscribe(
                    keys.CHANGES, after, resync_on_reconnect=True
                ) as changes:
                    self._listening.set()
                    delay = RECONNECT_FIRST_DELAY
                    async for item in changes:
                        if isinstance(item, Resync):
                            self._notify_all()
                        else:
                            for entry in item.entries:
                                self._notify(_text(fields_of(entry)[b"t"]))
            except (LobbyUnavailable, ReaderFailed) as error:
                log.warning("lobby changes: %s; watchers re-read, retrying in %.2fs", error, delay)
                self._notify_all()
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX_DELAY)

    def _notify_all(self) -> None:
        for table_id in list(self._watchers):
            self._notify(table_id)

    async def close(self) -> None:
        if self._listener is not None:
            await cancel_and_wait(self._listener)
        await self._live.close()
        await super().close()
        await self._redis.aclose()


@contextlib.asynccontextmanager
async def _available() -> AsyncIterator[None]:
    try:
        yield
    except TRANSIENT_REDIS_ERRORS as error:
        raise LobbyUnavailable(f"the lobby store is unavailable, retry: {error}") from error


def _read_results(pipe: Pipeline | ClusterPipeline, player_id: str) -> None:
    """Queue the reads of the player's kept results: the newest ids, and the whole results
    hash (it holds no more than the FINISHED_KEPT the script leaves)."""
    pipe.zrevrange(keys.finished_key(player_id), 0, FINISHED_KEPT - 1)
    pipe.hgetall(keys.results_key(player_id))


def _results(ids: list[Any], stored: dict[Any, Any]) -> list[tuple[str, GameProgress]]:
    """The kept results of :func:`_read_results`, newest first; an id whose result is gone
    (trimmed between the two reads) is left out."""
    raws = {_text(table_id): raw for table_id, raw in stored.items()}
    return [
        (table_id, GameProgress.from_dict(json.loads(raws[table_id])))
        for table_id in map(_text, ids)
        if table_id in raws
    ]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
