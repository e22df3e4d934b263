"""The Redis adapter itself: publishing, reading from a cursor, the outbound feed, and live
subscriptions through the process's live reader (services.redislive).

The layout it reads and writes is described in :mod:`services.notifications.redis`; its key
names are in :mod:`.keys`, the publish script's calls in :mod:`.publishing`, a cluster's
masters in :mod:`.nodes` and its feed shards in :mod:`.feed`, live subscriptions in
:mod:`.live`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ClusterDownError, ResponseError

from services.errors import ServiceError
from services.eventstore import AnyRedis, is_cluster_url, redis_client
from services.redislive import LiveReader

from ..kinds import (
    ORIGIN,
    Notification,
    Position,
    Received,
    format_cursor,
    parse_cursor,
    versioned,
)
from ..port import (
    DEDUPE_SECONDS,
    DEFAULT_INBOX_LIMIT,
    DEFAULT_OUTBOUND_MAXLEN,
    KEEP_PER_PLAYER,
    KEEP_SECONDS,
    Notifications,
    NotificationsUnavailable,
    OutboundEntry,
    Published,
    check_resumable,
    stored_or_raise,
)
from .calls import once_more_if_dropped
from .entries import decode_outbound, last_deleted, outbound_fields, position_of, received_from
from .feed import ClusterFeed
from .keys import OUTBOUND_SHARDS, Keys
from .live import follow
from .nodes import ClusterNodes, transient
from .publishing import PUBLISH_SCRIPT, PlayerCall, Retention, player_calls, run_pipelined, settle

#: How long closing gives the outbound feed's writer on a cluster to write what waits.
_FEED_CLOSE_SECONDS = 1.0
#: Entries one XREAD of the live reader takes per inbox at most.
_XREAD_COUNT = 512


class RedisNotifications(Notifications):
    """:class:`Notifications` on Redis Streams; see the module docstring for the layout.

    Holds one pooled client for commands and, once something subscribes, one connection per
    server for the live reader (named ``<client_name>-hub`` in ``CLIENT LIST``).
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
        self.keys = Keys(key_prefix)
        self.outbound_key = self.keys.outbound
        self._retention = Retention(keep, int(keep_seconds * 1000), int(dedupe_seconds * 1000))
        self._keep_ms = self._retention.keep_ms
        self._outbound_maxlen = outbound_maxlen
        self.redis: AnyRedis = redis_client(url, client_name=client_name)
        if self.redis.get_encoder().decode_responses:
            raise ValueError("notifications are stored as protobuf bytes: drop decode_responses")
        self.cluster = is_cluster_url(url)
        self._nodes: ClusterNodes | None = None
        self._feed: ClusterFeed | None = None
        if isinstance(self.redis, RedisCluster):
            self.outbound_shards = OUTBOUND_SHARDS
            self._nodes = ClusterNodes(
                self.redis, url, client_name=client_name, timeout=command_timeout
            )
            if outbound_maxlen > 0:
                self._feed = ClusterFeed(
                    self._nodes,
                    [self.keys.outbound_shard(shard) for shard in range(OUTBOUND_SHARDS)],
                    maxlen=-(-outbound_maxlen // OUTBOUND_SHARDS),
                    timeout=command_timeout,
                )
        self._publish_script = None if self.cluster else self.redis.register_script(PUBLISH_SCRIPT)
        # On a cluster it polls a master whose watched inboxes lie in several slots: every
        # 20 ms while notifications come, backing off to 200 ms when none do.
        self._reader = LiveReader.on_client(
            url,
            self.redis,
            client_name=client_name,
            block_ms=block_ms,
            command_timeout=command_timeout,
            limit=inbox_limit,
            count=_XREAD_COUNT,
            poll_first_ms=20,
            poll_max_ms=200,
        )
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisNotifications:
        """Notifications on the Redis at `url`; `options` are the constructor's keywords."""
        return cls(url, **options)

    def inbox_key(self, player_id: str) -> str:
        """The player's inbox stream, hash-tagged by player for Redis Cluster."""
        return self.keys.inbox(player_id)

    def dedupe_key(self, player_id: str, key: str) -> str:
        """Where the player's dedupe key is remembered (in the player's slot): for a versioned
        kind (kinds.versioned), the one record of its game and seat."""
        found = versioned(key)
        return self.keys.dedupe(player_id, found[0] if found else key)

    def route(self, player_id: str) -> str:
        """See :meth:`Notifications.route`: on a cluster, the master of the player's slot."""
        if self._nodes is None:
            return ""
        return self._nodes.address_of(self.keys.inbox(player_id))

    def outbound_shard(self, player_id: str) -> int:
        """See :meth:`Notifications.outbound_shard`: on a cluster, the player's slot modulo
        ``OUTBOUND_SHARDS``."""
        return self.keys.shard_of(player_id) if self.cluster else 0

    def outbound_key_of(self, shard: int) -> str:
        """The stream of the outbound feed's shard `shard`."""
        if not 0 <= shard < self.outbound_shards:
            raise ValueError(f"the outbound feed has {self.outbound_shards} shards, not {shard}")
        return self.keys.outbound_shard(shard) if self.cluster else self.outbound_key

    async def publish_each(self, notifications: Sequence[Notification]) -> list[Published]:
        """See :meth:`Notifications.publish_each`: a script call per player, pipelined (on a
        cluster, a pipeline per master); on a cluster the feed is written behind."""
        published, _marks = await self._publish(notifications)
        return published

    async def publish(self, notifications: Sequence[Notification]) -> list[Received | None]:
        """See :meth:`Notifications.publish`; on a cluster it also waits (up to the command
        timeout) until the outbound feed has what was stored, which it gets later otherwise."""
        published, marks = await self._publish(notifications)
        stored = stored_or_raise(published)
        if self._feed is not None and marks:
            await self._feed.written(marks, self.command_timeout)
        return stored

    async def _publish(
        self, notifications: Sequence[Notification]
    ) -> tuple[list[Published], dict[int, int]]:
        """What became of each notification, and on a cluster, per shard of the outbound feed,
        the mark of its last entry written behind them."""
        self._check_open()
        if not notifications:
            return [], {}
        now_ms = int(time.time() * 1000)
        published: list[Published] = [None] * len(notifications)
        if self._nodes is None:
            calls = player_calls(
                self.keys,
                notifications,
                self._retention,
                now_ms=now_ms,
                feed_maxlen=self._outbound_maxlen,
            )
            assert isinstance(self.redis, Redis)  # standalone: no cluster nodes
            replies = await run_pipelined(
                self.redis, calls, self.command_timeout, self._publish_script
            )
            for call, reply in zip(calls, replies, strict=True):
                settle(call, reply, notifications, published)
            return published, {}
        return published, await self._publish_on_cluster(notifications, now_ms, published)

    async def _publish_on_cluster(
        self, notifications: Sequence[Notification], now_ms: int, published: list[Published]
    ) -> dict[int, int]:
        """The scripts master by master, at once, each master's bounded by the command
        timeout; then the outbound feed's entries handed to the feed's writer."""
        assert self._nodes is not None
        try:
            await self._nodes.ready()
        except Exception as exc:
            raise NotificationsUnavailable(f"redis cluster unreachable: {exc!r}") from exc
        calls = player_calls(
            self.keys, notifications, self._retention, now_ms=now_ms, feed_maxlen=0
        )
        by_master: dict[str, list[PlayerCall]] = {}
        for call in calls:
            by_master.setdefault(self.route(call.player_id), []).append(call)
        unserved = by_master.pop("", [])
        if unserved:
            self._nodes.refresh_soon()
        nodes = self._nodes
        replies = await asyncio.gather(
            *(
                run_pipelined(nodes.client_at(address), each, self.command_timeout, None)
                for address, each in by_master.items()
            )
        )
        for each, theirs in zip(by_master.values(), replies, strict=True):
            for call, reply in zip(each, theirs, strict=True):
                if isinstance(reply, BaseException) and transient(reply):
                    nodes.refresh_soon()  # a master away, or a slot that moved
                settle(call, reply, notifications, published)
        for call in unserved:
            settle(call, ClusterDownError("no master known for the slot"), notifications, published)
        return self._feed_behind(calls, notifications, published)

    def _feed_behind(
        self,
        calls: Sequence[PlayerCall],
        notifications: Sequence[Notification],
        published: Sequence[Published],
    ) -> dict[int, int]:
        """Hand what the calls stored to the outbound feed's writer, player by player in
        order; the last mark per shard."""
        marks: dict[int, int] = {}
        if self._feed is None:
            return marks
        for call in calls:
            shard = self.keys.shard_of(call.player_id)
            for place in call.places:
                received = published[place]
                if isinstance(received, Received):
                    marks[shard] = self._feed.add(shard, outbound_fields(received))
        return marks

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

        entries, info = await once_more_if_dropped(self.command_timeout, read_and_inspect)
        if isinstance(entries, Exception):
            raise entries
        exists = self._exists(info)
        now_ms = int(time.time() * 1000)
        check_resumable(
            after,
            now_ms=now_ms,
            oldest_kept_ms=now_ms - self._keep_ms,
            exists=exists,
            last=position_of(info["last-generated-id"]) if exists else ORIGIN,
            deleted=last_deleted(info) if exists else ORIGIN,
        )
        return [received_from(player_id, entry_id, fields) for entry_id, fields in entries]

    async def _head(self, player_id: str) -> Position:
        self._check_open()

        async def inspect() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.xinfo_stream(self.inbox_key(player_id))
            replies: list[Any] = await pipe.execute(raise_on_error=False)
            return replies

        (info,) = await once_more_if_dropped(self.command_timeout, inspect)
        return position_of(info["last-generated-id"]) if self._exists(info) else ORIGIN

    @staticmethod
    def _exists(info: Any) -> bool:
        """Whether an ``XINFO STREAM`` reply describes a stream (False: no such key)."""
        if isinstance(info, ResponseError) and "no such key" in str(info):
            return False
        if isinstance(info, Exception):
            raise info
        return True

    async def outbound(
        self, after_cursor: str = "0-0", limit: int = 100, shard: int = 0
    ) -> list[OutboundEntry]:
        """See :meth:`Notifications.outbound`: ``XRANGE`` of the shard's stream."""
        self._check_open()
        key = self.outbound_key_of(shard)
        after = parse_cursor(after_cursor)
        entries: Any = await once_more_if_dropped(
            self.command_timeout,
            lambda: self.redis.xrange(key, f"({format_cursor(after)}", "+", count=limit),
        )
        return [decode_outbound(entry_id, fields) for entry_id, fields in entries]

    def _follow(
        self,
        player_id: str,
        delivered: Position,
        *,
        limit: int,
        stall_limit: float | None,
        on_cut: Callable[[ServiceError], None] | None,
    ) -> AsyncGenerator[Received, None]:
        """See :meth:`Notifications._follow`: the player's inbox on the live reader
        (:func:`.live.follow`)."""
        self._check_open()
        return follow(
            self._reader,
            self.inbox_key(player_id),
            self._catch_up,
            player_id,
            delivered,
            limit=limit,
            stall_limit=stall_limit,
            on_cut=on_cut,
        )

    @property
    def live_subscriptions(self) -> int:
        return self._reader.subscriber_count

    async def close(self) -> None:
        """See :meth:`Notifications.close`: open subscriptions end with UNAVAILABLE."""
        if self._closed:
            return
        self._closed = True
        await self._reader.close(NotificationsUnavailable("the server is shutting down"))
        if self._feed is not None:
            await self._feed.close(min(self.command_timeout, _FEED_CLOSE_SECONDS))
        if self._nodes is not None:
            await self._nodes.close()
        await self.redis.aclose()

    def _check_open(self) -> None:
        if self._closed:
            raise NotificationsUnavailable("the server is shutting down")
