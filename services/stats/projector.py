"""The stats projector: reads the inbox of finished games with a consumer group and applies each
game's result to the Redis projection.

Any number of projectors may run (one per serving process, say): the consumer group gives each
inbox entry to one of them. An entry is acknowledged only after its result is applied (or found
already applied), so a projector killed between reading and acknowledging leaves it pending:

- restarted under the same consumer name, it first re-reads its own pending entries;
- otherwise another projector claims entries idle for `claim_idle_ms` (XAUTOCLAIM), which also
  retries entries whose handling failed (the event store was down, say) after that delay.

Applying is idempotent (`RedisStats.apply` skips applied games), so a redelivered entry, or a
game announced twice, changes nothing. Acknowledged entries are trimmed from the inbox.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from typing import Any

from redis.exceptions import ResponseError

from services.codec import MalformedMessage, decode_record
from services.engine import GameEnded
from services.eventstore import (
    TRANSIENT_REDIS_ERRORS,
    EventStore,
    RedisEventStore,
    StoreUnavailable,
)
from services.tasks import cancel_and_wait

from .feed import GAME_ID_FIELD, INBOX_KEY
from .projection import StatsUnavailable, read_result
from .redis_stats import RedisStats
from .results import GameNotOver

log = logging.getLogger("verrater.stats")

GROUP = "projectors"
#: Trim the inbox after this many acknowledged entries (and whenever the inbox runs dry).
TRIM_EVERY = 100
#: Consumers with nothing pending and idle this long are dropped from the group (dead pods).
FORGET_CONSUMER_AFTER_MS = 24 * 3600 * 1000
_FIRST_DELAY, _MAX_DELAY = 0.1, 5.0

Entry = tuple[str, dict[str, str]]


def default_consumer_name() -> str:
    """Unique per process and stable for its lifetime: host name and pid."""
    return f"{socket.gethostname()}-{os.getpid()}"


def _announced_ms(entry_id: str) -> int:
    """When the entry was added: the millisecond part of an auto-generated stream id."""
    return int(entry_id.partition("-")[0])


def _entries(reply: Any) -> list[Entry]:
    """The inbox's entries in an XREADGROUP reply: RESP2 `[[key, entries]]`, or RESP3
    `{key: [entries]}`."""
    if isinstance(reply, dict):
        batches = [entries for wrapped in reply.values() for entries in wrapped]
    else:
        batches = [entries for _key, entries in reply or []]
    return [(entry_id, fields or {}) for entries in batches for entry_id, fields in entries]


class StatsProjector:
    """One consumer of the inbox; `run()` until cancelled, or `step()` at a time (tests)."""

    def __init__(
        self,
        stats: RedisStats,
        store: EventStore,
        *,
        consumer: str | None = None,
        claim_idle_ms: int = 30_000,
        block_ms: int = 2_000,
        batch: int = 32,
    ) -> None:
        self.stats = stats
        self.store = store
        self.consumer = consumer or default_consumer_name()
        self.claim_idle_ms = claim_idle_ms
        self.block_ms = block_ms
        self.batch = batch
        self._redis = stats.redis
        self._group_ready = False
        self._own_pending_done = False
        self._claim_cursor = "0-0"
        self._acked_since_trim = 0
        self._task: asyncio.Task[None] | None = None

    async def ensure_group(self) -> None:
        """Create the consumer group (and the inbox) if missing; it starts at the beginning."""
        try:
            async with self.stats.call():
                await self._redis.xgroup_create(INBOX_KEY, GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        self._group_ready = True

    async def step(self) -> int:
        """One round: own pending entries (once, after a start), entries left idle by others,
        then new ones (blocking up to `block_ms`). Returns how many entries were acknowledged."""
        if not self._group_ready:
            await self.ensure_group()
        acked = 0
        if not self._own_pending_done:
            acked += await self._recover_own_pending()
            self._own_pending_done = True
        acked += await self._handle_all(await self._claim_idle())
        async with self.stats.call(blocking_seconds=self.block_ms / 1000):
            reply = await self._redis.xreadgroup(
                GROUP, self.consumer, {INBOX_KEY: ">"}, count=self.batch, block=self.block_ms
            )
        acked += await self._handle_all(_entries(reply))
        self._acked_since_trim += acked
        if self._acked_since_trim >= TRIM_EVERY or (acked == 0 and self._acked_since_trim):
            await self.trim()
        return acked

    async def run(self) -> None:
        """Step until cancelled; Redis outages are waited out with capped backoff."""
        delay = _FIRST_DELAY
        task = asyncio.current_task()
        while True:
            if task is not None and task.cancelling():
                # A cancellation some library swallowed (redis-py can, on Python 3.11).
                raise asyncio.CancelledError
            try:
                await self.step()
                delay = _FIRST_DELAY
            except ResponseError as error:
                # The inbox was deleted under us (a flushed database): start it over. A step
                # finds it gone as NOGROUP, or blocked in XREADGROUP as UNBLOCKED, or between the
                # trim's calls (XINFO) as "no such key".
                if not str(error).startswith(("NOGROUP", "UNBLOCKED", "no such key")):
                    raise
                log.warning("stats projector: the inbox is gone (%s); recreating it", error)
                self._group_ready = False
                self._claim_cursor = "0-0"
            except TRANSIENT_REDIS_ERRORS + (StatsUnavailable, StoreUnavailable) as error:
                log.warning("stats projector: %s; retrying in %.1fs", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_DELAY)

    def start(self) -> None:
        """Run in a task of the current event loop until `stop()`."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        """Cancel the task: an entry being handled stays pending and is handled again."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def trim(self) -> None:
        """Drop acknowledged entries from the inbox, and long-dead consumers from the group."""
        self._acked_since_trim = 0
        async with self.stats.call():
            summary = await self._redis.xpending(INBOX_KEY, GROUP)
            if summary["pending"]:
                oldest_needed = summary["min"]
            else:
                groups = await self._redis.xinfo_groups(INBOX_KEY)
                oldest_needed = next(g["last-delivered-id"] for g in groups if g["name"] == GROUP)
            await self._redis.xtrim(INBOX_KEY, minid=oldest_needed, approximate=False)
            for consumer in await self._redis.xinfo_consumers(INBOX_KEY, GROUP):
                if (
                    consumer["name"] != self.consumer
                    and not consumer["pending"]
                    and consumer["idle"] > FORGET_CONSUMER_AFTER_MS
                ):
                    await self._redis.xgroup_delconsumer(INBOX_KEY, GROUP, consumer["name"])

    async def _recover_own_pending(self) -> int:
        """Entries delivered to this consumer name before a restart and never acknowledged."""
        acked, after = 0, "0"
        while True:
            async with self.stats.call():
                reply = await self._redis.xreadgroup(
                    GROUP, self.consumer, {INBOX_KEY: after}, count=self.batch
                )
            entries = _entries(reply)
            if not entries:
                return acked
            acked += await self._handle_all(entries)
            after = entries[-1][0]

    async def _claim_idle(self) -> list[Entry]:
        """Take over entries any consumer (a dead one, or this one after a failure) has held
        for `claim_idle_ms` without acknowledging them."""
        async with self.stats.call():
            reply = await self._redis.xautoclaim(
                INBOX_KEY,
                GROUP,
                self.consumer,
                self.claim_idle_ms,
                start_id=self._claim_cursor,
                count=self.batch,
            )
        self._claim_cursor = reply[0]
        return [(entry_id, fields) for entry_id, fields in reply[1] if entry_id is not None]

    async def _handle_all(self, entries: list[Entry]) -> int:
        acked = 0
        for entry_id, fields in entries:
            if await self._handle(entry_id, fields):
                async with self.stats.call():
                    await self._redis.xack(INBOX_KEY, GROUP, entry_id)
                acked += 1
        return acked

    async def _handle(self, entry_id: str, fields: dict[str, str]) -> bool:
        """Apply the entry's game; True when it may be acknowledged. A failure that may heal
        leaves it pending, to be claimed again after `claim_idle_ms`."""
        game_id = fields.get(GAME_ID_FIELD, "")
        try:
            if not game_id:
                log.warning("stats inbox entry %s names no game; dropped", entry_id)
                return True
            if await self.stats.is_applied(game_id):
                return True
            result = await read_result(self.store, game_id)
            await self.stats.apply(result, _announced_ms(entry_id))
            return True
        except (GameNotOver, MalformedMessage) as error:
            log.error("stats: game %s cannot be recorded (%s); dropped", game_id, error)
            return True
        except (StatsUnavailable, StoreUnavailable) as error:
            log.warning("stats: game %s not recorded yet (%s); will retry", game_id, error)
            return False
        except Exception:  # one bad game must not stop the projector; it is retried later
            log.exception("stats: recording game %s failed; will retry", game_id)
            return False


async def announce_unrecorded(store: RedisEventStore, stats: RedisStats) -> int:
    """Queue every finished game the projection has not applied; return how many.

    For operators after an incident: a game service that died between appending GameEnded and
    announcing it leaves a finished game nobody announced. Scans every game stream (SCAN, so
    Redis stays responsive), reading only each stream's last entry.
    """
    queued = 0
    pattern = store.stream_key("*")
    async for raw_key in store.redis.scan_iter(match=pattern):
        key = raw_key.decode() if isinstance(raw_key, bytes) else raw_key
        game_id = key[key.index("{") + 1 : key.rindex("}")]
        if await stats.is_applied(game_id):
            continue
        version = await store.version(game_id)
        last = await store.read(game_id, after_version=version - 1) if version else []
        if last and isinstance(decode_record(last[0].payload).event, GameEnded):
            await stats.record_finished(game_id)
            queued += 1
    return queued
