"""A subscription to one stream of the live reader (:mod:`.reader`), and what it hands out:
:class:`Batch` of entries, :class:`Resync`, or the end (:class:`ReaderFailed`,
:class:`ReaderClosed`, or what the user's ``on_arrival`` returned)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

EntryId = tuple[int, int]
"""A stream entry id as numbers (milliseconds, sequence): ordered as Redis orders them."""

Entry = tuple[bytes, list[bytes]]
"""One stream entry as Redis returns it: its id and its fields, ``[name, value, ...]``."""


def parse_entry_id(entry_id: bytes | str) -> EntryId:
    """``b"1700000000000-3"`` as ``(1700000000000, 3)``; a bare ``b"5"`` is ``(5, 0)``."""
    raw = entry_id.encode() if isinstance(entry_id, str) else entry_id
    millis, _, seq = raw.partition(b"-")
    try:
        return int(millis), int(seq or b"0")
    except ValueError:
        raise ValueError(f"{raw!r} is not a stream entry id") from None


def format_entry_id(entry_id: EntryId) -> bytes:
    return b"%d-%d" % entry_id


class ReaderFailed(Exception):
    """The reader met an error that would recur (a key of a foreign type, say): every
    subscription ends with this, its ``cause`` the error. A new subscription starts afresh."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"live reader failed: {type(cause).__name__}: {cause}")
        self.cause = cause


class ReaderClosed(Exception):
    """The reader was closed: its subscriptions end with this."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Entries that followed the subscription's cursor (or the previous batch), in order."""

    entries: list[Entry]

    @property
    def last_id(self) -> bytes:
        return self.entries[-1][0]


@dataclass(frozen=True, slots=True)
class Resync:
    """Entries may have been dropped for this subscription: read again from the last entry
    handled (``XRANGE``); the subscription goes on after it. ``why``: ``"behind"`` (it joined
    behind what the reader already handed others), ``"overflow"`` (its queue was full),
    ``"reconnected"`` (asked for with ``resync_on_reconnect``)."""

    why: str


class Subscription:
    """One subscriber's view of one stream: ``await next()`` (or ``async for``) gives a
    :class:`Batch` or a :class:`Resync`; :meth:`close` unsubscribes. Entries wait in a queue of
    at most ``limit``; past that it is dropped and the subscriber told to :class:`Resync`."""

    def __init__(
        self,
        leave: Callable[[Subscription], None],
        key: bytes,
        after: EntryId,
        *,
        limit: int,
        on_arrival: Callable[[int], BaseException | None] | None,
        resync_on_reconnect: bool,
    ) -> None:
        self.key = key
        self._leave = leave
        self._after = after
        self._limit = limit
        self._on_arrival = on_arrival
        self.resync_on_reconnect = resync_on_reconnect
        self._queue: list[Entry] = []
        self._resync: str | None = None
        self._failure: BaseException | None = None
        self._wakeup = asyncio.Event()
        self._closed = False

    async def next(self) -> Batch | Resync:
        """The next batch, or a resync; waits for one. Raises :class:`ReaderFailed`,
        :class:`ReaderClosed`, or what ``on_arrival`` returned."""
        while True:
            if self._failure is not None:
                raise self._failure
            if self._resync is not None:
                why, self._resync = self._resync, None
                self._queue.clear()
                return Resync(why)
            if self._queue:
                entries, self._queue = self._queue, []
                return Batch(entries)
            if self._closed:
                raise ReaderClosed("the subscription was closed")
            self._wakeup.clear()
            await self._wakeup.wait()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Batch | Resync:
        return await self.next()

    @property
    def waiting(self) -> int:
        """Entries queued for the subscriber."""
        return len(self._queue)

    def close(self) -> None:
        """Unsubscribe (idempotent): the reader stops reading the stream once nobody follows
        it."""
        if not self._closed:
            self._closed = True
            self._leave(self)
            self._wakeup.set()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def _offer(self, entries: list[tuple[EntryId, Entry]]) -> bool:
        """Take the entries after this subscription's cursor; False when ``on_arrival`` cut it
        off (it then ends with what that returned)."""
        after = self._after
        fresh = [entry for entry_id, entry in entries if entry_id > after]
        if not fresh:
            return True
        self._after = entries[-1][0]
        if self._on_arrival is not None:
            cut = self._on_arrival(len(fresh))
            if cut is not None:
                self.fail(cut)
                return False
        if self._resync is None:
            if len(self._queue) + len(fresh) > self._limit:
                self._queue.clear()
                self._resync = "overflow"
            else:
                self._queue.extend(fresh)
        self._wakeup.set()
        return True

    def resync(self, why: str) -> None:
        self._queue.clear()
        self._resync = why
        self._wakeup.set()

    def fail(self, error: BaseException) -> None:
        self._failure = error
        self._queue.clear()
        self._wakeup.set()


def fields_of(entry: Entry) -> dict[bytes, bytes]:
    """An entry's fields by name."""
    fields = entry[1]
    return dict(zip(fields[::2], fields[1::2], strict=True))
