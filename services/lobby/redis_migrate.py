"""Moving a lobby written by an earlier version onto today's keys (redis_keys.py).

Up to the release that spread it over cluster slots, the lobby kept every key under one hash
tag, ``verrater:{lobby}:...``. A lobby replica moves such keys on start, before it serves:
one replica at a time (a lock key), each key copied with ``DUMP``/``RESTORE`` (keeping its
TTL) and then deleted, so a replica that starts later finds nothing left to move. Where the
new key already exists, sets and sorted sets are merged and anything else keeps the new value.
Once none is left, a marker key (``LAYOUT``) spares later starts the scan of the keyspace.

Old replicas must be stopped before new ones start (docs/OPERATING.md, "Upgrading the lobby"):
an old replica writing old keys beside a new one would split the lobby in two.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from redis.exceptions import ResponseError

from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis

from . import redis_keys as keys

log = logging.getLogger(__name__)

LEGACY_PREFIX = "verrater:{lobby}"
LOCK = f"{keys.PREFIX}:migrating"
#: Set once no ``{lobby}`` key is left, so later starts skip the scan of the whole keyspace.
LAYOUT = f"{keys.PREFIX}:layout"
LAYOUT_VERSION = "2"
#: How long one replica may hold the move before another may take it over.
LOCK_MS = 60_000

_UNLOCK_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def new_key(legacy: str) -> str | None:
    """Today's key for a key of the ``{lobby}`` layout; None for one it never wrote."""
    if not legacy.startswith(LEGACY_PREFIX + ":"):
        return None
    kind, _, rest = legacy[len(LEGACY_PREFIX) + 1 :].partition(":")
    if kind == "botfill" and not rest:
        return keys.BOT_FILL
    if kind == "open" and rest.isdigit():
        return keys.open_key(int(rest))
    by_kind = {
        "table": keys.table_key,
        "player": keys.player_key,
        "mine": keys.mine_key,
        "finished": keys.finished_key,
        "results": keys.results_key,
        "hosting": keys.hosting_key,
        "peer-hosting": keys.peer_hosting_key,
        "request": keys.request_key,
    }
    make = by_kind.get(kind)
    return make(rest) if make is not None and rest else None


async def migrate_when_reachable(redis: AnyRedis, *, max_delay_s: float = 5.0) -> int:
    """:func:`migrate_legacy_keys`, waiting for Redis while it cannot be reached (a lobby that
    starts before its Redis does serves once it can know it holds no old keys)."""
    delay = 0.25
    while True:
        try:
            return await migrate_legacy_keys(redis)
        except TRANSIENT_REDIS_ERRORS as error:
            log.warning("lobby keys: Redis cannot be reached (%s); again in %.1fs", error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, max_delay_s)


async def migrate_legacy_keys(redis: AnyRedis) -> int:
    """Move every ``{lobby}`` key to its place today; how many this call moved. Returns once
    none is left (another replica may have moved them meanwhile)."""
    moved = 0
    if _text(await redis.get(LAYOUT)) == LAYOUT_VERSION:
        return moved
    unlock = redis.register_script(_UNLOCK_SCRIPT)
    while True:
        legacy = [
            _text(raw) async for raw in redis.scan_iter(match=f"{LEGACY_PREFIX}:*", count=1000)
        ]
        targets = {key: new_key(key) for key in legacy}
        movable = [(key, target) for key, target in targets.items() if target is not None]
        if not movable:
            for key in legacy:
                log.warning("lobby keys: %s is not a key the lobby wrote; left alone", key)
            await redis.set(LAYOUT, LAYOUT_VERSION)
            return moved
        token = secrets.token_hex(8)
        if not await redis.set(LOCK, token, nx=True, px=LOCK_MS):
            await asyncio.sleep(0.2)  # another replica is moving them
            continue
        before = moved
        try:
            for key, target in movable:
                await _move(redis, key, target)
                moved += 1
        finally:
            await unlock(keys=[LOCK], args=[token])
            log.info("lobby keys: moved %d keys from the {lobby} layout", moved - before)


async def _move(redis: AnyRedis, legacy: str, target: str) -> None:
    payload = await redis.dump(legacy)
    if payload is None:
        return  # gone meanwhile
    ttl = await redis.pttl(legacy)
    try:
        await redis.restore(target, max(int(ttl), 0), payload)
    except ResponseError as error:
        if "BUSYKEY" not in str(error):
            raise
        await _merge(redis, legacy, target)
    await redis.delete(legacy)


async def _merge(redis: AnyRedis, legacy: str, target: str) -> None:
    kind = _text(await redis.type(legacy))
    if kind == "zset":
        entries: list[Any] = await redis.zrange(legacy, 0, -1, withscores=True)
        if entries:
            await redis.zadd(target, {member: score for member, score in entries}, nx=True)
    elif kind == "set":
        members = await redis.smembers(legacy)
        if members:
            await redis.sadd(target, *members)
    else:
        log.warning("lobby keys: %s exists already; the newer value is kept", target)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
