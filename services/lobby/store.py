"""Where the lobby keeps players and tables: in memory (embedded) or in Redis (distributed).

Tables change only through `update_table(table_id, change)`: read, apply the pure change,
write back if the table's version is still the one read (compare-and-set), else retry. The
open-tables list and the bot-fill schedule are projections kept in the same atomic write, so
listing never scans, and a lobby restart loses nothing.

Redis keys share the hash tag `{lobby}` so every Lua script touches one cluster slot; the
lobby's load is small next to the games', which shard by game id.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.engine import PLAYER_COUNTS
from services.errors import Reason, ServiceError

from .model import Player, Table

Change = Callable[[Table], Table]
MAX_CAS_ATTEMPTS = 50


class LobbyUnavailable(ServiceError):
    """The lobby's store cannot be reached; retrying later may succeed."""

    def __init__(self, message: str, reason: Reason = Reason.STORE_UNAVAILABLE) -> None:
        super().__init__(reason, message)


class LobbyStore(abc.ABC):
    """Players, tables, and the projections over them."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[asyncio.Queue[None]]] = {}

    @abc.abstractmethod
    async def add_player(self, player: Player) -> None: ...

    @abc.abstractmethod
    async def player(self, player_id: str) -> Player | None: ...

    @abc.abstractmethod
    async def table(self, table_id: str) -> Table | None: ...

    @abc.abstractmethod
    async def _write(self, table: Table, expected_version: int, previous_host: str) -> bool:
        """Store `table` if the stored version is `expected_version` (0: absent)."""

    @abc.abstractmethod
    async def hosted_tables(self, player_id: str) -> int:
        """How many tables `player_id` hosts that have not started or closed (a projection)."""

    @abc.abstractmethod
    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        """Open public tables, oldest first (from the projection)."""

    @abc.abstractmethod
    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        """Tables whose bot-fill time has come."""

    async def create_table(self, table: Table) -> Table:
        if not await self._write(table, 0, table.host):
            raise ServiceError(Reason.BUSY, f"table id {table.table_id} is taken; retry")
        return table

    async def update_table(self, table_id: str, change: Change) -> Table:
        """Apply `change` atomically; a ServiceError from `change` leaves the table as it was."""
        for _ in range(MAX_CAS_ATTEMPTS):
            current = await self.table(table_id)
            if current is None:
                raise ServiceError(Reason.TABLE_NOT_FOUND, f"no table with id {table_id!r}")
            changed = change(current)
            if changed is current or changed == current:
                return current
            if await self._write(changed, current.version, current.host):
                return changed
        raise LobbyUnavailable(f"table {table_id} is too busy; retry", Reason.BUSY)

    @contextlib.asynccontextmanager
    async def subscription(self, table_id: str) -> AsyncIterator[asyncio.Queue[None]]:
        """A queue that gets a tick after every change of the table (re-read it then).

        The subscription is live when the context is entered, so a read made inside it can
        never miss a later change.
        """
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._watchers.setdefault(table_id, set()).add(queue)
        try:
            await self._watch_started()
            yield queue
        finally:
            watchers = self._watchers.get(table_id)
            if watchers is not None:
                watchers.discard(queue)
                if not watchers:
                    del self._watchers[table_id]

    @abc.abstractmethod
    async def _watch_started(self) -> None:
        """Return once changes made from now on will reach the subscribers' queues."""

    def _notify(self, table_id: str) -> None:
        for queue in self._watchers.get(table_id, ()):
            with contextlib.suppress(asyncio.QueueFull):  # one pending tick is enough
                queue.put_nowait(None)

    async def close(self) -> None:
        self._watchers.clear()


