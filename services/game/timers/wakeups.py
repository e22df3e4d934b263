"""The wake-ups a replica writes for the games it holds (see the package docstring), in the
order its durability needs, all under the game's lock:

- before an append, the wake-up the new state needs (`ahead`): a replica killed between the
  append and its announcement still leaves one;
- after the append is announced, the clearing of the previous state's when the new one needs
  none (`appended`): cleared before the append, the game would have none if the replica died in
  between; cleared after the next append's wake-up, it would remove that one;
- when a game is loaded cold, the wake-up its state needs as the load found it (`after_load`):
  the replica that appended it may have died before setting it. It is written in the background,
  off the path of the call that loaded the game (a Redis round trip less for that answer),
  under the game's lock, and not at all when an append of this replica has moved the game on
  meanwhile (that append set its own state's).

`CachedGame.wake` remembers what this replica last wrote for the game, so that a game whose
states need no wake-up, or whose bots' standing recheck still serves, costs no Redis call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from services.engine import GameState
from services.eventstore import TRANSIENT_REDIS_ERRORS, StoreUnavailable
from services.tasks import cancel_and_wait

from ..cache import CachedGame
from ..clock import human_seats_to_act
from .policy import next_wake, nothing_to_clear, wake_stands
from .port import TurnTimers

log = logging.getLogger("verrater.game.timers")

#: How soon a game whose last append is not confirmed on its replicas is looked at again.
UNCONFIRMED_LOOK_MS = 1000
#: How soon the wake-up of a game loaded cold is tried again while the timers' store is away,
#: at first and at most.
RETRY_FIRST_S = 0.1
RETRY_MAX_S = 5.0


class WakeUps:
    """The wake-ups of the games of one replica, on `timers` (see the module docstring)."""

    def __init__(
        self, timers: TurnTimers, clock: Callable[[], float] = time.time, recheck_ms: int = 0
    ) -> None:
        """`recheck_ms`: how long bots may owe a move before their turns are announced again
        (0: bots are not rechecked, and the one looks at a person's turn and at a game's end
        are not made)."""
        self._timers = timers
        self._clock = clock
        self._recheck_ms = recheck_ms
        self._after_loads: dict[str, asyncio.Task[None]] = {}

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def ahead(
        self, game_id: str, game: CachedGame, state: GameState, rest_since_ms: int, before: int
    ) -> int | None:
        """Before appending the batch from version `before` to `state` (at rest from
        `rest_since_ms`), set the wake-up `state` needs, and return it (None: nothing timed is
        awaited; an earlier one is cleared after the append). Set as of `before`, so whatever
        is set for the appended state (by a sweep, or by the winner of an append race) goes
        over it. When only bots act and a no later wake-up this replica set for the state at
        `before` stands, no Redis call is made."""
        wake = next_wake(state, rest_since_ms, self._now_ms(), self._recheck_ms)
        if wake is not None and (
            human_seats_to_act(state) or not wake_stands(game.wake, before, wake)
        ):
            await self._timers.set(game_id, before, wake)
            game.wake = (before, wake)
        return wake

    async def appended(self, game_id: str, game: CachedGame, before: int, wake: int | None) -> None:
        """After the append from `before` to `game.state` was announced, with `wake` from
        `ahead`: clear the previous state's wake-up when the new state needs none (unless this
        replica left none), and remember what stands."""
        version = game.state.version
        if wake is None and not nothing_to_clear(game.wake, before):
            try:
                await self._timers.set(game_id, version, None)
            except StoreUnavailable as error:
                # The append stands and was announced: answer it. The old wake-up fires once,
                # finds nothing due and clears itself.
                log.warning("game %s: its old wake-up is left standing (%s)", game_id, error)
                return
        elif wake is not None and game.wake is not None:
            wake = game.wake[1]  # set, or found standing, by `ahead`
        game.wake = (version, wake)

    def after_load(self, game_id: str, game: CachedGame) -> None:
        """A game just loaded cold (announced again): set the wake-up its state needs, as of its
        version and as the load found it, in the background, under its lock, unless the game
        has moved on by then (see the module docstring)."""
        state = game.state
        wake = next_wake(state, game.rest_since_ms, self._now_ms(), self._recheck_ms)
        task = asyncio.get_running_loop().create_task(
            self._after_load(game_id, game, state.version, wake), name=f"wake-up-{game_id}"
        )
        self._after_loads[game_id] = task
        task.add_done_callback(lambda done: self._forget(game_id, done))

    def _forget(self, game_id: str, task: asyncio.Task[None]) -> None:
        if self._after_loads.get(game_id) is task:
            del self._after_loads[game_id]

    async def loaded_set(self, game_id: str) -> None:
        """Wait until the wake-up of the game's cold load is set, if one is under way: a look
        that sets the game's wake-up after its state must come after it, or the load's would
        stand over the look's (both are set as of the same version)."""
        task = self._after_loads.get(game_id)
        if task is not None:
            await asyncio.wait({task})

    async def _after_load(
        self, game_id: str, game: CachedGame, version: int, wake: int | None
    ) -> None:
        """Set it, trying again while the timers' store is away (nobody else may: the replica
        that appended the state may have died before it did)."""
        delay = RETRY_FIRST_S
        while True:
            try:
                async with game.lock:
                    if game.state.version == version:
                        await self._timers.set(game_id, version, wake)
                        game.wake = (version, wake)
                return
            except TRANSIENT_REDIS_ERRORS + (StoreUnavailable,) as error:
                log.warning("game %s: its wake-up could not be set yet: %s", game_id, error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_S)

    async def close(self) -> None:
        """Stop setting the wake-ups of games loaded cold."""
        for task in list(self._after_loads.values()):
            await cancel_and_wait(task)

    async def look_soon(self, game_id: str, version: int) -> None:
        """Have the game looked at again `UNCONFIRMED_LOOK_MS` from now (as of `version`): a
        look reads it, confirms what it holds and announces the state it finds."""
        try:
            await self._timers.set(game_id, version, self._now_ms() + UNCONFIRMED_LOOK_MS)
        except StoreUnavailable as error:  # the cold load of any later use does it as well
            log.warning("game %s: could not set its look after %s", game_id, error)
