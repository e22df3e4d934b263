"""Who tells players what: the game's announcements and the lobby's table changes become
notifications, published in the background in the order they happened.

The game service announces every state it appended (and every game it loads cold, and what its
turn timers find), which services/handlers.py hands to `GameNotifier`; the lobby reports a table
that became full, starting or started. Both are synchronous and must never fail a command or a
table change, so they hand their notifications to a :class:`Publisher`, which publishes them in
order and retries while the store is unreachable (a retry is harmless: the dedupe keys store
each notification once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from services.codec import Record
from services.engine import GameState, Phase, competition_ranks, to_act
from services.errors import Reason, ServiceError
from services.tasks import cancel_and_wait

from .kinds import (
    GameOver,
    Notification,
    Received,
    bot_took_over,
    game_over,
    game_started,
    game_starting,
    table_full,
    timer_running_out,
    your_turn,
)
from .port import NotificationRefused, Notifications, NotificationsUnavailable, Published

log = logging.getLogger("verrater.notifications")

#: Notifications that may wait to be published (while a store is unreachable) before the
#: oldest of the longest queue are dropped.
DEFAULT_MAX_QUEUED = 100_000
#: Notifications published per round trip at most.
_BATCH = 100
_RETRY_FIRST_DELAY = 0.05
_RETRY_MAX_DELAY = 2.0


@dataclass(eq=False)
class _Lane:
    """The notifications waiting for one store (one Redis Cluster master), in order."""

    route: str
    queue: deque[Notification] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None


@dataclass(eq=False)
class _Pin:
    """A player with notifications waiting: in which lane, and how many."""

    lane: _Lane
    count: int = 0


class Publisher:
    """Publishes what it is sent, each player's notifications in order, in the background.

    One queue ("lane") per store that holds players' notifications (the adapter's
    :meth:`~Notifications.route`: one on a standalone Redis or in memory, one per master on a
    Redis Cluster), each published in batches by a task of its own. A store that cannot be
    reached holds up its own lane only: the lane retries with backoff (each attempt bounded by
    the adapter) while the others go on. A player's notifications stay in one lane, the lane
    they were first sent to, until all of them are published; a lane whose attempt failed sends
    the players its store no longer holds (after a failover, say) to the lanes that now do, so
    they do not wait behind players still unreachable. Everything waiting counts towards
    `max_queued`; beyond it, the oldest of the longest lane are dropped, with a warning.
    """

    def __init__(
        self, notifications: Notifications, *, max_queued: int = DEFAULT_MAX_QUEUED
    ) -> None:
        self.notifications = notifications
        self._max_queued = max_queued
        self._lanes: dict[str, _Lane] = {}
        self._pins: dict[str, _Pin] = {}
        self._queued = 0  # waiting in every lane, and in the lanes' attempts under way
        self._idle = asyncio.Event()
        self._idle.set()
        #: Notifications stored, and those dropped as already stored (a repeated fact).
        self.published = 0
        self.duplicates = 0

    @property
    def queued(self) -> int:
        """Notifications sent and not yet published (nor given up on)."""
        return self._queued

    def send(self, notifications: Iterable[Notification]) -> None:
        """Queue `notifications` for publishing (from inside the event loop)."""
        touched: set[_Lane] = set()
        for notification in notifications:
            pin = self._pins.get(notification.player_id)
            if pin is None:
                pin = self._pins[notification.player_id] = _Pin(
                    self._lane(self.notifications.route(notification.player_id))
                )
            pin.lane.queue.append(notification)
            pin.count += 1
            self._queued += 1
            touched.add(pin.lane)
        if not touched:
            return
        while self._queued > self._max_queued and self._drop_oldest():
            pass
        self._idle.clear()
        for lane in touched:
            self._start(lane)

    async def drain(self) -> None:
        """Wait until everything sent so far is published (or given up on)."""
        await self._idle.wait()

    async def close(self, timeout: float = 2.0) -> None:
        """Publish what is queued (for at most `timeout` seconds), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.drain()
        if self._queued:
            log.warning("shutting down: %d notifications not published", self._queued)
        for lane in list(self._lanes.values()):
            if lane.task is not None:
                await cancel_and_wait(lane.task)
                lane.task = None

    def _lane(self, route: str) -> _Lane:
        lane = self._lanes.get(route)
        if lane is None:
            lane = self._lanes[route] = _Lane(route)
        return lane

    def _start(self, lane: _Lane) -> None:
        if lane.queue and (lane.task is None or lane.task.done()):
            lane.task = asyncio.get_running_loop().create_task(
                self._run(lane), name=f"notification-publisher-{lane.route or 'all'}"
            )

    def _drop_oldest(self) -> bool:
        """Drop the oldest notification of the longest lane (False: every lane is empty, what
        waits is in attempts under way)."""
        lane = max(self._lanes.values(), key=lambda each: len(each.queue), default=None)
        if lane is None or not lane.queue:
            return False
        dropped = lane.queue.popleft()
        self._settled(dropped)
        log.warning("notification queue full: dropped %s for %s", dropped.key, dropped.player_id)
        return True

    def _settled(self, notification: Notification) -> None:
        """One notification is published or given up on."""
        self._queued -= 1
        pin = self._pins[notification.player_id]
        pin.count -= 1
        if not pin.count:
            del self._pins[notification.player_id]
        if not self._queued:
            self._idle.set()

    async def _run(self, lane: _Lane) -> None:
        delay = _RETRY_FIRST_DELAY
        while lane.queue:
            batch = [lane.queue.popleft() for _ in range(min(_BATCH, len(lane.queue)))]
            outcomes = await self._publish(batch)
            waiting = self._settle(batch, outcomes)
            if not waiting:
                delay = _RETRY_FIRST_DELAY
                continue
            lane.queue.extendleft(reversed(waiting))
            self._reroute(lane)
            log.warning(
                "publishing %d notifications failed (%s); retry in %.2fs",
                len(waiting),
                next(o for o in outcomes if isinstance(o, ServiceError)),
                delay,
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, _RETRY_MAX_DELAY)
        if self._lanes.get(lane.route) is lane:
            del self._lanes[lane.route]

    async def _publish(self, batch: Sequence[Notification]) -> Sequence[Published]:
        try:
            return await self.notifications.publish_each(batch)
        except NotificationsUnavailable as unavailable:
            return [unavailable] * len(batch)
        except Exception as error:
            log.exception("could not publish %d notifications; dropped", len(batch))
            return [NotificationRefused(repr(error))] * len(batch)

    def _settle(
        self, batch: Sequence[Notification], outcomes: Sequence[Published]
    ) -> list[Notification]:
        """Count what a batch's attempt published; the notifications to publish again."""
        waiting = []
        for notification, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, ServiceError) and outcome.reason is Reason.STORE_UNAVAILABLE:
                waiting.append(notification)
                continue
            if isinstance(outcome, Received):
                self.published += 1
            elif outcome is None:
                self.duplicates += 1
            else:
                log.error(
                    "notification %s for %s dropped: %s",
                    notification.key,
                    notification.player_id,
                    outcome,
                )
            self._settled(notification)
        return waiting

    def _reroute(self, lane: _Lane) -> None:
        """Send the lane's players whose store is now another (a failover, a map learnt late)
        to that store's lane, in order."""
        routes: dict[str, str] = {}
        kept: deque[Notification] = deque()
        moved: set[_Lane] = set()
        for notification in lane.queue:
            player_id = notification.player_id
            route = routes.get(player_id)
            if route is None:
                route = routes[player_id] = self.notifications.route(player_id)
            if route == lane.route:
                kept.append(notification)
                continue
            target = self._lane(route)
            target.queue.append(notification)
            self._pins[player_id].lane = target
            moved.add(target)
        lane.queue = kept
        for target in moved:
            self._start(target)


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
    """The game service's producer: its announcements' handlers (services/handlers.py) call
    `announce` and `timer_running_out`.

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