class InMemoryLobbyStore(LobbyStore):
    """The embedded lobby store: dicts, one asyncio loop, no awaits inside a write."""

    def __init__(self) -> None:
        super().__init__()
        self._players: dict[str, Player] = {}
        self._tables: dict[str, Table] = {}

    async def add_player(self, player: Player) -> None:
        self._players[player.player_id] = player

    async def player(self, player_id: str) -> Player | None:
        return self._players.get(player_id)

    async def table(self, table_id: str) -> Table | None:
        return self._tables.get(table_id)

    async def _write(self, table: Table, expected_version: int, previous_host: str) -> bool:
        current = self._tables.get(table.table_id)
        if (current.version if current is not None else 0) != expected_version:
            return False
        self._tables[table.table_id] = table
        self._notify(table.table_id)
        return True

    async def hosted_tables(self, player_id: str) -> int:
        return sum(1 for t in self._tables.values() if t.host == player_id and t.waiting)

    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        listed = [t for t in self._tables.values() if t.listed and (size is None or t.size == size)]
        return sorted(listed, key=lambda t: (t.created_at_ms, t.table_id))[:limit]

    async def _watch_started(self) -> None:
        """Writes notify in-process queues directly: nothing to start."""

    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        return [
            t.table_id
            for t in self._tables.values()
            if t.fill_bots_at_ms and t.fill_bots_at_ms <= now_ms and t.free_seats()
        ]


_CAS_SCRIPT = """
-- KEYS: table hash, open:3 zset, open:4 zset, bot-fill zset, previous host's hosting set,
--       host's hosting set
-- ARGV: expected version, new version, json, table id, listed size (0/3/4), created ms,
--       bot-fill ms (0: none), change channel, waiting (1: not started or closed)
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
redis.call('PUBLISH', ARGV[8], ARGV[4])
return 1
"""

_PREFIX = "verrater:{lobby}"


class RedisLobbyStore(LobbyStore):
    """The lobby on Redis: a hash per table, sorted sets as projections, pub/sub for changes.

    One pub/sub connection per process serves every WatchTable stream.
    """

    CHANNEL = f"{_PREFIX}:changed"

    def __init__(self, client: aioredis.Redis) -> None:
        super().__init__()
        self._redis = client
        self._cas = client.register_script(_CAS_SCRIPT)
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisLobbyStore:
        return cls(aioredis.Redis.from_url(url))

    @staticmethod
    def _table_key(table_id: str) -> str:
        return f"{_PREFIX}:table:{table_id}"

    @staticmethod
    def _hosting_key(player_id: str) -> str:
        return f"{_PREFIX}:hosting:{player_id}"

    async def hosted_tables(self, player_id: str) -> int:
        async with _available():
            count: int = await self._redis.scard(self._hosting_key(player_id))
        return count

    @staticmethod
    def _open_key(size: int) -> str:
        return f"{_PREFIX}:open:{size}"

    async def add_player(self, player: Player) -> None:
        async with _available():
            await self._redis.hset(f"{_PREFIX}:player:{player.player_id}", "name", player.name)

    async def player(self, player_id: str) -> Player | None:
        async with _available():
            name = await self._redis.hget(f"{_PREFIX}:player:{player_id}", "name")
        return Player(player_id, _text(name)) if name is not None else None

    async def table(self, table_id: str) -> Table | None:
        async with _available():
            raw = await self._redis.hget(self._table_key(table_id), "json")
        return Table.from_dict(json.loads(raw)) if raw is not None else None

    async def _write(self, table: Table, expected_version: int, previous_host: str) -> bool:
        listed = str(table.size) if table.listed else "0"
        fill_at = str(table.fill_bots_at_ms) if table.fill_bots_at_ms else "0"
        async with _available():
            written = await self._cas(
                keys=[
                    self._table_key(table.table_id),
                    self._open_key(3),
                    self._open_key(4),
                    f"{_PREFIX}:botfill",
                    self._hosting_key(previous_host),
                    self._hosting_key(table.host),
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
            except (RedisConnectionError, RedisTimeoutError, OSError):
                await asyncio.sleep(0.5)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await super().close()
        await self._redis.aclose()


@contextlib.asynccontextmanager
async def _available() -> AsyncIterator[None]:
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError) as error:
        raise LobbyUnavailable(f"the lobby store is unavailable, retry: {error}") from error


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
