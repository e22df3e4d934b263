"""The Redis event store itself: appends, reads, heads and subscriptions on one game's stream.

The layout it reads and writes is described in :mod:`services.eventstore.redis`. Its commands
go through :mod:`.wire`, its live tails through the process's live reader
(:class:`services.redislive.LiveReader`, reading through the wire); what is left here is the
store's own policy: the head cache that makes an append one round trip, the one retry after a
dropped connection, a subscription's catch-up and hole filling, and turning redis-py's errors
into the store's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections import OrderedDict
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Sequence,
)
from importlib import resources
from typing import Any, TypeVar

from redis.exceptions import (
    AskError,
    ClusterDownError,
    MasterDownError,
    NoScriptError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.redislive import (
    RECONNECT_FIRST_DELAY,
    RECONNECT_MAX_DELAY,
    Arg,
    LiveReader,
    ReaderClosed,
    ReaderFailed,
    Reply,
    Resync,
)

from ..base import (
    GENESIS_HASH,
    EventStore,
    EventStoreError,
    ReplicationUnconfirmed,
    StoreClosed,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    chain_events,
    check_append_args,
    check_game_id,
    check_read_args,
)
from .entries import events_from_entries
from .urls import NoReplicasError
from .wire import open_wire

logger = logging.getLogger(__name__)

T = TypeVar("T")

APPEND_SCRIPT = resources.files(__package__).joinpath("append.lua").read_bytes()
"""The append script (package data beside this module); its arguments and replies are described
at its top."""

_APPEND_SHA = hashlib.sha1(APPEND_SCRIPT).hexdigest()

# KEYS[1]: a game's stream, KEYS[2]: a scratch key of its slot. A write that leaves nothing
# behind, so that a WAIT after it on the same connection covers every write the game's master
# made before it; replies the stream's last version.
_CONFIRM_SCRIPT = """
redis.call('SET', KEYS[2], '1')
redis.call('DEL', KEYS[2])
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return 0 end
return tonumber(string.match(last[1][1], '^0%-(%d+)$')) or 0
"""

# KEYS[1]: a game's stream; ARGV[1]: the version it must end at to be deleted.
_REMOVE_SCRIPT = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 1 and last[1][1] == '0-' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@contextlib.contextmanager
def _as_store_errors() -> Iterator[None]:
    """Turn redis-py errors into the store's: transport errors are retryable
    (:class:`StoreUnavailable`), a refused command (a foreign key type, say) is not."""
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, TimeoutError) as exc:
        raise StoreUnavailable(f"redis unreachable: {exc!r}") from exc
    except (ClusterDownError, TryAgainError, AskError, RedisClusterException) as exc:
        # A cluster between a master's death and its replica's promotion, or resharding.
        raise StoreUnavailable(f"redis cluster unavailable: {exc!r}") from exc
    except NoReplicasError as exc:
        raise NoReplicas(f"redis refused the write: {exc}") from exc
    except (MasterDownError, ReadOnlyError) as exc:
        # A replica whose master is away, or a node that is no longer a master.
        raise StoreUnavailable(f"redis refused the command for now: {exc}") from exc
    except ResponseError as exc:
        raise EventStoreError(f"redis refused the command: {exc}") from exc


class NoReplicas(StoreUnavailable):
    """A master refused a write because fewer replicas than ``min-replicas-to-write`` are in
    sync with it: nothing was written (docs/OPERATING.md, "Redis Cluster")."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisEventStore(EventStore):
    """:class:`EventStore` on Redis Streams; see :mod:`services.eventstore.redis` for the layout.

    Holds its own connections for commands (at most ``max_connections``) and, once something
    subscribes, one dedicated connection for the live reader. ``client_name`` names them in
    ``CLIENT LIST`` (the reader as ``<client_name>-hub``) so operators can tell who holds which
    connection. ``redis`` is a redis-py client on the same Redis, for operators' tools.

    With ``wait_replicas`` above zero an append is acknowledged only once that many replicas
    have it (``WAIT wait_replicas wait_timeout_ms`` on the append's connection); short of that
    it fails with :class:`ReplicationUnconfirmed`: the events are on the master and may or may
    not survive its failure. Nothing may build on them until :meth:`confirm` confirms them (a
    retried command with the same command id is answered, not applied twice, once they are).
    A master that refuses the write for want of replicas (``min-replicas-to-write``) fails it
    with :class:`NoReplicas`, a :class:`StoreUnavailable`: nothing was written.

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
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1000,
    ) -> None:
        self.key_prefix = key_prefix
        self.client_name = client_name
        self.command_timeout = command_timeout
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = wait_timeout_ms
        self._wire = open_wire(url, client_name=client_name, max_connections=max_connections)
        self.redis = self._wire.redis
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._head_cache_size = head_cache_size
        self._resyncs = 0
        self._reader = LiveReader(
            self._wire,
            name=f"{client_name}-hub",
            block_ms=block_ms,
            min_interval_ms=tail_interval_ms,
            command_timeout=command_timeout,
            limit=inbox_limit,
            poll_first_ms=max(2 * tail_interval_ms, 1),
            poll_max_ms=50,
        )
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisEventStore:
        """Store on the Redis at ``url`` (``redis://``, ``rediss://`` or ``unix://``), or on the
        Redis Cluster that ``redis+cluster://host:port`` names a node of.

        ``options`` are the keyword arguments of the constructor. Connecting is lazy: a wrong
        URL surfaces as :class:`StoreUnavailable` on first use. Keep ``socket_timeout`` out of
        the URL's query (it would override ``command_timeout``'s reasons, see
        :class:`~.wire.Wire`).
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
        args: list[Arg] = [expected_version, prev_hash]
        for event in events:
            args += [event.payload, event.hash]
        (reply, acknowledged), retried = await self._execute(
            lambda: self._run_append_script(self.stream_key(game_id), args),
            timeout=self.command_timeout + max(self.wait_timeout_ms, 0) / 1000,
        )
        status = _text(reply[0])
        if status == "ok":
            self.remember_head(game_id, events[-1].version, events[-1].hash)
            self._check_replicated(game_id, events[-1].version, acknowledged)
            return events
        actual, head_hash = int(reply[1]), _text(reply[2])
        if retried and (actual, head_hash) == (events[-1].version, events[-1].hash):
            # The first attempt ran but its reply was lost: the head is exactly our batch chained
            # onto the version we expected, which the hash chain makes unambiguous.
            self.remember_head(game_id, actual, head_hash)
            self._check_replicated(game_id, actual, acknowledged)
            return events
        if status == "conflict":
            # The script read this head atomically: the caller's retry will hit the cache.
            self._heads[game_id] = (actual, head_hash)
        else:
            # Same version, other hash: the log was rewritten under us (restored backup,
            # recreated game). Forget what we knew and let the caller reload.
            self._heads.pop(game_id, None)
        raise VersionConflict(game_id, expected_version, actual)

    def _check_replicated(self, game_id: str, version: int, acknowledged: int) -> None:
        if acknowledged < self.wait_replicas:
            raise ReplicationUnconfirmed(
                game_id, version, acknowledged, self.wait_replicas, written=True
            )

    @property
    def confirms_replication(self) -> bool:
        """See :attr:`EventStore.confirms_replication`: when appends wait for replicas."""
        return self.wait_replicas > 0

    def confirm_key(self, game_id: str) -> str:
        """The scratch key :meth:`confirm` writes (and deletes at once) in the game's slot."""
        return f"{self.key_prefix}:{{{game_id}}}:confirm"

    async def confirm(self, game_id: str) -> None:
        """See :meth:`EventStore.confirm`: a write that leaves nothing behind in the game's
        slot, then ``WAIT wait_replicas wait_timeout_ms`` on the same connection. WAIT covers
        every earlier write of the master, whoever made it, because a master's replicas apply
        its writes in the order it made them. A master that refuses writes for want of replicas
        (``min-replicas-to-write``: ``NOREPLICAS``) confirms nothing either."""
        self._check_open()
        check_game_id(game_id)
        if self.wait_replicas <= 0:
            return
        keys = (self.stream_key(game_id), self.confirm_key(game_id))
        try:
            (version, acknowledged), _ = await self._execute(
                lambda: self._wire.call_then_wait(
                    ("EVAL", _CONFIRM_SCRIPT, 2, *keys), self.wait_replicas, self.wait_timeout_ms
                ),
                timeout=self.command_timeout + self.wait_timeout_ms / 1000,
            )
        except NoReplicas as error:
            raise ReplicationUnconfirmed(
                game_id, 0, 0, self.wait_replicas, written=False
            ) from error
        if int(acknowledged) < self.wait_replicas:
            raise ReplicationUnconfirmed(
                game_id, int(version), int(acknowledged), self.wait_replicas, written=False
            )

    async def _run_append_script(self, key: str, args: list[Arg]) -> tuple[Reply, int]:
        """``EVALSHA`` of the append script (then ``WAIT``, when appends wait for replicas):
        its reply and the replicas that acknowledged it. Where Redis does not know the script
        (a restart, a failover, ``SCRIPT FLUSH``) it is sent whole with ``EVAL``, which runs it
        and caches it on that server. Sent as a plain command: redis-py's Script wrapper and
        its ``evalsha`` decorators were a sixth of an append's client time."""
        for command in (
            ("EVALSHA", _APPEND_SHA, 1, key, *args),
            ("EVAL", APPEND_SCRIPT, 1, key, *args),
        ):
            try:
                if self.wait_replicas <= 0:
                    return await self._wire.call(*command), 0
                return await self._wire.call_then_wait(
                    command, self.wait_replicas, self.wait_timeout_ms
                )
            except NoScriptError:
                continue
        raise EventStoreError("redis refused the append script")

    async def game_ids(self) -> AsyncIterator[str]:
        """Every game with a stream, in no order: ``SCAN`` (on a cluster, of every master), so
        Redis stays responsive; for operators' tools, never on a request's path."""
        self._check_open()
        pattern = self.stream_key("*")
        async for raw_key in self.redis.scan_iter(match=pattern, count=1000):
            key = _text(raw_key)
            yield key[key.index("{") + 1 : key.rindex("}")]

    async def remove_game(self, game_id: str, version: int) -> bool:
        """Delete the game's stream if it still ends at ``version`` (an operator's retention,
        after exporting it: see ``verrater retention``); whether it did."""
        self._check_open()
        check_game_id(game_id)
        removed, _ = await self._execute(
            lambda: self._wire.call("EVAL", _REMOVE_SCRIPT, 1, self.stream_key(game_id), version)
        )
        self._heads.pop(game_id, None)
        return bool(removed)

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.read`: ``XRANGE`` from id ``0-<after_version + 1>``."""
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, limit)
        key, first = self.stream_key(game_id), f"0-{after_version + 1}"
        count: tuple[Arg, ...] = () if limit is None else ("COUNT", limit)
        entries, _ = await self._execute(lambda: self._wire.call("XRANGE", key, first, "+", *count))
        events = events_from_entries(game_id, entries)
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
            lambda: self._wire.call("XREVRANGE", self.stream_key(game_id), "+", "-", "COUNT", 1)
        )
        if not entries:
            return 0, GENESIS_HASH
        event = events_from_entries(game_id, entries)[0]
        self.remember_head(game_id, event.version, event.hash)
        return event.version, event.hash

    async def incarnation(self) -> str:
        """See :meth:`EventStore.incarnation`: the server's ``run_id`` (new at every start); on
        a cluster, those of the masters that answer (unavailable only when none does)."""
        self._check_open()
        run_ids, _ = await self._execute(self._wire.run_ids)
        return ",".join(run_ids)

    async def subscribe(
        self, game_id: str, after_version: int = 0
    ) -> AsyncGenerator[StoredEvent, None]:
        """See :meth:`EventStore.subscribe`.

        Catches up with ``XRANGE``, then follows the game's stream on the live reader from the
        last version it yielded. Versions make this gap-free and duplicate-free: anything at or
        below ``delivered`` is dropped, and any hole (the reader was ahead, or the subscription's
        queue overflowed: a :class:`~services.redislive.Resync`; or a version that does not
        follow) is filled by re-reading from Redis. Redis outages are waited out with backoff,
        because a live tail has no caller to hand a retryable error to mid-stream.
        """
        self._check_open()
        check_game_id(game_id)
        check_read_args(after_version, None)
        delivered = after_version
        for event in await self._read_patiently(game_id, delivered):
            delivered = event.version
            yield event
        subscription = await self._reader.subscribe(self.stream_key(game_id), b"0-%d" % delivered)
        try:
            while True:
                try:
                    item = await subscription.next()
                except ReaderFailed as failed:
                    raise EventStoreError(f"live event reader failed: {failed.cause!r}") from None
                except ReaderClosed:
                    raise StoreClosed("the redis event store is closed") from None
                if isinstance(item, Resync):
                    resync = True
                else:
                    resync = False
                    for event in events_from_entries(game_id, item.entries):
                        if event.version <= delivered:
                            continue
                        if event.version != delivered + 1:
                            resync = True  # a hole: re-read rather than skip
                            break
                        self.remember_head(game_id, event.version, event.hash)
                        delivered = event.version
                        yield event
                if resync:
                    self._resyncs += 1
                    for event in await self._read_patiently(game_id, delivered):
                        delivered = event.version
                        yield event
        finally:
            subscription.close()

    @property
    def live_subscriptions(self) -> int:
        """See :attr:`EventStore.live_subscriptions`."""
        return self._reader.subscriber_count

    @property
    def resyncs(self) -> int:
        """Times a live subscription re-read from Redis to fill a hole (a slow consumer's
        overflowed queue, or a join behind the live reader): a health metric, normally near
        zero."""
        return self._resyncs

    @property
    def hub_task(self) -> asyncio.Task[None] | None:
        """The live reader task (one per store, whatever the number of subscribers)."""
        return self._reader.task

    async def close(self) -> None:
        """Stop the live reader, end open subscriptions, close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._reader.close(StoreClosed("the redis event store is closed"))
        await self._wire.close()

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

    async def _execute(
        self, command: Callable[[], Awaitable[T]], timeout: float | None = None
    ) -> tuple[T, bool]:
        """Run one Redis call, once more if its connection dropped; return (result, retried).

        After a Redis restart or failover every pooled connection is dead and only its first
        use finds out, so one immediate retry on a fresh connection hides that. A second drop
        means Redis is really unreachable. Timeouts are not retried: the command may be running.
        A timeout disconnects the connection (redis-py drops it on any interrupted read). The
        deadline (``command_timeout``, unless ``timeout`` says otherwise: an append also waits
        for its replicas) includes waiting for a free connection when ``max_connections`` are
        busy.
        """
        deadline = self.command_timeout if timeout is None else timeout
        with _as_store_errors():
            try:
                async with asyncio.timeout(deadline):
                    return await command(), False
            except RedisConnectionError:
                logger.info("redis connection dropped; retrying once on a fresh connection")
                async with asyncio.timeout(deadline):
                    return await command(), True

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
        delay = RECONNECT_FIRST_DELAY
        while True:
            try:
                return await self.read(game_id, after_version)
            except StoreUnavailable as exc:
                logger.warning("subscription read failed (%s); retrying in %.2fs", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RECONNECT_MAX_DELAY)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("the redis event store is closed")
