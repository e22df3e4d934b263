"""What a user of the live reader does, for the tests: take batches, and on a resync read again
from the last entry handled, as a real user (the event store, the notifications, chat) does."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from services.redislive import Batch, Resync, Subscription, fields_of


class Follower:
    """The values (field ``v``) of one stream's entries after a cursor, via a subscription."""

    def __init__(
        self, client: Redis | RedisCluster, key: str, subscription: Subscription, after: bytes
    ) -> None:
        self.client = client
        self.key = key
        self.subscription = subscription
        self.last = after
        self.values: list[bytes] = []
        self.resyncs: list[str] = []

    async def take(self, count: int, timeout: float = 30) -> list[bytes]:
        """Follow until ``count`` values have arrived in all (failing after ``timeout``)."""
        async with asyncio.timeout(timeout):
            while len(self.values) < count:
                item = await self.subscription.next()
                if isinstance(item, Resync):
                    self.resyncs.append(item.why)
                    await self._read_again()
                else:
                    self._handle(item)
        return self.values

    def _handle(self, batch: Batch) -> None:
        for entry_id, fields in batch.entries:
            self.values.append(fields_of((entry_id, fields))[b"v"])
            self.last = entry_id

    async def _read_again(self) -> None:
        entries = await self.client.xrange(self.key, b"(" + self.last, "+")
        for entry_id, fields in entries:
            self.values.append(fields[b"v"])
            self.last = entry_id
