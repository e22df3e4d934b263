"""The live reader: the tail of many Redis streams, read on one connection per server, handed
to in-process subscriptions through bounded queues.

On a standalone Redis it is one blocking ``XREAD`` over every stream that has a subscriber. On a
Redis Cluster one command may only name keys of one slot, so there is one reader per master
(one connection per node per process, whatever the number of subscribers), each reading the
streams of the slots it serves: one blocking ``XREAD`` when they share one slot, else one
non-blocking ``XREAD`` per slot, pipelined in one round trip and repeated while entries come
(backing off between ``poll_first_ms`` and ``poll_max_ms`` when none do).

The reader remembers, per stream, the last entry it read, and resumes there after a block that
ran out, a wake-up or a reconnect (with backoff), so a Redis restart or a failover costs
latency, not entries. A subscription is handed the entries after its cursor exactly once and
in order, or, when it cannot be (it joined behind the reader, its queue overflowed, or it asked
to be told of reconnects), a :class:`Resync`: it then reads again from its own cursor (with
``XRANGE``) and goes on. What a user does with entries (decoding, catching up, checking for
holes of its own making, mapping failures to its errors) stays in the user.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import AskError, ClusterDownError, RedisClusterException, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.tasks import cancel_and_wait

from .connection import Reply
from .nodes import ClientNodes, Nodes
from .subscription import (
    Entry,
    EntryId,
    ReaderClosed,
    ReaderFailed,
    Subscription,
    format_entry_id,
    parse_entry_id,
)

logger = logging.getLogger(__name__)

# A read names every watched stream, so its cost grows with them: past a hundred watched
# streams the reads are spaced further apart (200 streams: 10 ms), keeping their cost flat.
_SPACING_PER_STREAM = 0.000_05

# What a reader waits out (reconnecting with backoff, reading the slot map again): a server
# away, a cluster failing over or resharding. (MovedError is an AskError.)
TRANSIENT = (
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


class _Stream:
    """A followed stream: the last entry read, its subscriptions, and where it lives."""

    __slots__ = ("after", "after_raw", "key", "reconnected", "subscriptions", "tail")

    def __init__(self, key: bytes, after: EntryId) -> None:
        self.key = key
        self.after = after
        self.after_raw = format_entry_id(after)
        self.subscriptions: set[Subscription] = set()
        self.tail: _Tail | None = None
        self.reconnected = False


class LiveReader:
    """The tail of every stream some subscription in this process follows, through ``nodes``
    (see the module docstring).

    ``name`` names the reader's tasks (``name``, or ``name:<address>`` on a cluster). A read
    blocks up to ``block_ms``; while entries keep coming, reads start at most every
    ``min_interval_ms`` (or 50 µs per followed stream, when that is longer): each then carries
    what came meanwhile. ``command_timeout`` bounds each read beyond its block (a half-open
    connection) and each ``CLIENT UNBLOCK``. ``limit``: entries a subscription's queue holds
    before it is told to resync, unless it says otherwise.
    """

    def __init__(
        self,
        nodes: Nodes,
        *,
        name: str,
        block_ms: int = 1000,
        min_interval_ms: int = 0,
        command_timeout: float = 5.0,
        limit: int = 1024,
        count: int = 512,
        poll_first_ms: int = 10,
        poll_max_ms: int = 50,
    ) -> None:
        self.nodes = nodes
        self.name = name
        self.block_ms = block_ms
        self.min_interval = min_interval_ms / 1000
        self.read_deadline = block_ms / 1000 + command_timeout
        self.command_timeout = command_timeout
        self.limit = limit
        self.count = count
        self.poll_first = poll_first_ms / 1000
        self.poll_max = poll_max_ms / 1000
        self._streams: dict[bytes, _Stream] = {}
        self._tails: dict[str, _Tail] = {}
        self._owned: ClientNodes | None = None

    @classmethod
    def on_client(
        cls,
        url: str,
        client: Redis | RedisCluster,
        *,
        client_name: str,
        **options: Any,
    ) -> LiveReader:
        """A reader for a user of redis-py's public ``client`` on ``url`` (standalone or
        ``redis+cluster://``): its connections are named ``<client_name>-hub``, its tasks too;
        ``options`` are the constructor's. :meth:`close` closes its connections (not
        ``client``)."""
        nodes = ClientNodes(url, client, client_name=f"{client_name}-hub")
        reader = cls(nodes, name=f"{client_name}-hub", **options)
        reader._owned = nodes
        return reader

    @property
    def rounds(self) -> int:
        """Reads finished, with entries or without, by every server's reader: proof that the
        readers had their chance, for whoever waits to see what they did with it."""
        return sum(tail.rounds for tail in self._tails.values())

    @property
    def subscriber_count(self) -> int:
        return sum(len(stream.subscriptions) for stream in self._streams.values())

    @property
    def streams(self) -> int:
        """Streams followed now."""
        return len(self._streams)

    @property
    def task(self) -> asyncio.Task[None] | None:
        """A running reader task, if any (on a standalone Redis there is at most one)."""
        for tail in self._tails.values():
            if tail.task is not None:
                return tail.task
        return None

    async def subscribe(
        self,
        key: bytes | str,
        after: bytes | str,
        *,
        limit: int | None = None,
        on_arrival: Callable[[int], BaseException | None] | None = None,
        resync_on_reconnect: bool = False,
    ) -> Subscription:
        """Follow the stream ``key`` from the entry id ``after`` (``"0-0"``: from its start):
        a :class:`Subscription` handing each later entry once, in order. When the stream is new
        to the reader, the pending ``XREAD`` of its server is ended so the next names it.

        ``on_arrival(n)``, when given, is told of ``n`` entries arriving for the subscription
        (before they are queued); an exception it returns ends the subscription with it (a user
        cutting off a consumer that stopped taking entries). ``resync_on_reconnect``: a
        :class:`Resync` after each reconnect of the stream's server (for a user who cannot
        tell from the entries whether some were trimmed away meanwhile)."""
        subscription, new = self.join(
            key,
            after,
            limit=limit,
            on_arrival=on_arrival,
            resync_on_reconnect=resync_on_reconnect,
        )
        if new:
            await self.interrupt(subscription.key)
        return subscription

    def join(
        self,
        key: bytes | str,
        after: bytes | str,
        *,
        limit: int | None = None,
        on_arrival: Callable[[int], BaseException | None] | None = None,
        resync_on_reconnect: bool = False,
    ) -> tuple[Subscription, bool]:
        """:meth:`subscribe` without ending the pending read; also whether the stream is new
        to the reader (then :meth:`interrupt` it, or it waits one block at most)."""
        raw_key = key.encode() if isinstance(key, str) else key
        position = parse_entry_id(after)
        subscription = Subscription(
            self._leave,
            raw_key,
            position,
            limit=self.limit if limit is None else limit,
            on_arrival=on_arrival,
            resync_on_reconnect=resync_on_reconnect,
        )
        stream = self._streams.get(raw_key)
        if stream is None:
            stream = self._streams[raw_key] = _Stream(raw_key, position)
            stream.subscriptions.add(subscription)
            self._place(stream)
            return subscription, True
        stream.subscriptions.add(subscription)
        if stream.after > position:
            # The reader already handed entries past this cursor to others.
            subscription.resync("behind")
        return subscription, False

    def _leave(self, subscription: Subscription) -> None:
        stream = self._streams.get(subscription.key)
        if stream is None or subscription not in stream.subscriptions:
            return
        stream.subscriptions.discard(subscription)
        if not stream.subscriptions:
            del self._streams[stream.key]
            if stream.tail is not None:
                stream.tail.remove(stream)

    async def interrupt(self, key: bytes | None = None) -> None:
        """Best effort: end the pending ``XREAD`` of the server of ``key`` (of every server
        without one) so the next read names the streams followed now."""
        stream = None if key is None else self._streams.get(key)
        if stream is not None and stream.tail is not None:
            tails = [stream.tail]
        else:
            tails = list(self._tails.values())
        for tail in tails:
            await tail.interrupt()

    async def close(self, reason: BaseException | None = None) -> None:
        """Stop reading and end every subscription with ``reason`` (:class:`ReaderClosed`)."""
        for tail in list(self._tails.values()):
            await tail.stop()
        self._tails.clear()
        self._fail_all(reason or ReaderClosed("the live reader is closed"))
        if self._owned is not None:
            await self._owned.close()

    def _place(self, stream: _Stream) -> None:
        """Hand the stream to the reader of the server that serves it."""
        address, slot = self.nodes.locate(stream.key)
        tail = self._tails.get(address)
        if tail is None:
            tail = self._tails[address] = _Tail(self, address)
        tail.add(stream, slot)

    async def _replace_all(self, failed: _Tail) -> None:
        """After a reader lost its server or met a ``MOVED``: read the slot map again and move
        every stream whose slot now lives elsewhere to that server's reader."""
        await self.nodes.refresh()
        for stream in list(self._streams.values()):
            tail = stream.tail
            if tail is None:
                continue
            address, _slot = self.nodes.locate(stream.key)
            if address != tail.address or tail is failed:
                tail.remove(stream)
                self._place(stream)
        for address, tail in list(self._tails.items()):
            if not tail.streams and tail is not failed:
                del self._tails[address]
                await tail.stop()

    def _fail_all(self, reason: BaseException) -> None:
        for stream in self._streams.values():
            for subscription in stream.subscriptions:
                subscription.fail(reason)
            stream.tail = None
        self._streams.clear()
        for tail in self._tails.values():
            tail.streams.clear()

    def _dispatch(self, reply: Reply, read_from: dict[bytes, tuple[_Stream, EntryId]]) -> None:
        # RESP3 replies map keys to entries, RESP2 replies are [key, entries] pairs.
        streams = reply.items() if isinstance(reply, dict) else (reply or [])
        for key, entries in streams:
            raw_key = key if isinstance(key, bytes) else key.encode()
            read = read_from.get(raw_key)
            stream = self._streams.get(raw_key)
            if read is None or stream is not read[0] or stream.after != read[1]:
                # The stream left (and maybe came back) while the read was out: what it read
                # follows a position that is no longer the reader's. The next read starts right.
                continue
            fresh: list[tuple[EntryId, Entry]] = []
            after = stream.after
            for entry in entries:
                entry_id = parse_entry_id(entry[0])
                if entry_id > after:
                    fresh.append((entry_id, (entry[0], entry[1])))
                    after = entry_id
            if not fresh:
                continue
            stream.after = after
            stream.after_raw = fresh[-1][1][0]
            for subscription in list(stream.subscriptions):
                if not subscription._offer(fresh):
                    self._leave(subscription)

    def _reconnected(self, tail: _Tail) -> None:
        for stream in tail.streams:
            if stream.reconnected:
                stream.reconnected = False
                for subscription in stream.subscriptions:
                    if subscription.resync_on_reconnect:
                        subscription.resync("reconnected")


