"""The Redis adapter itself: publishing, reading from a cursor, the outbound feed, and live
subscriptions through the process's one live reader.

The layout it reads and writes is described in :mod:`services.notifications.redis`; its key
names are in :mod:`.keys`, the publish script in ``publish.lua``, the live reader in :mod:`.hub`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from importlib import resources
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from services.eventstore import AnyRedis, is_cluster_url, redis_client

from ..kinds import ORIGIN, Notification, Position, Received, format_cursor, parse_cursor
from ..messages import notification_to_proto
from ..port import (
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
from .calls import once_more_if_dropped
from .entries import decode_outbound, last_deleted, position_of, received_from
from .hub import InboxHub
from .keys import Keys

PUBLISH_SCRIPT = resources.files(__package__).joinpath("publish.lua").read_text()
"""The publish script (package data beside this module); its keys, arguments and reply are
described at its top."""


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
        self.keys = Keys(key_prefix)
        self.outbound_key = self.keys.outbound
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
        self._publish_script = self.redis.register_script(PUBLISH_SCRIPT)
        self._hub = InboxHub(self, self._reader, block_ms)
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisNotifications:
        """Notifications on the Redis at `url`; `options` are the constructor's keywords."""
        return cls(url, **options)

    def inbox_key(self, player_id: str) -> str:
        """The player's inbox stream, hash-tagged by player for Redis Cluster."""
        return self.keys.inbox(player_id)

    def dedupe_key(self, player_id: str, key: str) -> str:
        """Where the player's dedupe key is remembered (in the player's slot)."""
        return self.keys.dedupe(player_id, key)

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

        replies = await once_more_if_dropped(self.command_timeout, run_scripts)
        return [
            None if entry_id is None else Received(position_of(entry_id), notification)
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
                    PUBLISH_SCRIPT,
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

        replies = await once_more_if_dropped(self.command_timeout, run_scripts)
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

            await once_more_if_dropped(self.command_timeout, feed)
        return [
            None if entry_id is None else Received(position_of(entry_id), notification)
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

    async def outbound(self, after_cursor: str = "0-0", limit: int = 100) -> list[OutboundEntry]:
        """See :meth:`Notifications.outbound`: ``XRANGE`` of the feed."""
        self._check_open()
        after = parse_cursor(after_cursor)
        entries: Any = await once_more_if_dropped(
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
