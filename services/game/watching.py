"""What a watcher of a cached game is sent, mode by mode (GameApplication.updates).

Every watcher of a game in a process reads its one `CachedGame`: a watcher costs a wake-up per
batch and what its mode sends, never a connection, a read or a decode.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from services.engine import Phase, fold, to_act, view
from services.eventstore import StoreUnavailable

from .cache import CachedGame, watched_update
from .clock import deadline_ms
from .errors import HistoryChanged
from .values import Update, WatchMode

log = logging.getLogger(__name__)

#: How long a watched game's follower waits before reading the store again after it could
#: not (doubling up to the second figure).
CATCH_UP_FIRST_DELAY_S = 0.05
CATCH_UP_MAX_DELAY_S = 1.0


async def catch_up(
    game: CachedGame, version: int, top_up: Callable[[CachedGame], Awaitable[None]]
) -> None:
    """Top the watched `game` up (`top_up`) to at least `version`, which the store's tail
    showed. While the store cannot be read, or what it holds is not yet confirmed on its
    replicas, the game pauses here (its watchers wait) and tries again, up to a second apart;
    a history the store changed ends the follower (HistoryChanged: its watchers reconnect)."""
    delay = CATCH_UP_FIRST_DELAY_S
    while True:
        try:
            async with game.lock:
                # The echo of an append still being applied here beat its reply.
                if version > game.state.version:
                    await top_up(game)
            return
        except HistoryChanged:
            raise
        except StoreUnavailable as error:
            log.info("catching up a watched game after %s, in %.2fs", error, delay)
            await asyncio.sleep(delay)
            delay = min(2 * delay, CATCH_UP_MAX_DELAY_S)


async def event_updates(
    game: CachedGame, seat: int | None, after_version: int
) -> AsyncIterator[Update]:
    """EVENTS mode: every record after `after_version` from the cache, redacted against the
    state before it (the watcher's own fold, or the states the batch was folded to once where
    it was decided or read: `CachedGame.step`); the stream ends after the game's last event."""
    state = fold(game.events(1, after_version))
    position = after_version
    recorded_at = game.recorded_at(after_version)

    def batch_time(_: int) -> int:  # the batch's time, followed record by record
        return recorded_at

    while True:
        advanced = game.advanced
        while position < len(game.payloads):
            position += 1
            if seat is None:  # every spectator sees the same: made once, shared
                update, state = game.public_update(position, state)
            else:
                record, after = game.step(position, state)
                recorded_at = record.recorded_at_ms or recorded_at
                update = watched_update(record, position, seat, state, after, batch_time=batch_time)
                state = after
            yield update
            if state.phase is Phase.GAME_OVER:
                return  # nothing follows the last event: end the stream
        await wait(game, advanced)


async def view_updates(
    game: CachedGame, seat: int | None, after_version: int, mode: WatchMode
) -> AsyncIterator[Update]:
    """VIEWS and TURNS modes: the latest state at rest, when it is news to the watcher (after
    `after_version`; in TURNS mode only where `seat` must decide, and the end).

    The cache only ever holds whole batches, so its state is always at rest.
    """
    sent = after_version
    while True:
        wake = (
            game.turn_signal(seat)
            if seat is not None and mode is WatchMode.TURNS
            else game.advanced
        )
        state = game.state
        over = state.phase is Phase.GAME_OVER
        if state.version > sent and (
            over or mode is WatchMode.VIEWS or (seat is not None and seat in to_act(state))
        ):
            sent = state.version
            deadline = deadline_ms(state, game.rest_since_ms)
            yield Update(sent, None, view(state, seat), deadline_ms=deadline)
        if over:
            return
        await wait(game, wake)


async def wait(game: CachedGame, wake: asyncio.Event) -> None:
    """Until `wake` is set: the game advanced in a way the watcher cares about, or its feed
    failed (then raise why)."""
    if game.feed_error is not None:
        raise game.feed_error
    await wake.wait()
    if game.feed_error is not None:
        raise game.feed_error
