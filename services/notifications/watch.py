"""WatchNotifications as an application object: a player's notification streams, bounded.

A player may hold at most `max_streams` streams in this process (a phone and a tablet and a
reconnect that overlaps the old stream fit; a client that leaks streams gets TOO_MANY_STREAMS).
Behind a load balancer each replica counts its own, which bounds a player all the same.

A stream pulls from a live subscription only when gRPC has taken the previous message (gRPC
holds what the client's flow-control window allows), so what arrives for a client that does not
read waits on our side. Once more than `max_pending` arrived while the stream took none for
`stall_limit` seconds, the subscription is cut off (the fan-out forgets it at once, what waited
is dropped) and the stream ends with SLOW_READER: at once where the stream is stuck handing a
message to a client that does not read (`on_cut`, see `rpc.cut_off`), else as soon as gRPC
takes the message in hand; the client resumes from its last cursor. Catching up is read as the
client reads, so a long catch-up is never mistaken for a slow reader.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from services.errors import Reason, ServiceError

from .kinds import Received
from .port import STALL_LIMIT, Notifications

DEFAULT_MAX_STREAMS = 5
DEFAULT_MAX_PENDING = 16


class TooManyStreams(ServiceError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            Reason.TOO_MANY_STREAMS,
            f"you have {limit} notification streams open already: close one (one per app is "
            "enough), then watch again",
            limit=str(limit),  # the key the game streams' refusal uses
            max_streams=str(limit),  # kept for clients written before `limit`
        )


class NotificationStreams:
    """The WatchNotifications streams of this process (see the module docstring)."""

    def __init__(
        self,
        notifications: Notifications,
        *,
        max_streams: int = DEFAULT_MAX_STREAMS,
        max_pending: int = DEFAULT_MAX_PENDING,
        stall_limit: float = STALL_LIMIT,
    ) -> None:
        self.notifications = notifications
        self._max_streams = max_streams
        self._max_pending = max_pending
        self._stall_limit = stall_limit
        self._open: dict[str, int] = {}

    def open_streams(self, player_id: str) -> int:
        """The player's streams open in this process."""
        return self._open.get(player_id, 0)

    async def watch(
        self,
        player_id: str,
        cursor: str,
        on_cut: Callable[[ServiceError], None] | None = None,
    ) -> AsyncIterator[Received]:
        """The player's notifications after `cursor` (empty: from now), then live; `on_cut` is
        told when the stream is cut off for not reading (the server may be stuck sending to
        it: see `rpc.cut_off`)."""
        if self.open_streams(player_id) >= self._max_streams:
            raise TooManyStreams(self._max_streams)
        self._open[player_id] = self.open_streams(player_id) + 1
        try:
            subscription = self.notifications.subscribe(
                player_id,
                cursor,
                max_waiting=self._max_pending,
                stall_limit=self._stall_limit,
                on_cut=on_cut,
            )
            async with contextlib.aclosing(subscription):
                async for received in subscription:
                    yield received
                    del received  # not held while the next is awaited
        finally:
            self._open[player_id] -= 1
            if not self._open[player_id]:
                del self._open[player_id]
