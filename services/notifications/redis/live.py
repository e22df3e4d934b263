"""Live subscriptions: a player's inbox followed on the process's live reader
(:class:`services.redislive.LiveReader`, one per adapter: on a standalone Redis one blocking
``XREAD`` over every watched inbox, on a Redis Cluster one reader per master; never a Redis
connection per subscriber).

What is the notifications' own stays here: each entry decoded as the notification it stores;
a hole (retention dropped entries before the reader saw them: each entry names, in ``p``, the
one before it) or a :class:`~services.redislive.Resync` answered by reading again from the last
position handed out (which says CURSOR_EXPIRED when what followed it is gone); a consumer that
stopped taking notifications cut off with SLOW_READER (`services.mailbox.Stall`); the reader's
failure surfaced as UNAVAILABLE.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable

from services.errors import ServiceError
from services.mailbox import Stall
from services.redislive import LiveReader, ReaderClosed, ReaderFailed, Resync

from ..kinds import Position, Received, format_cursor
from ..port import NotificationsUnavailable, SlowReader
from .entries import position_of, received_from

CatchUp = Callable[[str, Position], AsyncGenerator[Received, None]]


async def follow(
    reader: LiveReader,
    key: str,
    catch_up: CatchUp,
    player_id: str,
    delivered: Position,
    *,
    limit: int,
    stall_limit: float | None,
    on_cut: Callable[[ServiceError], None] | None,
) -> AsyncGenerator[Received, None]:
    """The player's notifications after `delivered`, from the inbox stream `key` on `reader`,
    until the caller stops (see :meth:`Notifications._follow`)."""
    stall = Stall(limit, stall_limit)

    def arrived(count: int) -> BaseException | None:
        if not stall.arrive(count):
            return None
        cut = SlowReader(limit)
        if on_cut is not None:
            on_cut(cut)
        return cut

    subscription = await reader.subscribe(
        key, format_cursor(delivered), limit=limit, on_arrival=arrived
    )
    try:
        while True:
            stall.idle = True
            try:
                item = await subscription.next()
            except ReaderFailed as failed:
                raise NotificationsUnavailable(
                    f"the live reader failed: {failed.cause!r}"
                ) from None
            except ReaderClosed:
                raise NotificationsUnavailable("the server is shutting down") from None
            finally:
                stall.idle = False
                stall.taken()  # it was waiting: what arrived meanwhile is news
            resync = isinstance(item, Resync)
            if not isinstance(item, Resync):
                for entry_id, raw in item.entries:
                    fields = dict(zip(raw[::2], raw[1::2], strict=True))
                    received = received_from(player_id, entry_id, fields)
                    if received.position <= delivered:
                        continue
                    if position_of(fields[b"p"]) != delivered:
                        resync = True  # retention dropped what came between: read again
                        break
                    delivered = received.position
                    yield received
                    stall.taken()
            if resync:
                async for received in catch_up(player_id, delivered):
                    delivered = received.position
                    yield received
                    stall.taken()
    finally:
        subscription.close()
