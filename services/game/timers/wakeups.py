"""The wake-ups a replica writes for the games it holds (see the package docstring), in the
order its durability needs, all under the game's lock:

- before an append, the wake-up the new state needs (`ahead`): a replica killed between the
  append and its announcement still leaves one;
- after the append is announced, the clearing of the previous state's when the new one needs
  none (`appended`): cleared before the append, the game would have none if the replica died in
  between; cleared after the next append's wake-up, it would remove that one;
- when a game is loaded cold, the wake-up its state needs (`loaded`): the replica that appended
  it may have died before setting it.

`CachedGame.wake` remembers what this replica last wrote for the game, so that a game whose
states need no wake-up, or whose bots' standing recheck still serves, costs no Redis call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from services.engine import GameState
from services.eventstore import StoreUnavailable

from ..cache import CachedGame
from ..clock import human_seats_to_act
from .policy import next_wake, nothing_to_clear, wake_stands
from .port import TurnTimers

log = logging.getLogger("verrater.game.timers")

#: How soon a game whose last append is not confirmed on its replicas is looked at again.
UNCONFIRMED_LOOK_MS = 1000


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
            await self._timers.set(game_id, version, None)
        elif wake is not None and game.wake is not None:
            wake = game.wake[1]  # set, or found standing, by `ahead`
        game.wake = (version, wake)

    async def loaded(self, game_id: str, game: CachedGame) -> None:
        """A game loaded cold (announced again): set the wake-up its state needs, as of its
        version."""
        state = game.state
        wake = next_wake(state, game.rest_since_ms, self._now_ms(), self._recheck_ms)
        await self._timers.set(game_id, state.version, wake)
        game.wake = (state.version, wake)

    async def look_soon(self, game_id: str, version: int) -> None:
        """Have the game looked at again `UNCONFIRMED_LOOK_MS` from now (as of `version`): a
        look reads it, confirms what it holds and announces the state it finds."""
        try:
            await self._timers.set(game_id, version, self._now_ms() + UNCONFIRMED_LOOK_MS)
        except StoreUnavailable as error:  # the cold load of any later use does it as well
            log.warning("game %s: could not set its look after %s", game_id, error)
