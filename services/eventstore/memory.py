"""In-process event store: the embedded mode's store and the fast fake for tests.

All state lives in one asyncio event loop. Appends never await, so an append is atomic by
construction (no other coroutine runs between the version check and the write), which gives the
same all-or-nothing, one-winner semantics as the Redis script without any locking.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

from .base import (
    GENESIS_HASH,
    EventStore,
    StoreClosed,
    StoredEvent,
    VersionConflict,
    chain_events,
    check_append_args,
    check_game_id,
    check_read_args,
)


class InMemoryEventStore(EventStore):
    """Event logs in a dict, with live subscribers woken by per-subscriber futures.

    Each waiting subscriber parks on its own future, registered under its game and removed when
    it stops waiting, so an abandoned subscription leaves nothing behind and an append wakes
    only the subscribers of its own game (no polling, no thundering herd across games).
    """

    def __init__(self) -> None:
        self._logs: dict[str, list[StoredEvent]] = {}
        self._waiters: dict[str, set[asyncio.Future[None]]] = {}
        self._subscriptions = 0
        self._closed = False

    async def append(
        self, game_id: str, expected_version: int, payloads: Sequence[bytes]
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.append`."""
        self._check_open()
        check_append_args(game_id, expected_version, payloads)
        log = self._logs.get(game_id, [])
        if len(log) != expected_version:
            raise VersionConflict(game_id, expected_version, len(log))
        prev_hash = log[-1].hash if log else GENESIS_HASH
        events = chain_events(game_id, expected_version, prev_hash, payloads)
        self._logs.setdefault(game_id, log).extend(events)
        for waiter in self._waiters.pop(game_id, set()):
            if not waiter.done():
                waiter.set_result(None)
        return events

    async def confirm(self, game_id: str) -> None:
        """See :meth:`EventStore.confirm`: a log in this process has no replicas to wait for."""
        self._check_open()
        check_game_id(game_id)

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.read`."""
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, limit)
        log = self._logs.get(game_id, [])
        end = None if limit is None else after_version + limit
        return log[after_version:end]

    async def version(self, game_id: str) -> int:
        """See :meth:`EventStore.version`."""
        self._check_open()
        check_game_id(game_id)
        return len(self._logs.get(game_id, []))

    async def head(self, game_id: str) -> tuple[int, str]:
        """See :meth:`EventStore.head`."""
        self._check_open()
        check_game_id(game_id)
        log = self._logs.get(game_id)
        return (len(log), log[-1].hash) if log else (0, GENESIS_HASH)

    async def subscribe(
        self, game_id: str, after_version: int = 0
    ) -> AsyncGenerator[StoredEvent, None]:
        """See :meth:`EventStore.subscribe`.

        Reads the log by position on every wake-up, so events appended while the consumer was
        busy between two ``__anext__`` calls are never lost, and never delivered twice.
        """
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, None)
        delivered = after_version
        self._subscriptions += 1
        try:
            while True:
                self._check_open()
                log = self._logs.get(game_id, [])
                if len(log) > delivered:
                    for event in log[delivered:]:
                        delivered = event.version
                        yield event
                    continue
                waiter = asyncio.get_running_loop().create_future()
                waiters = self._waiters.setdefault(game_id, set())
                waiters.add(waiter)
                try:
                    await waiter
                finally:
                    waiters.discard(waiter)
                    if not waiters and self._waiters.get(game_id) is waiters:
                        del self._waiters[game_id]
        finally:
            self._subscriptions -= 1

    @property
    def live_subscriptions(self) -> int:
        """See :attr:`EventStore.live_subscriptions`."""
        return self._subscriptions

    @property
    def parked_waiters(self) -> int:
        """Subscribers currently parked waiting for an append (tests check none leak)."""
        return sum(len(waiters) for waiters in self._waiters.values())

    async def close(self) -> None:
        """Wake every parked subscriber so that it raises :class:`StoreClosed`. Idempotent."""
        self._closed = True
        for waiters in self._waiters.values():
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        self._waiters.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("the in-memory event store is closed")
