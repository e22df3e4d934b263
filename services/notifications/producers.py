"""Who tells players what: the game's announcements and the lobby's table changes become
notifications, published in the background in the order they happened.

The game service announces every state it appended (and every game it loads cold); the lobby
reports a table that became full, starting or started. Both hooks are synchronous and must
never fail a command or a table change, so they hand their notifications to a
:class:`Publisher`, which publishes them in order and retries while the store is unreachable
(a retry is harmless: the dedupe keys store each notification once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping

from services.codec import Record
from services.engine import GameState, Phase, competition_ranks, to_act
from services.errors import Reason, ServiceError
from services.tasks import cancel_and_wait

from .kinds import (
    GameOver,
    Notification,
    bot_took_over,
    game_over,
    game_started,
    game_starting,
    table_full,
    timer_running_out,
    your_turn,
)
from .port import Notifications

log = logging.getLogger("verrater.notifications")

#: Notifications that may wait to be published (while the store is unreachable) before the
#: oldest are dropped.
DEFAULT_MAX_QUEUED = 100_000
#: Notifications published per round trip at most.
_BATCH = 100
_RETRY_FIRST_DELAY = 0.05
_RETRY_MAX_DELAY = 2.0


class Publisher:
    """Publishes what it is sent, in order, in the background (see the module docstring)."""

    def __init__(
        self, notifications: Notifications, *, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> None:
        self.notifications = notifications
        self._max_queued = max_queued
        self._queue: deque[Notification] = deque()
        self._ready = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        #: Notifications stored, and those dropped as already stored (a repeated fact).
        self.published = 0
        self.duplicates = 0

    def send(self, notifications: Iterable[Notification]) -> None:
        """Queue `notifications` for publishing (from inside the event loop)."""
        queue = self._queue
        queue.extend(notifications)
        if not queue:
            return
        while len(queue) > self._max_queued:
            dropped = queue.popleft()
            log.warning(
                "notification queue full: dropped %s for %s", dropped.key, dropped.player_id
            )
        self._idle.clear()
        self._ready.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="notification-publisher"
            )

    async def drain(self) -> None:
        """Wait until everything sent so far is published (or given up on)."""
        await self._idle.wait()

    async def close(self, timeout: float = 2.0) -> None:
        """Publish what is queued (for at most `timeout` seconds), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.drain()
        if self._queue:
            log.warning("shutting down: %d notifications not published", len(self._queue))
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _run(self) -> None:
        delay = _RETRY_FIRST_DELAY
        while True:
            if not self._queue:
                self._idle.set()
                self._ready.clear()
                await self._ready.wait()
                continue
            batch = [self._queue[index] for index in range(min(_BATCH, len(self._queue)))]
            try:
                stored = await self.notifications.publish(batch)
            except Exception as error:
                if isinstance(error, ServiceError) and error.reason is Reason.STORE_UNAVAILABLE:
                    log.warning(
                        "publishing notifications failed (%s); retry in %.2fs", error, delay
                    )
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, _RETRY_MAX_DELAY)
                    continue
                log.exception("could not publish %d notifications; dropped", len(batch))
                stored = []
            delay = _RETRY_FIRST_DELAY
            for _ in batch:
                if self._queue:
                    self._queue.popleft()
            self.published += sum(1 for item in stored if item is not None)
            self.duplicates += sum(1 for item in stored if item is None)


def _people(state: GameState) -> dict[int, str]:
    """Seat -> player id of every seat a person holds (bots and sandbox seats have none)."""
    return {
        seat: assignment.player_id
        for seat, assignment in enumerate(state.seating)
        if assignment.player_id and assignment.bot_level is None
    }


