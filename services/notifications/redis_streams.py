"""Notifications on Redis Streams: every player's notifications, shared by every replica.

Keys (``<prefix>`` is ``verrater``):

    <prefix>:{notify:<player_id>}:inbox       stream: the player's notifications, fields
                                              k (dedupe key), n (verrater.v1.Notification) and
                                              p (the cursor of the entry before)
    <prefix>:{notify:<player_id>}:once:<key>  string: the dedupe key was stored (expires)
    <prefix>:notify:outbound                  stream: the outbound feed for push gateways

A player's keys share the hash tag ``{notify:<player_id>}``, so on Redis Cluster they sit in one
slot. The inbox's entry ids are the cursors clients see. An inbox keeps about `keep` entries
(``MAXLEN ~``) and none older than `keep_seconds` (``MINID ~`` on every publish, and the whole
key expires that long after its last notification). Trimming removes the oldest entries only,
so the first entry kept names, in ``p``, the last one removed: a cursor below it has expired
(``XINFO``'s ``max-deleted-entry-id`` would say the same, but Redis 7.0 counts only ``XDEL``).

Publishing is one Lua script per notification: ``SET NX`` on the dedupe key (with a TTL), and
only when that succeeds the ``XADD`` to the player's inbox and the one to the outbound feed, so
both get a notification exactly once, atomically, however often it is published. On Redis
Cluster the outbound feed (its own slot) cannot join that script: it is written by a separate
``XADD`` once the script reports a new notification, and a crash between the two loses that
push (the inbox keeps the notification); see docs/OPERATING.md.

Live subscriptions are served by one reader per process (:class:`_InboxHub`): one blocking
``XREAD`` over the inboxes of every player watched here, fanned out to in-process subscribers,
never a Redis connection per subscriber. On a Redis Cluster, where one command may only name
keys of one slot, the reader polls instead: one ``XREAD`` per watched inbox, pipelined (one
round trip per node), every 20 ms while notifications come and backing off to 200 ms when none
do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.typing import KeyT, StreamIdT

from services.api.verrater.v1 import lobby_pb2
from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, is_cluster_url, redis_client
from services.tasks import cancel_and_wait

from .kinds import ORIGIN, Notification, Position, Received, format_cursor, parse_cursor
from .messages import notification_from_proto, notification_to_proto
from .port import (
    DEDUPE_SECONDS,
    DEFAULT_INBOX_LIMIT,
    DEFAULT_OUTBOUND_MAXLEN,
    KEEP_PER_PLAYER,
    KEEP_SECONDS,
    Notifications,
    NotificationsUnavailable,
    OutboundEntry,
    Subscriber,
    check_resumable,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

# KEYS: dedupe key, the player's inbox, the outbound feed.
# ARGV: 1 dedupe ms, 2 keep (count), 3 oldest id kept (ms), 4 keep ms, 5 outbound maxlen (0: no
# feed), 6 dedupe key, 7 n (Notification without cursor), 8 player id, 9 kind, 10 game id,
# 11 table id. Replies the new entry's id, or nil when the key was stored before.
# The feed's copy of n gets its cursor prepended: field 1 (cursor, a string) is the byte 0x0A,
# then its length (an entry id is at most 41 bytes: one byte), then the id. A message parser
# merges concatenated fields, so n is then the complete Notification.
_PUBLISH_SCRIPT = r"""
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return false
end
local before = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local previous = '0-0'
if #before == 1 then previous = before[1][1] end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*',
  'k', ARGV[6], 'n', ARGV[7], 'p', previous)
