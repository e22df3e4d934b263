"""Event store on Redis Streams: the production store, shared by every game service replica.

Layout: one stream per game at ``<prefix>:{<game_id>}:events``. The braces are a Redis Cluster
hash tag, so every key of one game lands in one slot and the append script stays single-slot.
Entry ids are explicit: the event at version ``n`` has id ``0-<n>``, so a stream's last id *is*
the game's version and ``XRANGE``/``XREAD`` from ``0-<n>`` are reads "after version n". Each
entry has the fields ``p`` (payload bytes), ``h`` (hash) and ``ph`` (previous hash); see
:mod:`services.eventstore.base` for the chain rule.

Appends are one ``EVALSHA`` in the common case: the client computes the hashes (Redis Lua has no
sha256) on top of the predecessor hash it remembers from its own last append or read, and the
script checks both the version *and* that hash against the stream's last entry before writing,
so neither a stale writer nor a stale cache can ever produce a gap, a duplicate or a broken link.

Live tails are served by one reader per store (:class:`_StreamHub`): a single blocking ``XREAD``
over all games that have subscribers, on one dedicated connection, fanned out to in-process
queues, so a replica with thousands of watching clients holds two Redis connections, not
thousands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import hiredis
from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .base import (
    GENESIS_HASH,
    EventStore,
    EventStoreError,
    StoreClosed,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    chain_events,
    check_append_args,
    check_game_id,
    check_read_args,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

# KEYS[1]: the game's stream. ARGV[1]: expected version. ARGV[2]: hash of the event at that
# version (GENESIS for 0), i.e. the prev hash the client chained onto. ARGV[3..]: payload, hash
# pairs. Replies {"ok", new_version} or {"conflict" | "stale-hash", actual_version, head_hash}.
_APPEND_SCRIPT = f"""
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local version = 0
local head_hash = '{GENESIS_HASH}'
if #last == 1 then
  local seq = string.match(last[1][1], '^0%-(%d+)$')
  if not seq then
    return redis.error_reply('stream ' .. KEYS[1] .. ' holds foreign entry ' .. last[1][1])
  end
  version = tonumber(seq)
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'h' then head_hash = fields[i + 1] end
  end
end
if version ~= tonumber(ARGV[1]) then
  return {{'conflict', version, head_hash}}
end
if head_hash ~= ARGV[2] then
  return {{'stale-hash', version, head_hash}}
end
local prev = ARGV[2]
for i = 3, #ARGV, 2 do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 'p', ARGV[i], 'h', ARGV[i + 1], 'ph', prev)
  prev = ARGV[i + 1]
end
return {{'ok', version}}
"""

# A read names every watched stream, so its cost grows with them: past a hundred watched games
# the reads are spaced further apart (200 games: 10 ms), keeping their total cost flat.
_SPACING_PER_STREAM = 0.000_05

_RECONNECT_FIRST_DELAY = 0.05
_RECONNECT_MAX_DELAY = 2.0


@contextlib.contextmanager
def _as_store_errors() -> Iterator[None]:
    """Turn redis-py errors into the store's: transport errors are retryable
    (:class:`StoreUnavailable`), a refused command (a foreign key type, say) is not."""
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, TimeoutError) as exc:
        raise StoreUnavailable(f"redis unreachable: {exc!r}") from exc
    except ResponseError as exc:
        raise EventStoreError(f"redis refused the command: {exc}") from exc


def _version_of(entry_id: bytes) -> int:
    """Version encoded in an entry id ``0-<version>``."""
    millis, _, seq = entry_id.partition(b"-")
    if millis != b"0" or not seq.isdigit():
        raise EventStoreError(
            f"stream entry {entry_id.decode()!r} was not written by the event store"
        )
    return int(seq)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _events_from_entries(
    game_id: str, entries: Iterable[Sequence[Any]] | None
) -> list[StoredEvent]:
    """The :class:`StoredEvent` of each entry of a raw ``XRANGE``/``XREVRANGE``/``XREAD`` reply.

    An entry is ``[id, [field, value, ...]]`` (whatever redis-py's type hints say: the store's
    clients keep these replies raw). redis-py's own callbacks would first build a dict per entry,
    to be read once here; instead the layout the append script writes is matched as it stands,
    which takes about a third off reading a whole game.
    """
    events = []
    for entry_id, fields in entries or ():
        match fields:
            case [b"p", payload, b"h", event_hash, b"ph", prev_hash]:
                pass
            case _:
                payload, event_hash, prev_hash = _fields_by_name(game_id, fields)
        events.append(
            StoredEvent(
                game_id, _version_of(entry_id), payload, prev_hash.decode(), event_hash.decode()
            )
        )
    return events


def _fields_by_name(game_id: str, fields: Sequence[bytes] | None) -> tuple[bytes, bytes, bytes]:
    """Payload, hash and previous hash of an entry whose fields are in another order (written
    by other tools, say a restore) or missing."""
    by_name = dict(zip(fields[::2], fields[1::2], strict=True)) if fields else {}
    try:
        return by_name[b"p"], by_name[b"h"], by_name[b"ph"]
    except KeyError as missing:
        raise EventStoreError(f"game {game_id!r}: stream entry lacks field {missing}") from None


def _pack(args: tuple[bytes | str | int, ...]) -> bytes:
    """``args`` as one command, packed by hiredis in one call: redis-py's asyncio connections
    pack in Python, one argument at a time. The live reader's ``XREAD`` names every watched
    stream: with 200 games, 0.54 ms to pack in Python against 0.08 ms with hiredis, several
    hundred times a second. The store's own commands are packed the same way."""
    # (hiredis's stub types the tuple as one element long)
    packed: bytes = hiredis.pack_command(cast(Any, args))
    return packed


