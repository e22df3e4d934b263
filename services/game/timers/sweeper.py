"""The sweeper: claims due wake-ups and looks at each game's current state (see the package
docstring), in every game replica. What it finds it publishes (services/game/announcements.py:
a turn timer running or run out, bots overdue, the one look at a person's turn or at a game's
end); services/handlers.py says who acts on it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from services.engine import Phase
from services.eventstore import TRANSIENT_REDIS_ERRORS, StoreUnavailable
from services.tasks import cancel_and_wait

from ..announcements import (
    BotsOverdue,
    GameOverLookedAt,
    PersonsTurnLookedAt,
    Publish,
    TurnTimerRanOut,
    TurnTimerRunningOut,
)
from ..clock import bot_seats_to_act, deadline_ms, human_seats_to_act, warning_ms
from ..errors import GameNotFound
from ..values import Resting
from .policy import ends_look_at, persons_look_at, recheck_at
from .port import TurnTimers

log = logging.getLogger("verrater.game.timers")

#: How long a claimed timer is held before another replica may take it again: what a replica
#: that dies while holding a claim delays the game by. A look takes milliseconds; one that
#: outlasts the lease is done twice, which is harmless.
DEFAULT_LEASE_MS = 10_000
#: How soon a game is looked at again when its look could not read it (its store away, or its
#: last events not yet confirmed on their replicas): what such a game waits for its turns to
#: be announced once its store is back.
RETRY_MS = 1_000
#: The longest a sweeper sleeps before looking for due timers (another replica's new timer is
#: seen at most this late).
POLL_INTERVAL_S = 0.5
#: Timers handled per claim.
CLAIM_BATCH = 100
#: Looks under way at once in one sweeper (each waits on its own game's store).
MAX_LOOKS = 256

#: Asks for the game as it stands (fresh from the store): `GameApplication.resting`.
StateOf = Callable[[str], Awaitable[Resting]]


class TimerSweeper:
    """Claims due timers and acts on each game's current state (see the package docstring).

    Each claimed game is looked at on its own: a game whose store does not answer (its Redis
    Cluster master away) holds up no other game's look, and is looked at again `RETRY_MS`
    later rather than after the lease.
    """

    def __init__(
        self,
        timers: TurnTimers,
        state_of: StateOf,
        publish: Publish,
        *,
        recheck_ms: int = 0,
        clock: Callable[[], float] = time.time,
        lease_ms: int = DEFAULT_LEASE_MS,
    ) -> None:
        """`publish` is given what the looks find. `recheck_ms`: how long bots may owe a move
        before their turns are announced again (the game service sets the same on its
        wake-ups); a state whose persons still owe their decision that long after it began, and
        a game over that long, are announced once more (0: none of these)."""
        self._timers = timers
        self._state_of = state_of
        self._publish = publish
        self._recheck_ms = recheck_ms
        self._clock = clock
        self._lease_ms = lease_ms
        self._task: asyncio.Task[None] | None = None
        self._looking: dict[str, asyncio.Task[None]] = {}
        self._looks = asyncio.Semaphore(MAX_LOOKS)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def sweep(self) -> int:
        """Claim every due timer and look at each game once, all looks at once; how many were
        due."""
        now = self._now_ms()
        due = await self._timers.claim_due(now, self._lease_ms, CLAIM_BATCH)
        await asyncio.gather(*(self._look(game_id, now) for game_id in due.games))
        return len(due.games)

    async def _look(self, game_id: str, now: int) -> None:
        """One game's look; a failure is logged and leaves it to come again (soon, when its
        store could not be read; else after the lease)."""
        try:
            async with self._looks:
                await self._handle(game_id, now)
        except StoreUnavailable as error:
            log.info("turn timer of game %s: %s; looking again soon", game_id, error)
            with contextlib.suppress(StoreUnavailable, *TRANSIENT_REDIS_ERRORS):
                await self._timers.look_again(game_id, self._now_ms() + RETRY_MS)
        except Exception:  # one game's failure must not stop the others; its lease expires
            log.exception("turn timer of game %s failed; it fires again later", game_id)

    async def _handle(self, game_id: str, now: int) -> None:
        try:
            state, rest_since, decision = await self._state_of(game_id)
        except GameNotFound:
            await self._timers.set(game_id, 2**62, None)
            return
        wakes: list[int] = []
        deadline = deadline_ms(state, rest_since)
        seats = human_seats_to_act(state)
        since = rest_since or now
        end = ends_look_at(since, self._recheck_ms) if state.phase is Phase.GAME_OVER else None
        if end is not None:
            if now < end:  # swept early (the last state's wake-up, a lease): keep the look
                wakes.append(end)
            else:
                self._publish(GameOverLookedAt(game_id, state, decision, deadline))
        look = persons_look_at(state, since, self._recheck_ms, deadline) if seats else None
        if look is not None:
            if now < look:  # swept early (a bot's recheck, a lease): keep the look
                wakes.append(look)
            elif deadline is None or now < warning_ms(state, deadline):  # not once more later
                self._publish(PersonsTurnLookedAt(game_id, state, decision, deadline))
        if deadline is not None and seats:
            if now >= deadline:
                for seat in seats:
                    self._publish(TurnTimerRanOut(game_id, seat, state))
                # Held until the stand-in's decision moves the game on (which resets the timer);
                # if it never comes, the timer fires again after the lease.
                wakes.append(now + self._lease_ms)
            elif now >= warning_ms(state, deadline):
                for seat in seats:
                    self._publish(TurnTimerRunningOut(game_id, seat, state, decision, deadline))
                wakes.append(deadline)
            else:
                wakes.append(warning_ms(state, deadline))
        if self._recheck_ms and bot_seats_to_act(state):
            if now - since >= self._recheck_ms:
                log.warning("bots of game %s still owe their move: announcing again", game_id)
                self._publish(BotsOverdue(game_id, state, decision, deadline))
            wakes.append(recheck_at(since, now, self._recheck_ms))
        await self._timers.set(game_id, state.version, min(wakes, default=None))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="turn-timers")

    async def _run(self) -> None:
        """Claim what is due and start its looks, without waiting for them: a look that waits
        on its store delays no claim, so no other game's look."""
        delay = POLL_INTERVAL_S
        while True:
            changed = self._timers.changed()
            if changed is not None:
                changed.clear()
            try:
                now = self._now_ms()
                due = await self._timers.claim_due(now, self._lease_ms, CLAIM_BATCH)
                for game_id in due.games:
                    if game_id not in self._looking:
                        self._start_look(game_id, now)
                delay = POLL_INTERVAL_S
                if len(due.games) >= CLAIM_BATCH:
                    delay = 0.0  # more are due: claim the next batch at once
                elif due.next_wake_ms is not None:
                    delay = min(delay, max(0.0, (due.next_wake_ms - self._now_ms()) / 1000))
            except TRANSIENT_REDIS_ERRORS + (StoreUnavailable, OSError) as error:
                log.warning("turn timers unreachable (%s); retrying", error)
                delay = min(delay * 2, 5.0)
            if changed is None:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await changed.wait()

    def _start_look(self, game_id: str, now: int) -> None:
        task = asyncio.get_running_loop().create_task(
            self._look(game_id, now), name=f"look-{game_id}"
        )
        self._looking[game_id] = task
        task.add_done_callback(lambda _: self._looking.pop(game_id, None))

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        for look in list(self._looking.values()):
            await cancel_and_wait(look)
        self._looking.clear()
