"""Notifications in memory: the embedded server's and the tests' adapter.

It behaves as the Redis adapter does, cursors included ("<ms>-<seq>", increasing per player),
so clients cannot tell them apart; what it keeps is lost when the process ends.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from functools import partial

from services.errors import ServiceError
from services.mailbox import Mailbox, drain

from .kinds import ORIGIN, Notification, Position, Received, parse_cursor
from .port import (
    DEDUPE_SECONDS,
    DEFAULT_INBOX_LIMIT,
    DEFAULT_OUTBOUND_MAXLEN,
    KEEP_PER_PLAYER,
    KEEP_SECONDS,
    Notifications,
    NotificationsUnavailable,
    OutboundEntry,
    Published,
    SlowReader,
    check_resumable,
)

#: Dedupe keys remembered at most (the oldest go first), whatever their age.
MAX_DEDUPE_KEYS = 1_000_000


def _next_position(last: Position, now_ms: int) -> Position:
    """The position after `last` at `now_ms`, as Redis numbers stream entries."""
    return (now_ms, 0) if now_ms > last[0] else (last[0], last[1] + 1)


@dataclass(eq=False)
class _Inbox:
    entries: deque[Received] = field(default_factory=deque)
    last: Position = ORIGIN
    deleted: Position = ORIGIN


class InMemoryNotifications(Notifications):
    """:class:`Notifications` in this process's memory (see the module docstring)."""

    def __init__(
        self,
        *,
        keep: int = KEEP_PER_PLAYER,
        keep_seconds: float = KEEP_SECONDS,
        dedupe_seconds: float = DEDUPE_SECONDS,
        outbound_maxlen: int = DEFAULT_OUTBOUND_MAXLEN,
        inbox_limit: int = DEFAULT_INBOX_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._keep = keep
        self._keep_ms = int(keep_seconds * 1000)
        self._dedupe_seconds = dedupe_seconds
        self._clock = clock
        self.inbox_limit = inbox_limit
        self._inboxes: dict[str, _Inbox] = {}
        self._subscribers: dict[str, set[Mailbox[Received]]] = {}
        # (player, dedupe key) -> when it is forgotten, oldest first.
        self._seen: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._outbound: deque[OutboundEntry] = deque(maxlen=outbound_maxlen or None)
        self._outbound_on = outbound_maxlen > 0
        self._outbound_last = ORIGIN
        self._closed = False

    async def publish_each(self, notifications: Sequence[Notification]) -> list[Published]:
        """See :meth:`Notifications.publish_each` (memory is always reachable)."""
        self._check_open()
        now = self._clock()
        self._forget_seen(now)
        stored: list[Published] = []
        for notification in notifications:
            seen = (notification.player_id, notification.key)
            if seen in self._seen:
                stored.append(None)
                continue
            self._seen[seen] = now + self._dedupe_seconds
            stored.append(self._store(notification, int(now * 1000)))
        return stored

    def _store(self, notification: Notification, now_ms: int) -> Received:
        inbox = self._inboxes.setdefault(notification.player_id, _Inbox())
        inbox.last = _next_position(inbox.last, now_ms)
        received = Received(inbox.last, notification)
        inbox.entries.append(received)
        self._trim(inbox, now_ms)
        if self._outbound_on:
            self._outbound_last = _next_position(self._outbound_last, now_ms)
            self._outbound.append(OutboundEntry(self._outbound_last, received.cursor, notification))
        subscribers = self._subscribers.get(notification.player_id, set())
        for subscriber in list(subscribers):
            if not subscriber.deliver(received):
                self._leave(subscriber)
        return received

    def _trim(self, inbox: _Inbox, now_ms: int) -> None:
        entries = inbox.entries
        oldest_kept = now_ms - self._keep_ms
        while entries and (len(entries) > self._keep or entries[0].position[0] < oldest_kept):
            inbox.deleted = entries.popleft().position

    def _forget_seen(self, now: float) -> None:
        seen = self._seen
        while seen and (len(seen) > MAX_DEDUPE_KEYS or next(iter(seen.values())) <= now):
            seen.popitem(last=False)

    async def _read_after(self, player_id: str, after: Position, limit: int) -> list[Received]:
        self._check_open()
        inbox = self._inboxes.get(player_id)
        now_ms = int(self._clock() * 1000)
        if inbox is not None:
            self._trim(inbox, now_ms)
        check_resumable(
            after,
            now_ms=now_ms,
            oldest_kept_ms=now_ms - self._keep_ms,
            exists=inbox is not None,
            last=inbox.last if inbox else ORIGIN,
            deleted=inbox.deleted if inbox else ORIGIN,
        )
        if inbox is None:
            return []
        found = []
        for received in inbox.entries:
            if received.position > after:
                found.append(received)
                if len(found) == limit:
                    break
        return found

    async def _head(self, player_id: str) -> Position:
        self._check_open()
        inbox = self._inboxes.get(player_id)
        return ORIGIN if inbox is None else inbox.last

    async def outbound(
        self, after_cursor: str = "0-0", limit: int = 100, shard: int = 0
    ) -> list[OutboundEntry]:
        """See :meth:`Notifications.outbound` (one shard)."""
        if shard != 0:
            raise ValueError(f"the outbound feed has one shard here, not {shard + 1}")
        after = parse_cursor(after_cursor)
        return [entry for entry in self._outbound if entry.feed_position > after][:limit]

    async def _follow(
        self,
        player_id: str,
        delivered: Position,
        *,
        limit: int,
        stall_limit: float | None,
        on_cut: Callable[[ServiceError], None] | None,
    ) -> AsyncGenerator[Received, None]:
        """See :meth:`Notifications._follow`: a `services.mailbox.Mailbox`, filled as each
        notification is stored."""
        subscriber: Mailbox[Received] = Mailbox(
            player_id, delivered, limit, slow=SlowReader, stall_limit=stall_limit, on_cut=on_cut
        )
        await self._join(subscriber)
        try:
            async with aclosing(drain(subscriber, partial(self._catch_up, player_id))) as live:
                async for received in live:
                    yield received
        finally:
            self._leave(subscriber)

    async def _join(self, subscriber: Mailbox[Received]) -> None:
        self._check_open()
        if await self._head(subscriber.key) > subscriber.delivered:
            subscriber.resync = True
        self._subscribers.setdefault(subscriber.key, set()).add(subscriber)

    def _leave(self, subscriber: Mailbox[Received]) -> None:
        subscribers = self._subscribers.get(subscriber.key)
        if subscribers is not None:
            subscribers.discard(subscriber)
            if not subscribers:
                del self._subscribers[subscriber.key]

    @property
    def live_subscriptions(self) -> int:
        return sum(len(subscribers) for subscribers in self._subscribers.values())

    async def close(self) -> None:
        """See :meth:`Notifications.close`: open subscriptions end with UNAVAILABLE."""
        if self._closed:
            return
        self._closed = True
        for subscribers in self._subscribers.values():
            for subscriber in subscribers:
                subscriber.fail(NotificationsUnavailable("the server is shutting down"))
        self._subscribers.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise NotificationsUnavailable("the server is shutting down")
