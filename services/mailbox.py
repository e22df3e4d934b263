"""One live follower's bounded mailbox, and the loop that drains it: what a table chat's
followers (services/chat) and a player's notification subscriptions (services/notifications)
share.

A store's fan-out hands each new item to every follower's `Mailbox` (`deliver`); the follower
takes them through `drain`, which reads the store again (its `catch_up`) whenever the mailbox
may have missed something. What waits for a follower is bounded: past `inbox_limit` the inbox is
dropped and the follower re-reads from the last position it handed on, so memory stays bounded
and nothing is lost or repeated. With a `stall_limit`, a follower whose consumer stopped taking
items is cut off (`Stall`) with the error its store names (SLOW_READER). `FanOut` hands a
stream's new items to its followers a slice at a time, so that other work of the process goes
between.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeAlias, TypeVar

from services.errors import ServiceError

Position: TypeAlias = tuple[int, int]
"""Where an item stands in its stream: (Unix ms, sequence), as Redis numbers stream entries."""


class Positioned(Protocol):
    @property
    def position(self) -> Position: ...


Item = TypeVar("Item", bound=Positioned)


@dataclass(eq=False)
class Stall:
    """Whether a live follower's consumer stopped taking items: with a `stall_limit`, once more
    than `limit` items arrived since it last took one and it has taken none for `stall_limit`
    seconds, while it is not waiting for news (`idle`). Counting alone would cut off a consumer
    that merely got a burst while it was handing on the previous item. Each fan-out counts
    arrivals here."""

    limit: int
    stall_limit: float | None = None
    #: Waiting for news (nothing it was handed is still with it: it cannot be slow).
    idle: bool = False
    #: Items that arrived since the consumer last took one, and when that was.
    arrived: int = 0
    taken_at: float = field(default_factory=time.monotonic)

    def arrive(self, count: int = 1) -> bool:
        """`count` items arrived: whether the consumer stalled (the follower is cut off)."""
        self.arrived += count
        return (
            self.stall_limit is not None
            and not self.idle
            and self.arrived > self.limit
            and time.monotonic() - self.taken_at >= self.stall_limit
        )

    def taken(self) -> None:
        """The consumer took an item and asks for the next."""
        self.arrived = 0
        self.taken_at = time.monotonic()


class Mailbox(Generic[Item]):
    """One live follower of the stream `key`, filled by its store's fan-out, drained by `drain`.

    `delivered` is the last position handed on (anything at or below it is a repeat); `resync`
    asks for a re-read after it (the fan-out was ahead on joining, the inbox overflowed, or the
    fan-out lost its place). A follower cut off as stalled fails with `slow(inbox_limit)`, and
    `on_cut` is told (its consumer is away then, perhaps stuck handing on an item nobody takes:
    see `rpc.cut_off`)."""

    def __init__(
        self,
        key: str,
        delivered: Position,
        inbox_limit: int,
        *,
        slow: Callable[[int], ServiceError],
        stall_limit: float | None = None,
        on_cut: Callable[[ServiceError], None] | None = None,
    ) -> None:
        self.key = key
        self.delivered = delivered
        self.inbox_limit = inbox_limit
        self.stall = Stall(inbox_limit, stall_limit)
        self.inbox: deque[Item] = deque()
        self.wakeup = asyncio.Event()
        self.resync = False
        self.failure: ServiceError | None = None
        self._slow = slow
        self._on_cut = on_cut

    def deliver(self, item: Item) -> bool:
        """Take one live item; False once this follower must leave the fan-out."""
        if self.failure is not None:
            return False
        if self.stall.arrive():
            self.inbox.clear()
            cut = self._slow(self.inbox_limit)
            self.fail(cut)
            if self._on_cut is not None:
                self._on_cut(cut)
            return False
        if not self.resync:
            if len(self.inbox) >= self.inbox_limit:
                self.inbox.clear()
                self.resync = True
            else:
                self.inbox.append(item)
        self.wakeup.set()
        return True

    def missed(self) -> None:
        """Something may not have reached this follower: re-read."""
        self.inbox.clear()
        self.resync = True
        self.wakeup.set()

    def fail(self, error: ServiceError) -> None:
        """End the follower with `error` (raised by `drain`)."""
        self.failure = error
        self.wakeup.set()


async def drain(
    mailbox: Mailbox[Item], catch_up: Callable[[Position], AsyncIterator[Item]]
) -> AsyncGenerator[Item, None]:
    """The mailbox's items in order, each once, reading `catch_up(after)` (everything stored
    after a position) when it must re-read, until the caller stops; raises its failure."""
    stall = mailbox.stall
    while True:
        if mailbox.failure is not None:
            raise mailbox.failure
        if mailbox.resync:
            mailbox.resync = False
            mailbox.inbox.clear()
            async for item in catch_up(mailbox.delivered):
                mailbox.delivered = item.position
                yield item
                stall.taken()
        elif mailbox.inbox:
            item = mailbox.inbox.popleft()
            if item.position > mailbox.delivered:
                mailbox.delivered = item.position
                yield item
                stall.taken()
        else:
            mailbox.wakeup.clear()
            stall.idle = True
            try:
                await mailbox.wakeup.wait()
            finally:
                stall.idle = False
                stall.taken()  # it was waiting: what arrived meanwhile is news


#: Followers handed an item per turn of the event loop: a thousand followers of one stream
#: woken at once would each take their turn before anything else the process does (a game's
#: decision waiting behind the whole fan-out); a slice at a time, other work goes between.
FAN_OUT_SLICE = 64


class FanOut(Generic[Item]):
    """The live followers of one stream in this process (`mailboxes`), and the task that hands
    them what `publish` is given, in order, `FAN_OUT_SLICE` followers per turn of the event
    loop. A follower that joins while an item is on its way may get it twice, or read it: its
    `drain` hands on each position once."""

    def __init__(self, slice_size: int = FAN_OUT_SLICE) -> None:
        self.mailboxes: set[Mailbox[Item]] = set()
        self._slice = slice_size
        self._pending: deque[Sequence[Item]] = deque()
        self._task: asyncio.Task[None] | None = None

    def publish(self, items: Sequence[Item]) -> None:
        """Hand `items` to every follower (soon: the fan-out's task does it)."""
        if not self.mailboxes:
            return
        self._pending.append(items)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._hand_out())

    def missed(self) -> None:
        """Every follower re-reads (something never reached this fan-out)."""
        for mailbox in self.mailboxes:
            mailbox.missed()

    def fail(self, error: ServiceError) -> None:
        """End every follower with `error`."""
        for mailbox in self.mailboxes:
            mailbox.fail(error)
        self.mailboxes.clear()
        self._pending.clear()

    async def _hand_out(self) -> None:
        try:
            while self._pending:
                items = self._pending.popleft()
                followers = list(self.mailboxes)
                for start in range(0, len(followers), self._slice):
                    if start:
                        await asyncio.sleep(0)
                    for mailbox in followers[start : start + self._slice]:
                        if not all(mailbox.deliver(item) for item in items):
                            self.mailboxes.discard(mailbox)
        finally:
            self._task = None

    async def settled(self) -> None:
        """Wait until everything published so far was handed out."""
        while self._task is not None:
            await asyncio.wait({self._task})

    async def close(self) -> None:
        """Stop handing out (what is pending is dropped)."""
        self._pending.clear()
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
