"""The live reader: one per process, handing every watched player's new notifications to the
subscriptions in this process.

On a standalone Redis it is one blocking ``XREAD`` over the inboxes of every player watched here,
on a connection of its own, never a Redis connection per subscriber. On a Redis Cluster, where
one command may only name keys of one slot, it polls instead: one ``XREAD`` per watched inbox,
pipelined (one round trip per node), every 20 ms while notifications come and backing off to
200 ms when none do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import ResponseError
from redis.typing import KeyT, StreamIdT

from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis
from services.tasks import cancel_and_wait

from ..kinds import Position, format_cursor
from ..port import NotificationsUnavailable, Subscriber
from .calls import reaching_redis
from .entries import position_of, received_from

logger = logging.getLogger(__name__)

# A hub polling a cluster's inboxes: the first and the longest pause between reads.
_POLL_FIRST = 0.02
_POLL_MAX = 0.2

_RECONNECT_FIRST_DELAY = 0.05
_RECONNECT_MAX_DELAY = 2.0
#: Entries one XREAD of the hub takes per inbox at most.
_XREAD_COUNT = 512


class HubOwner(Protocol):
    """What the live reader uses of its adapter."""

    redis: AnyRedis
    client_name: str
    command_timeout: float

    def inbox_key(self, player_id: str) -> str: ...


class InboxHub:
    """The process's one live reader: a blocking ``XREAD`` over every watched player's inbox.

    It remembers, per player, the last position it read and resumes there after a timeout, a
    wake-up or a reconnect. When a player is added, ``CLIENT UNBLOCK`` ends the pending
    ``XREAD`` so the next one includes the new inbox (if that races with the read being sent,
    the newcomer waits one block at most; nothing is lost either way).
    """

    def __init__(self, owner: HubOwner, reader: Redis | None, block_ms: int) -> None:
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
            async with reaching_redis(self._owner.command_timeout):
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
                received = received_from(player_id, entry_id, fields)
                position = self._positions[player_id]
                if received.position <= position:
                    continue
                self._positions[player_id] = received.position
                # Each entry names the one before it: when that is not where the hub stood,
                # retention dropped entries the hub never read. Whoever follows re-reads (and
                # learns whether its cursor expired) rather than silently skip them.
                gap = position_of(fields[b"p"]) != position
                for subscriber in list(self._subscribers[player_id]):
                    if gap:
                        subscriber.missed()
                    if not subscriber.deliver(received):
                        self.leave(subscriber)
                if player_id not in self._subscribers:
                    break  # its last subscriber was cut off