def game_notifications(
    game_id: str,
    state: GameState,
    first: Record | None,
    *,
    at_ms: int,
    table_id: str = "",
    deadline_ms: int | None = None,
    again: bool = False,
) -> list[Notification]:
    """What an announced state tells the people seated in the game.

    `first` is the first record of the batch that led to `state` (None when not known).
    Each seat a person holds that must decide gets YourTurn; once the game is over every
    person gets GameOver, except when `again` says the state is announced again at a moment
    that may come long after it (a cold load, a watcher's arrival; the sweeper's one look at
    the end soon after it is not such a moment); a batch a bot decided because the seat's turn
    timer ran out tells that seat's person BotTookOver. Everything is deduplicated, so a state
    announced again sends only what a replica that died right after its append did not.
    Games without seating (sandbox) tell nobody.
    """
    people = _people(state)
    if not people:
        return []
    found: list[Notification] = []
    if first is not None and first.turn_timer_expired and first.seat in people:
        found.append(
            bot_took_over(
                people[first.seat],
                game_id,
                first.seat,
                state.version,
                at_ms=at_ms,
                table_id=table_id,
            )
        )
    if state.phase is Phase.GAME_OVER:
        if again:
            return found
        ranks = competition_ranks(state.vp)
        for seat, player_id in people.items():
            result = GameOver(seat, state.vp[seat], ranks[seat], tuple(state.winners))
            found.append(game_over(player_id, game_id, result, at_ms=at_ms, table_id=table_id))
        return found
    for seat in to_act(state):
        if seat in people:
            found.append(
                your_turn(
                    people[seat],
                    game_id,
                    seat,
                    state.version,
                    at_ms=at_ms,
                    table_id=table_id,
                    deadline_ms=deadline_ms,
                )
            )
    return found


class GameNotifier:
    """The game service's producer: `announce` is called from the game's announce hook.

    `table_of(game_id)` names the table a game was started from ("" for a game the lobby did
    not start), so a client can ask the lobby for its seat token.
    """

    def __init__(
        self,
        publisher: Publisher,
        *,
        table_of: Callable[[str], str] = lambda game_id: "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._publisher = publisher
        self._table_of = table_of
        self._clock = clock

    def announce(
        self,
        game_id: str,
        state: GameState,
        first: Record | None,
        *,
        deadline_ms: int | None = None,
        again: bool = False,
    ) -> None:
        """Tell the people of the game what `state` means for them (see game_notifications);
        `deadline_ms` is when the awaited decision is due, None without a turn timer."""
        self._publisher.send(
            game_notifications(
                game_id,
                state,
                first,
                at_ms=self._now_ms(),
                table_id=self._table_of(game_id),
                deadline_ms=deadline_ms,
                again=again,
            )
        )

    def timer_running_out(
        self, player_id: str, game_id: str, seat: int, version: int, deadline_ms: int
    ) -> None:
        """Tell the player that the decision awaited of `seat` at `version` is due soon (for
        the turn-deadline machinery; once per seat and version)."""
        self._publisher.send(
            [
                timer_running_out(
                    player_id,
                    game_id,
                    seat,
                    version,
                    deadline_ms,
                    at_ms=self._now_ms(),
                    table_id=self._table_of(game_id),
                )
            ]
        )

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


class LobbyNotifier:
    """The lobby's producer: tells the people seated at a table (seat -> player id, bots left
    out) that it is full, that its game is starting, and that it started."""

    def __init__(self, publisher: Publisher, *, clock: Callable[[], float] = time.time) -> None:
        self._publisher = publisher
        self._clock = clock

    def table_full(self, table_id: str, table_version: int, people: Mapping[int, str]) -> None:
        at_ms = self._now_ms()
        self._publisher.send(
            table_full(player_id, table_id, table_version, at_ms=at_ms)
            for player_id in people.values()
        )

    def game_starting(self, table_id: str, people: Mapping[int, str]) -> None:
        at_ms = self._now_ms()
        self._publisher.send(
            game_starting(player_id, table_id, at_ms=at_ms) for player_id in people.values()
        )

    def game_started(self, table_id: str, game_id: str, people: Mapping[int, str]) -> None:
        at_ms = self._now_ms()
        self._publisher.send(
            game_started(player_id, table_id, game_id, seat, at_ms=at_ms)
            for seat, player_id in people.items()
        )

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)
