"""The Redis store's live tail: one reader per store, fanned out to in-process mailboxes.

A single blocking ``XREAD`` over all games that have subscribers, on one dedicated connection
(:class:`~.wire.ReaderConnection`), so a replica with thousands of watching clients holds two
Redis connections, not thousands. What a subscription does with its mailbox (catching up,
filling holes) is :meth:`RedisEventStore.subscribe <.store.RedisEventStore.subscribe>`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ..base import EventStoreError, StoredEvent
from .entries import events_from_entries
from .wire import ReaderConnection, Reply

logger = logging.getLogger(__name__)

# A read names every watched stream, so its cost grows with them: past a hundred watched games
# the reads are spaced further apart (200 games: 10 ms), keeping their total cost flat.
_SPACING_PER_STREAM = 0.000_05

RECONNECT_FIRST_DELAY = 0.05
RECONNECT_MAX_DELAY = 2.0


@dataclass(eq=False)
class Subscriber:
    """One live subscription's mailbox, filled by the hub and drained by its generator.

    ``delivered`` is the last version handed to the consumer; everything at or below it is a
    duplicate. ``resync`` asks the generator to re-read from Redis after ``delivered``: set when
    the hub was already past ``delivered`` on joining, or when the inbox overflowed because the
    consumer is slow (dropping and re-reading beats unbounded memory).
    """

    game_id: str
    delivered: int
    inbox_limit: int
    inbox: deque[StoredEvent] = field(default_factory=deque)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    resync: bool = False
    failure: EventStoreError | None = None

    def deliver(self, event: StoredEvent) -> None:
        if not self.resync:
            if len(self.inbox) >= self.inbox_limit:
                self.inbox.clear()
                self.resync = True
            else:
                self.inbox.append(event)
        self.wakeup.set()

    def fail(self, error: EventStoreError) -> None:
        self.failure = error
        self.wakeup.set()


class StreamHub:
    """The store's single live reader: one blocking ``XREAD`` over every subscribed game.

    It remembers, per game, the last version it has read (``positions``) and resumes from there
    after a timeout, a wake-up or a reconnect, so a Redis restart costs latency, not events.
    When the set of games changes, ``CLIENT UNBLOCK`` on the reader's connection makes the
    pending ``XREAD`` return at once so the next one includes the new game; if that races with
    the ``XREAD`` still in flight, the new game waits at most one block timeout.

    What it needs of its store comes in as functions: the stream key of a game, where to report
    each head it reads (the store's head cache), and how to send ``CLIENT UNBLOCK`` (on the
    store's own connections, with its timeout and error mapping).
    """

    def __init__(
        self,
        reader: ReaderConnection,
        *,
        name: str,
        stream_key: Callable[[str], str],
        remember_head: Callable[[str, int, str], None],
        unblock: Callable[[int], Awaitable[object]],
        block_ms: int,
        min_interval_ms: int,
        command_timeout: float,
    ) -> None:
        self._reader = reader
        self._name = name
        self._stream_key = stream_key
        self._remember_head = remember_head
        self._unblock = unblock
        self._block_ms = block_ms
        self._min_interval = min_interval_ms / 1000
        # The deadline of one read outlasts the server-side block; it catches a half-open
        # connection.
        self._read_deadline = block_ms / 1000 + command_timeout
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._positions: dict[str, int] = {}
        # Each watched game's stream key, and back: built at join, not on every XREAD.
        self._keys: dict[str, bytes] = {}
        self._games_by_key: dict[bytes, str] = {}
        self._changed = asyncio.Event()
        self._reader_id: int | None = None
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0
        """Reads finished, with events or without (a block that ran out, an ``XREAD`` skipped
        because everyone left while the reader connected): proof that the reader had its
        chance, for whoever waits to see what it did with it."""

    @property
    def subscriber_count(self) -> int:
        return sum(len(subscribers) for subscribers in self._subscribers.values())

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The running reader task, if any (exposed so tests can count readers)."""
        return self._task

    def join(self, subscriber: Subscriber) -> bool:
        """Start delivering the game's new events to ``subscriber``.

        Returns True when the game is new to the hub: the caller should then
        :meth:`interrupt_block` so the pending ``XREAD`` is re-issued with the new stream.
        """
        game_id = subscriber.game_id
        subscribers = self._subscribers.get(game_id)
        if subscribers is None:
            self._subscribers[game_id] = {subscriber}
            self._positions[game_id] = subscriber.delivered
            key = self._stream_key(game_id).encode()
            self._keys[game_id] = key
            self._games_by_key[key] = game_id
            self._start()
            self._changed.set()
            return True
        subscribers.add(subscriber)
        if self._positions[game_id] > subscriber.delivered:
            # The hub already handed events past this subscriber's catch-up read to others.
            subscriber.resync = True
        return False

    def leave(self, subscriber: Subscriber) -> None:
        """Stop delivering to ``subscriber``; forget the game once nobody watches it."""
        subscribers = self._subscribers.get(subscriber.game_id)
        if subscribers is None:
            return
        subscribers.discard(subscriber)
        if not subscribers:
            del self._subscribers[subscriber.game_id]
            del self._positions[subscriber.game_id]
            del self._games_by_key[self._keys.pop(subscriber.game_id)]

    async def stop(self, reason: EventStoreError) -> None:
        """Cancel the reader and fail every subscriber with ``reason``."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._fail_all(reason)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self._name)

    def _fail_all(self, reason: EventStoreError) -> None:
        for subscribers in self._subscribers.values():
            for subscriber in subscribers:
                subscriber.fail(reason)
        self._subscribers.clear()
        self._positions.clear()
        self._keys.clear()
        self._games_by_key.clear()

    async def interrupt_block(self) -> None:
        """Best effort: end the reader's current ``XREAD`` so it picks up a new game."""
        if self._reader_id is None:
            return
        with contextlib.suppress(EventStoreError):
            await self._unblock(self._reader_id)

    async def _run(self) -> None:
        delay = RECONNECT_FIRST_DELAY
        try:
            while True:
                if not self._subscribers:
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                started = time.monotonic()
                try:
                    reply = await self._read_once()
                except (RedisConnectionError, RedisTimeoutError, TimeoutError) as exc:
                    self._reader_id = None
                    logger.warning("event hub lost redis (%s); retrying in %.2fs", exc, delay)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RECONNECT_MAX_DELAY)
                    continue
                delay = RECONNECT_FIRST_DELAY
                self.rounds += 1
                if reply:
                    self._dispatch(reply)
                    # Under load every XREAD returns at once with an event or two. Spacing them
                    # lets each one carry what accumulated meanwhile, so the reads (and their
                    # cost, which grows with the number of watched games) stay bounded.
                    spacing = max(self._min_interval, len(self._positions) * _SPACING_PER_STREAM)
                    pause = started + spacing - time.monotonic()
                    if pause > 0:
                        await asyncio.sleep(pause)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Anything but a transport error (a foreign key type, a script-less proxy...) would
            # recur forever: fail the subscribers loudly instead of hanging them.
            logger.exception("event hub failed")
            self._fail_all(EventStoreError(f"live event reader failed: {exc!r}"))

    async def _read_once(self) -> Reply:
        async with asyncio.timeout(self._read_deadline):
            if self._reader_id is None:
                self._reader_id = await self._reader.client_id()
            if not self._positions:
                return None  # everyone left while the reader connected: nothing to read
            # XREAD spelled out here and sent on the reader's own connection: redis-py's xread
            # builds its arguments in a Python loop, and its execute_command adds retries and
            # observability hooks; with 200 watched games that was a tenth of the service.
            positions = self._positions
            keys = self._keys
            return await self._reader.xread(
                [keys[game_id] for game_id in positions],
                [b"0-%d" % version for version in positions.values()],
                count=512,
                block_ms=self._block_ms,
            )

    def _dispatch(self, reply: Reply) -> None:
        games_by_key = self._games_by_key
        # RESP3 replies map keys to entries, RESP2 replies are [key, entries] pairs.
        streams = reply.items() if isinstance(reply, dict) else (reply or [])
        for key, entries in streams:
            game_id = games_by_key.get(key if isinstance(key, bytes) else key.encode())
            if game_id is None:
                continue
            for event in events_from_entries(game_id, entries):
                if event.version <= self._positions.get(game_id, event.version):
                    continue
                self._positions[game_id] = event.version
                self._remember_head(game_id, event.version, event.hash)
                for subscriber in self._subscribers[game_id]:
                    subscriber.deliver(event)