@dataclass(eq=False)
class _Subscriber:
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


class _StreamHub:
    """The store's single live reader: one blocking ``XREAD`` over every subscribed game.

    It remembers, per game, the last version it has read (``positions``) and resumes from there
    after a timeout, a wake-up or a reconnect, so a Redis restart costs latency, not events.
    When the set of games changes, ``CLIENT UNBLOCK`` on the reader's connection makes the
    pending ``XREAD`` return at once so the next one includes the new game; if that races with
    the ``XREAD`` still in flight, the new game waits at most one block timeout.
    """

    def __init__(
        self, store: RedisEventStore, reader: Redis, block_ms: int, min_interval_ms: int
    ) -> None:
        self._store = store
        self._reader = reader
        self._block_ms = block_ms
        self._min_interval = min_interval_ms / 1000
        self._subscribers: dict[str, set[_Subscriber]] = {}
        self._positions: dict[str, int] = {}
        # Each watched game's stream key, and back: built at join, not on every XREAD.
        self._keys: dict[str, bytes] = {}
        self._games_by_key: dict[bytes, str] = {}
        self._changed = asyncio.Event()
        self._reader_id: int | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def subscriber_count(self) -> int:
        return sum(len(subscribers) for subscribers in self._subscribers.values())

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The running reader task, if any (exposed so tests can count readers)."""
        return self._task

    def join(self, subscriber: _Subscriber) -> bool:
        """Start delivering the game's new events to ``subscriber``.

        Returns True when the game is new to the hub: the caller should then
        :meth:`interrupt_block` so the pending ``XREAD`` is re-issued with the new stream.
        """
        game_id = subscriber.game_id
        subscribers = self._subscribers.get(game_id)
        if subscribers is None:
            self._subscribers[game_id] = {subscriber}
            self._positions[game_id] = subscriber.delivered
            key = self._store.stream_key(game_id).encode()
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

    def leave(self, subscriber: _Subscriber) -> None:
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
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"{self._store.client_name}-hub"
            )

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
        reader_id = self._reader_id
        with contextlib.suppress(EventStoreError):
            await self._store._execute(lambda: self._store.redis.client_unblock(reader_id))

    async def _run(self) -> None:
        delay = _RECONNECT_FIRST_DELAY
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
                    delay = min(delay * 2, _RECONNECT_MAX_DELAY)
                    continue
                delay = _RECONNECT_FIRST_DELAY
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

    async def _read_once(self) -> Any:
        # The deadline outlasts the server-side block; it catches a half-open connection.
        async with asyncio.timeout(self._block_ms / 1000 + self._store.command_timeout):
            if self._reader_id is None:
                self._reader_id = await self._reader.client_id()
            if not self._positions:
                return None  # everyone left while the reader connected: nothing to read
            # XREAD packed here and sent on the reader's one connection: redis-py's xread
            # builds its arguments in a Python loop, and its execute_command adds retries and
            # observability hooks; with 200 watched games that was a tenth of the service.
            positions = self._positions
            keys = self._keys
            command = _pack(
                (
                    b"XREAD",
                    b"COUNT",
                    512,
                    b"BLOCK",
                    self._block_ms,
                    b"STREAMS",
                    *[keys[game_id] for game_id in positions],
                    *[b"0-%d" % version for version in positions.values()],
                )
            )
            connection = self._reader.connection
            assert connection is not None  # client_id() above opened it
            await connection.send_packed_command(command, check_health=False)
            return await connection.read_response()

    def _dispatch(self, reply: Any) -> None:
        games_by_key = self._games_by_key
        # RESP3 replies map keys to entries, RESP2 replies are [key, entries] pairs.
        streams = reply.items() if isinstance(reply, dict) else (reply or [])
        for key, entries in streams:
            game_id = games_by_key.get(key if isinstance(key, bytes) else key.encode())
            if game_id is None:
                continue
            for event in _events_from_entries(game_id, entries):
                if event.version <= self._positions.get(game_id, event.version):
                    continue
                self._positions[game_id] = event.version
                self._store.remember_head(game_id, event.version, event.hash)
                for subscriber in self._subscribers[game_id]:
                    subscriber.deliver(event)


class RedisEventStore(EventStore):
    """:class:`EventStore` on Redis Streams; see the module docstring for the layout.

    Holds one pooled client for commands and, once something subscribes, one dedicated
    connection for the live reader. ``client_name`` names both in ``CLIENT LIST`` (the reader as
    ``<client_name>-hub``) so operators can tell who holds which connection.

    The live reader blocks up to ``block_ms`` per ``XREAD`` and starts them at most every
    ``tail_interval_ms`` (or 50 µs per watched game, when that is longer) while events keep
    coming: a few milliseconds more for a live update to reach a subscriber on another replica,
    for a bounded cost of reading under load.
    """

    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = "verrater",
        client_name: str = "verrater-events",
        block_ms: int = 1000,
        tail_interval_ms: int = 5,
        command_timeout: float = 5.0,
        head_cache_size: int = 10_000,
        inbox_limit: int = 1024,
        max_connections: int = 64,
    ) -> None:
        self.key_prefix = key_prefix
        self.client_name = client_name
        self.command_timeout = command_timeout
        # Timeouts are ours (asyncio.timeout around each call), not redis-py's socket_timeout:
        # with one set, redis-py sends through asyncio.wait_for, which on Python 3.11 can
        # swallow a cancellation, and a cancelled subscriber or hub would then run on.
        # No retries inside redis-py either: _execute retries, so append knows when it did,
        # and the hub owns reconnecting with backoff.
        options: dict[str, Any] = {"socket_timeout": None, "retry": Retry(NoBackoff(), 0)}
        self.redis: Redis = Redis.from_url(
            url, client_name=client_name, max_connections=max_connections, **options
        )
        # redis-py's asyncio pool fails a command outright when all its connections are in use;
        # a burst of appends across many games waits for a free one here instead.
        self._slots = asyncio.Semaphore(max_connections)
        if self.redis.connection_pool.connection_kwargs.get("decode_responses"):
            raise ValueError("the event store reads raw payload bytes: drop decode_responses")
        # The store's own commands (append, read, head) go through _call, on connections of its
        # own made by the pool's factory: replies stay raw (stream entries are parsed by
        # _events_from_entries), and redis-py's per-command machinery stays out of the way.
        self._idle: list[AbstractConnection] = []
        self._reader = Redis.from_url(
            url, single_connection_client=True, client_name=f"{client_name}-hub", **options
        )
        self._append_script = self.redis.register_script(_APPEND_SCRIPT)
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._head_cache_size = head_cache_size
        self._inbox_limit = inbox_limit
        self._resyncs = 0
        self._hub = _StreamHub(self, self._reader, block_ms, tail_interval_ms)
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisEventStore:
        """Store on the Redis at ``url`` (``redis://``, ``rediss://`` or ``unix://``).

        ``options`` are the keyword arguments of the constructor. Connecting is lazy: a wrong
        URL surfaces as :class:`StoreUnavailable` on first use. Keep ``socket_timeout`` out of
        the URL's query (it would override ``command_timeout``'s reasons, see ``__init__``).
        """
        return cls(url, **options)

    def stream_key(self, game_id: str) -> str:
        """Redis key of the game's stream, hash-tagged by game id for Redis Cluster."""
        return f"{self.key_prefix}:{{{game_id}}}:events"

    async def append(
        self, game_id: str, expected_version: int, payloads: Sequence[bytes]
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.append`. One round trip when this process knows the head."""
        self._check_open()
        check_append_args(game_id, expected_version, payloads)
        prev_hash = await self._hash_at(game_id, expected_version)
        events = chain_events(game_id, expected_version, prev_hash, payloads)
        args: list[bytes | str | int] = [expected_version, prev_hash]
        for event in events:
            args += [event.payload, event.hash]
        reply, retried = await self._execute(
            lambda: self._run_append_script(self.stream_key(game_id), args)
        )
        status = _text(reply[0])
        if status == "ok":
            self.remember_head(game_id, events[-1].version, events[-1].hash)
            return events
        actual, head_hash = int(reply[1]), _text(reply[2])
        if retried and (actual, head_hash) == (events[-1].version, events[-1].hash):
            # The first attempt ran but its reply was lost: the head is exactly our batch chained
            # onto the version we expected, which the hash chain makes unambiguous.
            self.remember_head(game_id, actual, head_hash)
            return events
        if status == "conflict":
            # The script read this head atomically: the caller's retry will hit the cache.
            self._heads[game_id] = (actual, head_hash)
        else:
            # Same version, other hash: the log was rewritten under us (restored backup,
            # recreated game). Forget what we knew and let the caller reload.
            self._heads.pop(game_id, None)
        raise VersionConflict(game_id, expected_version, actual)

    async def _run_append_script(self, key: str, args: list[bytes | str | int]) -> Any:
        """``EVALSHA`` of the append script, loading it first where Redis does not know it
        (a restart, a failover, ``SCRIPT FLUSH``). Sent as a plain command: redis-py's Script
        wrapper and its ``evalsha`` decorators were a sixth of an append's client time."""
        try:
            return await self._call("EVALSHA", self._append_script.sha, 1, key, *args)
        except NoScriptError:
            self._append_script.sha = _text(await self._call("SCRIPT", "LOAD", _APPEND_SCRIPT))
            return await self._call("EVALSHA", self._append_script.sha, 1, key, *args)

    async def _call(self, *args: bytes | str | int) -> Any:
        """One command on one of the store's own connections; the raw reply.

        redis-py's ``execute_command`` wraps every command in a retry loop, observability hooks
        and a pool checkout that validates the connection: a third of an append's client time.
        Here a connection is taken from the store's idle list (at most ``max_connections``
        are in use, see ``_execute``), and a connection error disconnects every idle one: after
        a Redis restart they are all dead, and ``_execute``'s one retry must get a fresh one.
        redis-py disconnects a connection itself when a command is interrupted mid-reply.
        """
        idle = self._idle
        connection = (
            idle.pop() if idle else self.redis.connection_pool.make_connection()  # type: ignore[no-untyped-call]
        )
        try:
            await connection.send_packed_command(_pack(args), check_health=False)
            return await connection.read_response()
        except RedisConnectionError:
            for other in idle:
                await other.disconnect(nowait=True)
            raise
        finally:
            idle.append(connection)

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.read`: ``XRANGE`` from id ``0-<after_version + 1>``."""
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, limit)
        key, first = self.stream_key(game_id), f"0-{after_version + 1}"
        count: tuple[str | int, ...] = () if limit is None else ("COUNT", limit)
        entries, _ = await self._execute(lambda: self._call("XRANGE", key, first, "+", *count))
        events = _events_from_entries(game_id, entries)
        if events:
            self.remember_head(game_id, events[-1].version, events[-1].hash)
        return events

    async def version(self, game_id: str) -> int:
        """See :meth:`EventStore.version`."""
        return (await self.head(game_id))[0]

    async def head(self, game_id: str) -> tuple[int, str]:
        """See :meth:`EventStore.head`: the stream's last entry, read with ``XREVRANGE``."""
        self._check_open()
        check_game_id(game_id)
        entries, _ = await self._execute(
            lambda: self._call("XREVRANGE", self.stream_key(game_id), "+", "-", "COUNT", 1)
        )
        if not entries:
            return 0, GENESIS_HASH
        event = _events_from_entries(game_id, entries)[0]
        self.remember_head(game_id, event.version, event.hash)
        return event.version, event.hash

    async def subscribe(
        self, game_id: str, after_version: int = 0
    ) -> AsyncGenerator[StoredEvent, None]:
        """See :meth:`EventStore.subscribe`.

        Catches up with ``XRANGE``, then joins the hub at the last version it yielded. Versions
        make joining gap-free and duplicate-free: anything the hub delivers at or below
        ``delivered`` is dropped, and any hole (the hub was ahead, or the inbox overflowed) is
        filled by re-reading from Redis. Redis outages are waited out with backoff, because a
        live tail has no caller to hand a retryable error to mid-stream.
        """
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, None)
        delivered = after_version
        for event in await self._read_patiently(game_id, delivered):
            delivered = event.version
            yield event
        subscriber = _Subscriber(game_id, delivered, self._inbox_limit)
        joined_new_game = self._hub.join(subscriber)
        try:
            if joined_new_game:
                await self._hub.interrupt_block()
            while True:
                if subscriber.failure is not None:
                    raise subscriber.failure
                if subscriber.resync:
                    subscriber.resync = False
                    subscriber.inbox.clear()
                    self._resyncs += 1
                    for event in await self._read_patiently(game_id, subscriber.delivered):
                        subscriber.delivered = event.version
                        yield event
                elif subscriber.inbox:
                    event = subscriber.inbox.popleft()
                    if event.version == subscriber.delivered + 1:
                        subscriber.delivered = event.version
                        yield event
                    elif event.version > subscriber.delivered:
                        # A hole: an XREAD issued before this game last left and rejoined the
                        # hub answered from the old position. Re-read rather than skip.
                        subscriber.resync = True
                else:
                    subscriber.wakeup.clear()
                    await subscriber.wakeup.wait()
        finally:
            self._hub.leave(subscriber)

    @property
    def live_subscriptions(self) -> int:
        """See :attr:`EventStore.live_subscriptions`."""
        return self._hub.subscriber_count

    @property
    def resyncs(self) -> int:
        """Times a live subscription re-read from Redis to fill a hole (a slow consumer's
        overflowed inbox, or a join behind the hub): a health metric, normally near zero."""
        return self._resyncs

    @property
    def hub_task(self) -> asyncio.Task[None] | None:
        """The live reader task (one per store, whatever the number of subscribers)."""
        return self._hub.task

    async def close(self) -> None:
        """Stop the live reader, end open subscriptions, close both clients. Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._hub.stop(StoreClosed("the redis event store is closed"))
        await self._reader.aclose()
        await self.redis.aclose()
        for connection in self._idle:
            await connection.disconnect()
        self._idle.clear()

    def remember_head(self, game_id: str, version: int, event_hash: str) -> None:
        """Record a (version, hash) this process has seen, for the next append's prev hash.

        Keeps the highest version per game in a bounded LRU. A stale entry is harmless: the
        append script rejects any prev hash that is not the stream's current last hash.
        """
        known = self._heads.get(game_id)
        if known is None or known[0] < version:
            self._heads[game_id] = (version, event_hash)
        self._heads.move_to_end(game_id)
        while len(self._heads) > self._head_cache_size:
            self._heads.popitem(last=False)

    async def _execute(self, command: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """Run one Redis call, once more if its connection dropped; return (result, retried).

        After a Redis restart or failover every pooled connection is dead and only its first
        use finds out, so one immediate retry on a fresh connection hides that. A second drop
        means Redis is really unreachable. Timeouts are not retried: the command may be running.
        A timeout disconnects the connection (redis-py drops it on any interrupted read).
        """
        with _as_store_errors():
            async with asyncio.timeout(self.command_timeout):
                await self._slots.acquire()
            try:
                async with asyncio.timeout(self.command_timeout):
                    return await command(), False
            except RedisConnectionError:
                logger.info("redis connection dropped; retrying once on a fresh connection")
                async with asyncio.timeout(self.command_timeout):
                    return await command(), True
            finally:
                self._slots.release()

    async def _hash_at(self, game_id: str, version: int) -> str:
        """Hash of the event at ``version``: from the cache, or by reading the head."""
        if version == 0:
            return GENESIS_HASH
        known = self._heads.get(game_id)
        if known is not None and known[0] == version:
            return known[1]
        actual, head_hash = await self.head(game_id)
        if actual != version:
            raise VersionConflict(game_id, version, actual)
        return head_hash

    async def _read_patiently(self, game_id: str, after_version: int) -> list[StoredEvent]:
        """:meth:`read` that waits out Redis outages with capped exponential backoff."""
        delay = _RECONNECT_FIRST_DELAY
        while True:
            try:
                return await self.read(game_id, after_version)
            except StoreUnavailable as exc:
                logger.warning("subscription read failed (%s); retrying in %.2fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RECONNECT_MAX_DELAY)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("the redis event store is closed")