class _Tail:
    """The reader of one server: its streams grouped by slot, its connection, its task."""

    def __init__(self, reader: LiveReader, address: str) -> None:
        self.reader = reader
        self.address = address
        self.streams: dict[_Stream, int] = {}  # stream -> slot
        self.rounds = 0
        self.task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._reader_id: int | None = None

    def add(self, stream: _Stream, slot: int) -> None:
        self.streams[stream] = slot
        stream.tail = self
        if self.task is None or self.task.done():
            name = self.reader.name if not self.address else f"{self.reader.name}:{self.address}"
            self.task = asyncio.get_running_loop().create_task(self._run(), name=name)
        self._changed.set()

    def remove(self, stream: _Stream) -> None:
        self.streams.pop(stream, None)
        if stream.tail is self:
            stream.tail = None

    async def stop(self) -> None:
        if self.task is not None:
            await cancel_and_wait(self.task)
            self.task = None

    async def interrupt(self) -> None:
        if self._reader_id is None:
            return
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.reader.command_timeout):
                await self.reader.nodes.unblock(self.address, self._reader_id)

    async def _run(self) -> None:
        reader = self.reader
        delay = RECONNECT_FIRST_DELAY
        poll = reader.poll_first
        task = asyncio.current_task()
        try:
            while True:
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError  # a cancellation a library swallowed
                if not self.streams:
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                started = time.monotonic()
                try:
                    replies, polled = await self._read_once()
                except TRANSIENT as exc:
                    self._reader_id = None
                    for stream in self.streams:
                        stream.reconnected = True
                    logger.warning("%s lost redis (%s); retrying in %.2fs", reader.name, exc, delay)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RECONNECT_MAX_DELAY)
                    with contextlib.suppress(*TRANSIENT):
                        await reader._replace_all(self)
                    continue
                delay = RECONNECT_FIRST_DELAY
                self.rounds += 1
                got = False
                for reply, read_from in replies:
                    if reply:
                        got = True
                        reader._dispatch(reply, read_from)
                reader._reconnected(self)
                if got:
                    poll = reader.poll_first
                    # Under load every XREAD returns at once with an entry or two. Spacing them
                    # lets each carry what accumulated meanwhile, so the reads (and their cost,
                    # which grows with the number of followed streams) stay bounded.
                    spacing = max(reader.min_interval, len(self.streams) * _SPACING_PER_STREAM)
                    pause = started + spacing - time.monotonic()
                    if pause > 0:
                        await asyncio.sleep(pause)
                elif polled:
                    # Several slots cannot share one blocking read: poll, backing off.
                    self._changed.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(poll):
                            await self._changed.wait()
                    poll = min(poll * 2, reader.poll_max)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Anything but a transport error (a key of a foreign type...) would recur forever:
            # fail the subscriptions loudly instead of hanging them.
            logger.exception("%s failed", reader.name)
            reader._fail_all(ReaderFailed(exc))

    async def _read_once(
        self,
    ) -> tuple[list[tuple[Reply, dict[bytes, tuple[_Stream, EntryId]]]], bool]:
        """The read of one round: its replies, each with the positions it read from, and
        whether it polled (did not block)."""
        reader = self.reader
        connection = reader.nodes.reader_at(self.address)
        async with asyncio.timeout(reader.read_deadline):
            if self._reader_id is None:
                self._reader_id = await connection.client_id()
            if not self.streams:
                return [], False  # everyone left while the reader connected: nothing to read
            by_slot: dict[int, list[_Stream]] = {}
            for stream, slot in self.streams.items():
                by_slot.setdefault(slot, []).append(stream)
            groups = [
                (
                    [stream.key for stream in streams],
                    [stream.after_raw for stream in streams],
                    {stream.key: (stream, stream.after) for stream in streams},
                )
                for streams in by_slot.values()
            ]
            if len(groups) == 1:
                keys, after, read_from = groups[0]
                reply = await connection.xread(
                    keys, after, count=reader.count, block_ms=reader.block_ms
                )
                return [(reply, read_from)], False
            replies = await connection.xread_each(
                [(keys, after) for keys, after, _ in groups], count=reader.count
            )
            return [
                (reply, read_from) for reply, (_, _, read_from) in zip(replies, groups, strict=True)
            ], True
