"""The Redis store's live tail: one reader per server, fanned out to in-process mailboxes.

On a standalone Redis, a single blocking ``XREAD`` over all games that have subscribers, on one
dedicated connection (:class:`~.wire.ReaderConnection`), so a replica with thousands of watching
clients holds two Redis connections, not thousands. On a Redis Cluster one command may only name
keys of one slot, so there is one reader per master (one connection per node per process,
whatever the number of watchers), each reading the slots it serves: one blocking ``XREAD`` when
its watched games share one slot, else one non-blocking ``XREAD`` per slot, pipelined in one
round trip and repeated every few milliseconds while events come (backing off to
``_IDLE_POLL`` when none do). What a subscription does with its mailbox (catching up, filling
holes) is :meth:`RedisEventStore.subscribe <.store.RedisEventStore.subscribe>`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from redis.exceptions import AskError, ClusterDownError, RedisClusterException, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.tasks import cancel_and_wait

from ..base import EventStoreError, StoredEvent
from .entries import events_from_entries
from .wire import Reply, StoreWire

logger = logging.getLogger(__name__)

# A read names every watched stream, so its cost grows with them: past a hundred watched games
# the reads are spaced further apart (200 games: 10 ms), keeping their total cost flat.
_SPACING_PER_STREAM = 0.000_05

# A cluster reader polling several slots: the longest pause between reads when nothing comes.
_IDLE_POLL = 0.05

# What a reader waits out (reconnecting with backoff, reading the slot map again): a server
# away, a cluster failing over or resharding.
_TRANSIENT = (
    RedisConnectionError,
    RedisTimeoutError,
    TimeoutError,
    ClusterDownError,
    TryAgainError,
    AskError,
    RedisClusterException,
)

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
    """The store's live readers: per server, one reading every subscribed game it serves.

    It remembers, per game, the last version it has read (``positions``) and resumes from there
    after a timeout, a wake-up or a reconnect, so a Redis restart costs latency, not events.
    When the set of games on a server changes, ``CLIENT UNBLOCK`` on its reader's connection
    makes the pending ``XREAD`` return at once so the next one includes the new game; if that
    races with the ``XREAD`` still in flight, the new game waits at most one block timeout.

    What it needs of its store comes in as functions: the stream key of a game, where to report
    each head it reads (the store's head cache), and how to send ``CLIENT UNBLOCK`` (on the
    store's own connections, with its timeout and error mapping); the wire says on which server
    (address) and slot each stream lives, and gives each server's reader connection.
    """

    def __init__(
        self,
        wire: StoreWire,
        *,
        name: str,
        stream_key: Callable[[str], str],
        remember_head: Callable[[str, int, str], None],
        unblock: Callable[[str, int], Awaitable[object]],
        block_ms: int,
        min_interval_ms: int,
        command_timeout: float,
    ) -> None:
        self._wire = wire
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
        self._tails: dict[str, _Tail] = {}
        self._tail_of: dict[str, _Tail] = {}

    @property
    def rounds(self) -> int:
        """Reads finished, with events or without (a block that ran out, an ``XREAD`` skipped
        because everyone left while the reader connected), by every reader: proof that the
        readers had their chance, for whoever waits to see what they did with it."""
        return sum(tail.rounds for tail in self._tails.values())

    @property
    def subscriber_count(self) -> int:
        return sum(len(subscribers) for subscribers in self._subscribers.values())

    @property
    def task(self) -> asyncio.Task[None] | None:
        """A running reader task, if any (exposed so tests can count readers: on a standalone
        Redis there is at most one)."""
        for tail in self._tails.values():
            if tail.task is not None:
                return tail.task
        return None

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
            self._place(game_id)
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
            game_id = subscriber.game_id
            del self._subscribers[game_id]
            del self._positions[game_id]
            del self._games_by_key[self._keys.pop(game_id)]
            tail = self._tail_of.pop(game_id, None)
            if tail is not None:
                tail.remove(game_id)

    async def stop(self, reason: EventStoreError) -> None:
        """Cancel the readers and fail every subscriber with ``reason``."""
        for tail in list(self._tails.values()):
            await tail.stop()
        self._tails.clear()
        self._fail_all(reason)

    async def interrupt_block(self, game_id: str | None = None) -> None:
        """Best effort: end the current ``XREAD`` of the reader of ``game_id`` (of every reader
        without one) so it picks up a new game."""
        if game_id is not None and game_id in self._tail_of:
            tails = [self._tail_of[game_id]]
        else:
            tails = list(self._tails.values())
        for tail in tails:
            await tail.interrupt()

    def _place(self, game_id: str) -> None:
        """Hand the game to the reader of the server that serves its stream."""
        address, slot = self._wire.locate(self._keys[game_id])
        tail = self._tails.get(address)
        if tail is None:
            tail = self._tails[address] = _Tail(self, address)
        self._tail_of[game_id] = tail
        tail.add(game_id, slot)

    async def _replace_all(self, failed: _Tail) -> None:
        """After a reader lost its server or met a ``MOVED``: read the slot map again and move
        every game whose slot now lives elsewhere to that server's reader."""
        await self._wire.refresh()
        for game_id, tail in list(self._tail_of.items()):
            address, _slot = self._wire.locate(self._keys[game_id])
            if address != tail.address or tail is failed:
                tail.remove(game_id)
                self._place(game_id)
        for address, tail in list(self._tails.items()):
            if not tail.games and tail is not failed:
                del self._tails[address]
                await tail.stop()

    def _fail_all(self, reason: EventStoreError) -> None:
        for subscribers in self._subscribers.values():
            for subscriber in subscribers:
                subscriber.fail(reason)
        self._subscribers.clear()
        self._positions.clear()
        self._keys.clear()
        self._games_by_key.clear()
        self._tail_of.clear()
        for tail in self._tails.values():
            tail.games.clear()

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


class _Tail:
    """The reader of one server: its games grouped by slot, its connection, its task."""

    def __init__(self, hub: StreamHub, address: str) -> None:
        self.hub = hub
        self.address = address
        self.games: dict[str, int] = {}  # game id -> slot
        self.rounds = 0
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._reader_id: int | None = None

    def add(self, game_id: str, slot: int) -> None:
        self.games[game_id] = slot
        if self.task is None or self.task.done():
            name = self.hub._name if not self.address else f"{self.hub._name}:{self.address}"
            self.task = asyncio.get_running_loop().create_task(self._run(), name=name)
        self._changed.set()

    def remove(self, game_id: str) -> None:
        self.games.pop(game_id, None)

    async def stop(self) -> None:
        if self.task is not None:
            await cancel_and_wait(self.task)
            self.task = None

    async def interrupt(self) -> None:
        if self._reader_id is None:
            return
        with contextlib.suppress(EventStoreError):
            await self.hub._unblock(self.address, self._reader_id)

    async def _run(self) -> None:
        hub = self.hub
        delay = RECONNECT_FIRST_DELAY
        idle = hub._min_interval
        try:
            while True:
                if not self.games:
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                started = time.monotonic()
                try:
                    replies, polled = await self._read_once()
                except _TRANSIENT as exc:
                    self._reader_id = None
                    logger.warning("event hub lost redis (%s); retrying in %.2fs", exc, delay)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RECONNECT_MAX_DELAY)
                    with contextlib.suppress(*_TRANSIENT):
                        await hub._replace_all(self)
                    continue
                delay = RECONNECT_FIRST_DELAY
                self.rounds += 1
                got = False
                for reply in replies:
                    if reply:
                        got = True
                        hub._dispatch(reply)
                if got:
                    idle = hub._min_interval
                    # Under load every XREAD returns at once with an event or two. Spacing them
                    # lets each one carry what accumulated meanwhile, so the reads (and their
                    # cost, which grows with the number of watched games) stay bounded.
                    spacing = max(hub._min_interval, len(self.games) * _SPACING_PER_STREAM)
                    pause = started + spacing - time.monotonic()
                    if pause > 0:
                        await asyncio.sleep(pause)
                elif polled:
                    # Several slots cannot share one blocking read: poll, backing off.
                    idle = min(idle * 2, _IDLE_POLL)
                    self._changed.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(idle):
                            await self._changed.wait()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Anything but a transport error (a foreign key type, a script-less proxy...) would
            # recur forever: fail the subscribers loudly instead of hanging them.
            logger.exception("event hub failed")
            hub._fail_all(EventStoreError(f"live event reader failed: {exc!r}"))

    async def _read_once(self) -> tuple[list[Reply], bool]:
        """The read of one round: its replies, and whether it polled (did not block)."""
        hub = self.hub
        reader = hub._wire.reader_at(self.address)
        async with asyncio.timeout(hub._read_deadline):
            if self._reader_id is None:
                self._reader_id = await reader.client_id()
            if not self.games:
                return [], False  # everyone left while the reader connected: nothing to read
            # XREAD spelled out here and sent on the reader's own connection: redis-py's xread
            # builds its arguments in a Python loop, and its execute_command adds retries and
            # observability hooks; with 200 watched games that was a tenth of the service.
            positions = hub._positions
            keys = hub._keys
            by_slot: dict[int, list[str]] = {}
            for game_id, slot in self.games.items():
                by_slot.setdefault(slot, []).append(game_id)
            groups = [
                (
                    [keys[game_id] for game_id in games],
                    [b"0-%d" % positions[game_id] for game_id in games],
                )
                for games in by_slot.values()
            ]
            if len(groups) == 1:
                streams, after = groups[0]
                reply = await reader.xread(streams, after, count=512, block_ms=hub._block_ms)
                return [reply], False
            return await reader.xread_each(groups, count=512), True
