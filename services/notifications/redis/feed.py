"""The outbound feed on a Redis Cluster: a stream per shard, written behind the inboxes.

On a standalone Redis the publish script writes the one feed stream itself, atomically with the
inbox. On a cluster the feed is ``OUTBOUND_SHARDS`` streams whose hash tags spread them over the
masters (:mod:`.keys`), and no script may write another slot's key: the adapter hands each
notification it stored to :class:`ClusterFeed`, which writes every shard's entries in the order
they came (so a player's, who all go to one shard, stay in order), in batches, from a task per
shard. A shard whose master cannot be reached keeps its entries and retries with backoff, each
attempt bounded; the other shards go on. What a shard keeps waiting is bounded by the shard's
length on Redis (``MAXLEN ~``, which would trim the oldest as soon as they are written): beyond
that the oldest are dropped, with a warning.

What a process still holds for the feed is lost with it (the player's inbox keeps the
notification), and a write whose reply was lost is written again (the entry is then on the feed
twice): see docs/OPERATING.md.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from redis.exceptions import ClusterDownError
from redis.typing import EncodableT, FieldT

from services.tasks import cancel_and_wait

from .nodes import ClusterNodes, transient

logger = logging.getLogger(__name__)

Fields = dict[FieldT, EncodableT]

#: Entries one write sends at most.
_BATCH = 100
_RETRY_FIRST_DELAY = 0.05
_RETRY_MAX_DELAY = 2.0


@dataclass(eq=False)
class _Shard:
    key: str
    waiting: deque[Fields] = field(default_factory=deque)
    writing: int = 0  # entries of the write under way
    task: asyncio.Task[None] | None = None
    added: int = 0  # entries ever handed to the shard
    settled: int = 0  # of those, the first `settled` are written or dropped


class ClusterFeed:
    """The outbound feed's shards `keys`, each trimmed to about `maxlen` entries."""

    def __init__(
        self, nodes: ClusterNodes, keys: Sequence[str], *, maxlen: int, timeout: float
    ) -> None:
        self._nodes = nodes
        self._shards = [_Shard(key) for key in keys]
        self._maxlen = maxlen
        self._timeout = timeout
        self._progress = asyncio.Event()

    @property
    def waiting(self) -> int:
        """Entries not written yet (waiting, or in a write under way)."""
        return sum(len(shard.waiting) + shard.writing for shard in self._shards)

    def add(self, shard: int, fields: Fields) -> int:
        """Write `fields` to shard `shard` after what it was handed before; the entry's mark
        for :meth:`written`."""
        each = self._shards[shard]
        each.waiting.append(fields)
        each.added += 1
        if not each.writing:
            self._trim(each)
        if each.task is None or each.task.done():
            each.task = asyncio.get_running_loop().create_task(
                self._run(each), name=f"notify-outbound-{shard}"
            )
        return each.added

    async def written(self, marks: Mapping[int, int], timeout: float) -> bool:
        """Wait until every shard named in `marks` has written (or dropped) its entries up to
        the mark; False when `timeout` ran out first (they are written later)."""
        try:
            async with asyncio.timeout(timeout):
                while any(self._shards[shard].settled < mark for shard, mark in marks.items()):
                    self._progress.clear()
                    await self._progress.wait()
        except TimeoutError:
            return False
        return True

    async def close(self, timeout: float) -> None:
        """Write what waits, for at most `timeout` seconds, then stop."""
        marks = {index: shard.added for index, shard in enumerate(self._shards)}
        if self.waiting:
            await self.written(marks, timeout)
        for shard in self._shards:
            if shard.task is not None:
                await cancel_and_wait(shard.task)
                shard.task = None
        if self.waiting:
            logger.warning("shutting down: %d outbound feed entries not written", self.waiting)

    def _settle(self, shard: _Shard, count: int) -> None:
        shard.settled += count
        self._progress.set()

    def _trim(self, shard: _Shard) -> None:
        """Drop the oldest waiting entries beyond the shard's length."""
        excess = len(shard.waiting) - self._maxlen
        if excess > 0:
            for _ in range(excess):
                shard.waiting.popleft()
            self._settle(shard, excess)
            logger.warning(
                "outbound feed shard %s: %d entries more than it keeps waited to be written; "
                "the oldest dropped",
                shard.key,
                excess,
            )

    async def _run(self, shard: _Shard) -> None:
        delay = _RETRY_FIRST_DELAY
        while shard.waiting:
            batch = [shard.waiting.popleft() for _ in range(min(_BATCH, len(shard.waiting)))]
            shard.writing = len(batch)
            try:
                await self._write(shard.key, batch)
            except Exception as error:
                shard.writing = 0
                if not transient(error):
                    logger.error(
                        "outbound feed shard %s refused %d entries (%r); dropped",
                        shard.key,
                        len(batch),
                        error,
                    )
                    self._settle(shard, len(batch))
                    continue
                shard.waiting.extendleft(reversed(batch))
                self._trim(shard)
                self._nodes.refresh_soon()
                logger.warning(
                    "outbound feed shard %s unreachable (%r); retry in %.2fs",
                    shard.key,
                    error,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX_DELAY)
                continue
            shard.writing = 0
            self._settle(shard, len(batch))
            self._trim(shard)
            delay = _RETRY_FIRST_DELAY

    async def _write(self, key: str, batch: Sequence[Fields]) -> None:
        """One ``XADD`` per entry, pipelined to the shard's master, bounded in time."""
        address = self._nodes.address_of(key)
        if not address:
            raise ClusterDownError(f"no master known for {key}")
        client = self._nodes.client_at(address)
        async with asyncio.timeout(self._timeout):
            pipe = client.pipeline(transaction=False)
            for fields in batch:
                pipe.xadd(key, fields, maxlen=self._maxlen, approximate=True)
            await pipe.execute()
