"""The `Notifications` port: every player's notifications, kept for a while, readable from a
cursor and followed live; and the outbound feed a push gateway consumes.

Two adapters: in memory (embedded `verrater serve`, tests) and Redis (`redis/`). Both
keep, per player, about the last `KEEP_PER_PLAYER` notifications for at most `KEEP_SECONDS`, and
store a notification once per dedupe key (`kinds.py`) within `DEDUPE_SECONDS`. Publishing says
what became of each notification (`Published`), so that one store away (a Redis Cluster
master) holds up only the notifications it holds; a player's notifications keep their order.

A live subscription catches up by reading, then takes what the adapter's one fan-out per process
hands it (in memory through a `services.mailbox.Mailbox`, the one chat's followers use too).
What waits for a subscriber is bounded: past `inbox_limit` it re-reads from its last cursor once
it pulls again (memory stays bounded, nothing is lost); when the caller asked for `max_waiting`,
a subscriber that stopped taking notifications is cut off with SLOW_READER.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from services.errors import Reason, ServiceError

from .kinds import (
    ORIGIN,
    InvalidCursor,
    Notification,
    Position,
    Received,
    format_cursor,
    parse_cursor,
)

#: Notifications kept per player (about that many on Redis, which trims whole stream nodes).
KEEP_PER_PLAYER = 1000
#: How long a notification is kept at most (7 days).
KEEP_SECONDS = 7 * 24 * 3600
#: How long a dedupe key is remembered: longer than the longest turn timer (14 days), so a
#: decision still awaited is never announced twice however often its game is reloaded.
DEDUPE_SECONDS = 15 * 24 * 3600
#: Notifications a live subscriber may have waiting before it re-reads instead.
DEFAULT_INBOX_LIMIT = 256
#: Entries the outbound feed keeps at most by default (about, on Redis).
DEFAULT_OUTBOUND_MAXLEN = 100_000
#: How many notifications one catch-up read asks for.
READ_BATCH = 200
#: How long a consumer may take no notification, while too many arrive, before it is cut off.
STALL_LIMIT = 1.0
#: How far a cursor's time (the store's clock when it was stored) may be ahead of this
#: process's clock before the cursor cannot have been handed out.
CURSOR_CLOCK_SKEW_MS = 10 * 60 * 1000


class CursorExpired(ServiceError):
    def __init__(self, cursor: str) -> None:
        super().__init__(
            Reason.CURSOR_EXPIRED,
            f"notifications after cursor {cursor} are no longer kept (1000 per player, 7 days): "
            "reconcile with ListMyGames, then watch from now (no cursor)",
            cursor=cursor,
        )


class SlowReader(ServiceError):
    def __init__(self, waiting: int) -> None:
        super().__init__(
            Reason.SLOW_READER,
            f"{waiting} notifications waited for this stream's client, which does not read "
            "them: read every message, then watch again from the last cursor you handled",
            max_pending=str(waiting),
        )


class NotificationsUnavailable(ServiceError):
    def __init__(self, why: str) -> None:
        super().__init__(
            Reason.STORE_UNAVAILABLE, f"notifications are unavailable ({why}); retry shortly"
        )


class NotificationRefused(ServiceError):
    """The store refused a notification for good (a key of a foreign type, say): publishing it
    again cannot succeed. Never sent to a client: the publisher logs it and drops it."""

    def __init__(self, why: str) -> None:
        super().__init__(Reason.INTERNAL, f"the store refused a notification ({why})")


Published: TypeAlias = Received | ServiceError | None
"""What became of one published notification: stored (its :class:`Received`), None when its
dedupe key was stored before (a repeated fact), or why not: :class:`NotificationsUnavailable`
when its store could not be reached (publish it again later: it may have been stored, which the
dedupe key then finds), :class:`NotificationRefused` when it never can be."""


def stored_or_raise(published: Sequence[Published]) -> list[Received | None]:
    """What :meth:`Notifications.publish` answers for `published`: each notification stored
    (or None, stored before), or the first failure raised."""
    stored: list[Received | None] = []
    for outcome in published:
        if isinstance(outcome, ServiceError):
            raise outcome
        stored.append(outcome)
    return stored


def check_resumable(
    position: Position,
    *,
    now_ms: int,
    oldest_kept_ms: int,
    exists: bool,
    last: Position,
    deleted: Position,
) -> None:
    """Refuse to read after `position` unless every notification after it is still kept.

    `deleted` is the player's last notification dropped by retention: a cursor below it lost
    what followed ("0-0", before everything, too). A cursor older than the retention
    (`oldest_kept_ms`) has expired as well, and so has any cursor of a player with nothing kept
    (`exists` false: nothing stored for `KEEP_SECONDS`, or a store that lost its data). `last`
    is the player's last notification ever stored: a cursor beyond it was not handed out here,
    nor was one dated after `now_ms` (beyond `CURSOR_CLOCK_SKEW_MS`), kept or not.
    """
    if position[0] > now_ms + CURSOR_CLOCK_SKEW_MS:
        raise InvalidCursor(format_cursor(position), "is dated in the future")
    if not exists:
        if position > ORIGIN:
            raise CursorExpired(format_cursor(position))
        return
    if position < deleted or (position > ORIGIN and position[0] < oldest_kept_ms):
        raise CursorExpired(format_cursor(position))
    if position > last:
        raise InvalidCursor(format_cursor(position), "is beyond your last notification")


@dataclass(frozen=True, slots=True)
class OutboundEntry:
    """One entry of the outbound feed: a notification, its cursor in its player's
    notifications, and where the entry stands in the feed."""

    feed_position: Position
    cursor: str
    notification: Notification


class Notifications(ABC):
    """Every player's notifications (see the module docstring)."""

    inbox_limit: int = DEFAULT_INBOX_LIMIT

    #: The outbound feed's shards (see :meth:`outbound`).
    outbound_shards: int = 1

    @abstractmethod
    async def publish_each(self, notifications: Sequence[Notification]) -> list[Published]:
        """Store each notification for its player and on the outbound feed; what became of
        each, in order (see :data:`Published`).

        A player's notifications are stored in the order given, and one that was not stored is
        never followed by a stored one of the same player from the same call. A store that
        cannot be reached (a Redis Cluster master away) fails only the notifications it holds,
        and only after a bounded wait. It may raise :class:`NotificationsUnavailable` instead
        when it reached no store at all."""

    async def publish(self, notifications: Sequence[Notification]) -> list[Received | None]:
        """Store each notification for its player and on the outbound feed, in order; a
        notification whose dedupe key was stored before is dropped (None in its place). Raises
        the first failure of :meth:`publish_each` (the others were stored: publishing all of
        them again stores only what was missing)."""
        return stored_or_raise(await self.publish_each(notifications))

    def route(self, player_id: str) -> str:
        """Which of the adapter's stores holds the player's notifications now: on a Redis
        Cluster the address of the master serving the player's slot, "" where there is one
        store. A :class:`Publisher` keeps a queue per store, so one store's outage delays
        only the players it holds."""
        return ""

    async def read(self, player_id: str, after_cursor: str, limit: int) -> list[Received]:
        """At most `limit` of the player's notifications after the cursor ("0-0": from the
        first). InvalidCursor for a cursor not handed out here, CursorExpired when what
        followed it is no longer kept."""
        return await self._read_after(player_id, parse_cursor(after_cursor), limit)

    @abstractmethod
    async def _read_after(self, player_id: str, after: Position, limit: int) -> list[Received]:
        """:meth:`read`, from a parsed cursor."""

    @abstractmethod
    async def _head(self, player_id: str) -> Position:
        """The position of the player's last notification ((0, 0) before any)."""

    def outbound_shard(self, player_id: str) -> int:
        """The outbound feed's shard that carries the player's notifications, in their order."""
        return 0

    @abstractmethod
    async def outbound(
        self, after_cursor: str = "0-0", limit: int = 100, shard: int = 0
    ) -> list[OutboundEntry]:
        """A shard of the outbound feed after a feed cursor of that shard (a push gateway on
        Redis reads each shard's stream with a consumer group instead; see
        docs/OPERATING.md). There is one shard but on a Redis Cluster, where
        :attr:`outbound_shards` keys spread the feed over the masters."""

    @abstractmethod
    def _follow(
        self,
        player_id: str,
        delivered: Position,
        *,
        limit: int,
        stall_limit: float | None,
        on_cut: Callable[[ServiceError], None] | None,
    ) -> AsyncGenerator[Received, None]:
        """The player's notifications after `delivered` (caught up to already), live, as they
        are stored, until the caller stops: the adapter's fan-out, each subscription with at
        most `limit` waiting (past that it re-reads from its last position), cut off with
        SLOW_READER (`on_cut` told) when a `stall_limit` is given and `services.mailbox.Stall`
        says so."""

    @property
    @abstractmethod
    def live_subscriptions(self) -> int:
        """Subscriptions in this process that have caught up and wait for news."""

    @abstractmethod
    async def close(self) -> None:
        """End live subscriptions and release connections. Idempotent."""

    async def subscribe(
        self,
        player_id: str,
        after_cursor: str = "",
        *,
        max_waiting: int | None = None,
        stall_limit: float = STALL_LIMIT,
        on_cut: Callable[[ServiceError], None] | None = None,
    ) -> AsyncGenerator[Received, None]:
        """The player's notifications after the cursor (empty: from now), then each new one as
        it is stored, until the caller stops. Nothing is missed or repeated.

        With `max_waiting`, a subscription ends with SLOW_READER once more than that many
        notifications arrived while its consumer took none for `stall_limit` seconds; without,
        a consumer that falls behind re-reads from its last position; `on_cut` is told then.
        """
        if after_cursor:
            delivered = parse_cursor(after_cursor)
        else:
            delivered = await self._head(player_id)
        async for received in self._catch_up(player_id, delivered):
            delivered = received.position
            yield received
        live = self._follow(
            player_id,
            delivered,
            limit=self.inbox_limit if max_waiting is None else max_waiting,
            stall_limit=None if max_waiting is None else stall_limit,
            on_cut=on_cut,
        )
        async with contextlib.aclosing(live):  # closed with this subscription, not later
            async for received in live:
                yield received

    async def _catch_up(self, player_id: str, after: Position) -> AsyncGenerator[Received, None]:
        """Everything stored after `after`, read in batches."""
        while True:
            batch = await self._read_after(player_id, after, READ_BATCH)
            for received in batch:
                after = received.position
                yield received
            if len(batch) < READ_BATCH:
                return