redis.call('XTRIM', KEYS[2], 'MINID', '~', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if tonumber(ARGV[5]) > 0 then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*',
    'player_id', ARGV[8], 'kind', ARGV[9], 'game_id', ARGV[10], 'table_id', ARGV[11],
    'cursor', id, 'key', ARGV[6], 'n', '\10' .. string.char(#id) .. id .. ARGV[7])
end
return id
"""

# A hub polling a cluster's inboxes: the first and the longest pause between reads.
_POLL_FIRST = 0.02
_POLL_MAX = 0.2

_RECONNECT_FIRST_DELAY = 0.05
_RECONNECT_MAX_DELAY = 2.0
#: Entries one XREAD of the hub takes per inbox at most.
_XREAD_COUNT = 512


def _position(entry_id: bytes | str) -> Position:
    return parse_cursor(entry_id.decode() if isinstance(entry_id, bytes) else entry_id)


def _received(player_id: str, entry_id: bytes, fields: Mapping[bytes, bytes]) -> Received:
    message = lobby_pb2.Notification.FromString(fields[b"n"])
    notification = notification_from_proto(message, player_id, fields[b"k"].decode())
    return Received(_position(entry_id), notification)


def _last_deleted(info: Mapping[str, Any]) -> Position:
    """The last entry retention removed from a stream, from its ``XINFO STREAM``."""
    first = info["first-entry"]
    if first is None:  # everything removed (not something publishing leaves behind)
        return _position(info["last-generated-id"])
    return _position(first[1][b"p"])


def decode_outbound(entry_id: bytes | str, fields: Mapping[bytes, bytes]) -> OutboundEntry:
    """An outbound feed entry as ``XRANGE``/``XREADGROUP`` return it (raw bytes fields), for a
    push gateway written in Python, and for the tests."""
    message = lobby_pb2.Notification.FromString(fields[b"n"])
    notification = notification_from_proto(
        message, fields[b"player_id"].decode(), fields[b"key"].decode()
    )
    return OutboundEntry(_position(entry_id), message.cursor, notification)


@contextlib.asynccontextmanager
async def _reaching_redis(timeout: float) -> AsyncIterator[None]:
    """Bound one exchange with Redis in time; transport errors become UNAVAILABLE."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except TRANSIENT_REDIS_ERRORS as exc:
        raise NotificationsUnavailable(f"redis unreachable: {exc!r}") from exc


async def _once_more_if_dropped(timeout: float, command: Callable[[], Awaitable[T]]) -> T:
    """Run `command`, and once more if its connection dropped: after a Redis restart every
    pooled connection is dead and only its first use finds out. Every command here may run
    twice (reads, and publishes, which the dedupe keys make idempotent)."""
    async with _reaching_redis(timeout):
        try:
            return await command()
        except RedisConnectionError:
            return await command()


class _InboxHub:
    """The process's one live reader: a blocking ``XREAD`` over every watched player's inbox.

    It remembers, per player, the last position it read and resumes there after a timeout, a
    wake-up or a reconnect. When a player is added, ``CLIENT UNBLOCK`` ends the pending
    ``XREAD`` so the next one includes the new inbox (if that races with the read being sent,
    the newcomer waits one block at most; nothing is lost either way).
    """

    def __init__(self, owner: RedisNotifications, reader: Redis | None, block_ms: int) -> None:
        self._owner = owner
        self._reader = reader  # None on a cluster: the hub polls with the owner's client
        self._block_ms = block_ms
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._positions: dict[str, Position] = {}
        self._players_by_key: dict[bytes, str] = {}
        self._changed = asyncio.Event()
        self._reader_id: int | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def subscriber_count(self) -> int:
        return sum(len(subscribers) for subscribers in self._subscribers.values())

    def join(self, subscriber: Subscriber) -> bool:
        """Hand the player's new notifications to `subscriber`; True when the player is new to
        the hub (the caller then interrupts the pending read)."""
        player_id = subscriber.player_id
        subscribers = self._subscribers.get(player_id)
        if subscribers is None:
            self._subscribers[player_id] = {subscriber}
            self._positions[player_id] = subscriber.delivered
            self._players_by_key[self._owner.inbox_key(player_id).encode()] = player_id
            if self._task is None or self._task.done():
                self._task = asyncio.get_running_loop().create_task(
                    self._run(), name=f"{self._owner.client_name}-hub"
                )
            self._changed.set()
            return True
        subscribers.add(subscriber)
        if self._positions[player_id] > subscriber.delivered:
            subscriber.resync = True  # the hub handed others what this one has not read yet
        return False

    def leave(self, subscriber: Subscriber) -> None:
        player_id = subscriber.player_id
        subscribers = self._subscribers.get(player_id)
        if subscribers is None:
            return
        subscribers.discard(subscriber)
        if not subscribers:
            del self._subscribers[player_id]
            del self._positions[player_id]
            del self._players_by_key[self._owner.inbox_key(player_id).encode()]

    async def interrupt_block(self) -> None:
        """Best effort: end the reader's current ``XREAD`` so the next one names a new inbox."""
        if self._reader_id is None:
            return
        with contextlib.suppress(NotificationsUnavailable, ResponseError):
            async with _reaching_redis(self._owner.command_timeout):
                await self._owner.redis.client_unblock(self._reader_id)

    async def stop(self, reason: NotificationsUnavailable) -> None:
        """Cancel the reader and end every subscription with `reason`."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        self._fail_all(reason)

    def _fail_all(self, reason: NotificationsUnavailable) -> None:
        for subscribers in self._subscribers.values():
            for subscriber in subscribers:
                subscriber.fail(reason)
        self._subscribers.clear()
        self._positions.clear()
        self._players_by_key.clear()

    async def _pause(self, poll: float) -> float:
        """Between two polls of a cluster: ``poll`` seconds, or until a player joins; the
        next pause is longer."""
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(poll):
                await self._changed.wait()
        return min(poll * 2, _POLL_MAX)

    async def _run(self) -> None:
        delay = _RECONNECT_FIRST_DELAY
        poll = _POLL_FIRST
        task = asyncio.current_task()
        try:
            while True:
                if task is not None and task.cancelling():
                    # A cancellation redis-py swallowed (its cluster pipeline can, on 3.11).
                    raise asyncio.CancelledError
                if not self._subscribers:
                    self._changed.clear()
                    await self._changed.wait()
                    continue
                read_from = dict(self._positions)
                try:
                    reply = await self._read_once(read_from)
                except TRANSIENT_REDIS_ERRORS as exc:
                    self._reader_id = None
                    logger.warning(
                        "notification hub lost redis (%s); retrying in %.2fs", exc, delay
                    )
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, _RECONNECT_MAX_DELAY)
                    continue
                delay = _RECONNECT_FIRST_DELAY
                if reply:
                    self._dispatch(reply, read_from)
                    poll = _POLL_FIRST
                elif self._reader is None:
                    poll = await self._pause(poll)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Anything but a transport error (a key of a foreign type...) would recur forever:
            # end the subscriptions loudly instead of leaving them waiting.
            logger.exception("notification hub failed")
            self._fail_all(NotificationsUnavailable(f"the live reader failed: {exc!r}"))

    async def _read_once(self, read_from: dict[str, Position]) -> Any:
        # The deadline outlasts the server-side block; it catches a half-open connection.
        async with asyncio.timeout(self._block_ms / 1000 + self._owner.command_timeout):
            if self._reader is None:
                return await self._poll_once(read_from)
            if self._reader_id is None:
                self._reader_id = await self._reader.client_id()
            streams: dict[KeyT, StreamIdT] = {
                self._owner.inbox_key(player_id): format_cursor(position)
                for player_id, position in read_from.items()
            }
            return await self._reader.xread(streams, count=_XREAD_COUNT, block=self._block_ms)

    async def _poll_once(self, read_from: dict[str, Position]) -> list[Any]:
        """One non-blocking ``XREAD`` per inbox (each in its player's slot), pipelined: the
        streams that had news, as ``[key, entries]`` pairs."""
        pipe = self._owner.redis.pipeline(transaction=False)
        for player_id, position in read_from.items():
            key = self._owner.inbox_key(player_id)
            pipe.xread({key: format_cursor(position)}, count=_XREAD_COUNT)
        streams: list[Any] = []
        for reply in await pipe.execute():
            if reply:
                streams.extend(reply.items() if isinstance(reply, dict) else reply)
        return streams

    def _dispatch(self, reply: Any, read_from: dict[str, Position]) -> None:
        # RESP3 replies map keys to entries, RESP2 replies are [key, entries] pairs.
        streams: Iterable[Any] = reply.items() if isinstance(reply, dict) else reply
        for key, entries in streams:
            player_id = self._players_by_key.get(key if isinstance(key, bytes) else key.encode())
            if player_id is None or self._positions[player_id] != read_from.get(player_id):
                # The player left (and maybe came back) while the read was out: what it read
                # follows a position that is no longer the hub's. The next read starts right.
                continue
            for entry_id, fields in entries:
                received = _received(player_id, entry_id, fields)
                position = self._positions[player_id]
                if received.position <= position:
                    continue
                self._positions[player_id] = received.position
                # Each entry names the one before it: when that is not where the hub stood,
                # retention dropped entries the hub never read. Whoever follows re-reads (and
                # learns whether its cursor expired) rather than silently skip them.
                gap = _position(fields[b"p"]) != position
                for subscriber in list(self._subscribers[player_id]):
                    if gap:
                        subscriber.missed()
                    if not subscriber.deliver(received):
                        self.leave(subscriber)
                if player_id not in self._subscribers:
                    break  # its last subscriber was cut off


class RedisNotifications(Notifications):
    """:class:`Notifications` on Redis Streams; see the module docstring for the layout.

    Holds one pooled client for commands and, once something subscribes, one connection for
    the live reader (named ``<client_name>-hub`` in ``CLIENT LIST``).
    """

    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = "verrater",
        client_name: str = "verrater-notify",
        keep: int = KEEP_PER_PLAYER,
        keep_seconds: float = KEEP_SECONDS,
        dedupe_seconds: float = DEDUPE_SECONDS,
        outbound_maxlen: int = DEFAULT_OUTBOUND_MAXLEN,
        inbox_limit: int = DEFAULT_INBOX_LIMIT,
        block_ms: int = 1000,
        command_timeout: float = 5.0,
    ) -> None:
        self.key_prefix = key_prefix
        self.client_name = client_name
        self.command_timeout = command_timeout
        self.inbox_limit = inbox_limit
        self.outbound_key = f"{key_prefix}:notify:outbound"
        self._keep = keep
        self._keep_ms = int(keep_seconds * 1000)
        self._dedupe_ms = int(dedupe_seconds * 1000)
        self._outbound_maxlen = outbound_maxlen
        self.redis: AnyRedis = redis_client(url, client_name=client_name)
        if self.redis.get_encoder().decode_responses:
            raise ValueError("notifications are stored as protobuf bytes: drop decode_responses")
        self.cluster = is_cluster_url(url)
        self._reader: Redis | None = (
            None
            if self.cluster
            else Redis.from_url(
                url, single_connection_client=True, client_name=f"{client_name}-hub"
            )
        )
        self._publish_script = self.redis.register_script(_PUBLISH_SCRIPT)
        self._hub = _InboxHub(self, self._reader, block_ms)
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisNotifications:
        """Notifications on the Redis at `url`; `options` are the constructor's keywords."""
        return cls(url, **options)

    def inbox_key(self, player_id: str) -> str:
        """The player's inbox stream, hash-tagged by player for Redis Cluster."""
        return f"{self.key_prefix}:{{notify:{player_id}}}:inbox"

    def dedupe_key(self, player_id: str, key: str) -> str:
        """Where the player's dedupe key is remembered (in the player's slot)."""
        return f"{self.key_prefix}:{{notify:{player_id}}}:once:{key}"

    async def publish(self, notifications: Sequence[Notification]) -> list[Received | None]:
        """See :meth:`Notifications.publish`: one pipeline of the publish script."""
        self._check_open()
        if not notifications:
            return []
        oldest_kept_ms = int(time.time() * 1000) - self._keep_ms
        if self.cluster:
            return await self._publish_on_cluster(notifications, oldest_kept_ms)

        async def run_scripts() -> list[Any]:
            assert isinstance(self.redis, Redis)  # a cluster published above
            pipe = self.redis.pipeline(transaction=False)
            for notification in notifications:
                player_id = notification.player_id
                await self._publish_script(
                    keys=[
                        self.dedupe_key(player_id, notification.key),
                        self.inbox_key(player_id),
                        self.outbound_key,
                    ],
                    args=[
                        self._dedupe_ms,
                        self._keep,
                        oldest_kept_ms,
                        self._keep_ms,
                        self._outbound_maxlen,
                        notification.key,
                        notification_to_proto(notification).SerializeToString(),
                        player_id,
                        notification.kind_name,
                        notification.game_id,
                        notification.table_id,
                    ],
                    client=pipe,
                )
            replies: list[Any] = await pipe.execute()
            return replies

        replies = await _once_more_if_dropped(self.command_timeout, run_scripts)
        return [
            None if entry_id is None else Received(_position(entry_id), notification)
            for notification, entry_id in zip(notifications, replies, strict=True)
        ]

    async def _publish_on_cluster(
        self, notifications: Sequence[Notification], oldest_kept_ms: int
    ) -> list[Received | None]:
        """The publish script without the outbound feed (a key of another slot), sent whole
        (``EVAL``: a promoted replica may not have it cached), then one ``XADD`` to the feed for
        each notification the scripts stored: at most once, see the module docstring."""
        messages = [notification_to_proto(n).SerializeToString() for n in notifications]

        async def run_scripts() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            for notification, message in zip(notifications, messages, strict=True):
                player_id = notification.player_id
                pipe.eval(
                    _PUBLISH_SCRIPT,
                    2,
                    self.dedupe_key(player_id, notification.key),
                    self.inbox_key(player_id),
                    self._dedupe_ms,
                    self._keep,
                    oldest_kept_ms,
                    self._keep_ms,
                    0,  # no outbound XADD inside the script
                    notification.key,
                    message,
                    player_id,
                    notification.kind_name,
                    notification.game_id,
                    notification.table_id,
                )
            replies: list[Any] = await pipe.execute()
            return replies

        replies = await _once_more_if_dropped(self.command_timeout, run_scripts)
        stored = [
            (notification, message, entry_id)
            for notification, message, entry_id in zip(
                notifications, messages, replies, strict=True
            )
            if entry_id is not None
        ]
        if stored and self._outbound_maxlen > 0:

            async def feed() -> list[Any]:
                pipe = self.redis.pipeline(transaction=False)
                for notification, message, entry_id in stored:
                    cursor = entry_id if isinstance(entry_id, bytes) else str(entry_id).encode()
                    pipe.xadd(
                        self.outbound_key,
                        {
                            "player_id": notification.player_id,
                            "kind": notification.kind_name,
                            "game_id": notification.game_id,
                            "table_id": notification.table_id,
                            "cursor": cursor,
                            "key": notification.key,
                            # The cursor prepended as field 1, as the script does.
                            "n": b"\x0a" + bytes([len(cursor)]) + cursor + message,
                        },
                        maxlen=self._outbound_maxlen,
                        approximate=True,
                    )
                done: list[Any] = await pipe.execute()
                return done

            await _once_more_if_dropped(self.command_timeout, feed)
        return [
            None if entry_id is None else Received(_position(entry_id), notification)
            for notification, entry_id in zip(notifications, replies, strict=True)
        ]

    async def _read_after(self, player_id: str, after: Position, limit: int) -> list[Received]:
        """``XRANGE`` after the position, then ``XINFO STREAM``: what the read returned is whole
        unless retention had dropped something after the position by the time of the info
        (retention only ever moves forward)."""
        self._check_open()
        key = self.inbox_key(player_id)

        async def read_and_inspect() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.xrange(key, f"({format_cursor(after)}", "+", count=limit)
            pipe.xinfo_stream(key)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
            return replies

        entries, info = await _once_more_if_dropped(self.command_timeout, read_and_inspect)
        if isinstance(entries, Exception):
            raise entries
        exists = self._exists(info)
        now_ms = int(time.time() * 1000)
        check_resumable(
            after,
            now_ms=now_ms,
            oldest_kept_ms=now_ms - self._keep_ms,
            exists=exists,
            last=_position(info["last-generated-id"]) if exists else ORIGIN,
            deleted=_last_deleted(info) if exists else ORIGIN,
        )
        return [_received(player_id, entry_id, fields) for entry_id, fields in entries]

    async def _head(self, player_id: str) -> Position:
        self._check_open()

        async def inspect() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.xinfo_stream(self.inbox_key(player_id))
            replies: list[Any] = await pipe.execute(raise_on_error=False)
            return replies

        (info,) = await _once_more_if_dropped(self.command_timeout, inspect)
        return _position(info["last-generated-id"]) if self._exists(info) else ORIGIN

    @staticmethod
    def _exists(info: Any) -> bool:
        """Whether an ``XINFO STREAM`` reply describes a stream (False: no such key)."""
        if isinstance(info, ResponseError) and "no such key" in str(info):
            return False
        if isinstance(info, Exception):
            raise info
        return True

    async def outbound(self, after_cursor: str = "0-0", limit: int = 100) -> list[OutboundEntry]:
        """See :meth:`Notifications.outbound`: ``XRANGE`` of the feed."""
        self._check_open()
        after = parse_cursor(after_cursor)
        entries: Any = await _once_more_if_dropped(
            self.command_timeout,
            lambda: self.redis.xrange(
                self.outbound_key, f"({format_cursor(after)}", "+", count=limit
            ),
        )
        return [decode_outbound(entry_id, fields) for entry_id, fields in entries]

    async def _join(self, subscriber: Subscriber) -> None:
        self._check_open()
        if self._hub.join(subscriber):
            await self._hub.interrupt_block()

    def _leave(self, subscriber: Subscriber) -> None:
        self._hub.leave(subscriber)

    @property
    def live_subscriptions(self) -> int:
        return self._hub.subscriber_count

    async def close(self) -> None:
        """See :meth:`Notifications.close`: open subscriptions end with UNAVAILABLE."""
        if self._closed:
            return
        self._closed = True
        await self._hub.stop(NotificationsUnavailable("the server is shutting down"))
        if self._reader is not None:
            await self._reader.aclose()
        await self.redis.aclose()

    def _check_open(self) -> None:
        if self._closed:
            raise NotificationsUnavailable("the server is shutting down")
