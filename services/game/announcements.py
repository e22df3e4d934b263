"""What the game service tells the rest of the backend: each message a value saying what
happened.

The game service publishes them right after what they report, under the game's lock: a batch it
appended, a game it loaded cold, a watcher's arrival at a bots' state it had not announced. Its
turn-timer sweeper (services/game/timers/sweeper.py) publishes what it found when a game's
wake-up came. Neither knows who acts on them: bots, stats and notifications are other packages,
which the game service may not import. services/handlers.py lists, for each message, the
handlers that act on it; services/bootstrap.py connects the publishers to them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from services.codec import Record
from services.engine import GameState


@dataclass(frozen=True, slots=True)
class AtRest:
    """A game's state at rest (a decision awaited, or the game over), as announced."""

    game_id: str
    state: GameState
    #: The first record of the batch that led to the state: who decided, and whether a bot
    #: stood in for a person whose timer ran out. None when not known (setup events only).
    decision: Record | None
    #: When the decision the state awaits is due (None: no turn timer, or nothing awaited).
    deadline_ms: int | None


@dataclass(frozen=True, slots=True)
class BatchAppended(AtRest):
    """This replica appended a batch (a game's creation, a decision) that led to `state`."""

    #: For a bot's move, how long after the state that awaited it it was appended (ms).
    bot_waited_ms: int | None = None


@dataclass(frozen=True, slots=True)
class GameLoaded(AtRest):
    """This replica loaded the game cold (its first use here, or after the store failed): the
    replica that appended its state may have died before announcing it, so it is announced
    again, maybe long after it was reached."""


@dataclass(frozen=True, slots=True)
class WatcherArrived(AtRest):
    """A watcher arrived at a state bots owe a move in that this replica has not announced: its
    client may have come here because the replica that appended the state died before
    announcing it (`CachedGame.announce_on_arrival`)."""


@dataclass(frozen=True, slots=True)
class TurnTimerRanOut:
    """A person's timed decision in `state` is due: a bot decides for them (from the state,
    which the sweeper has at hand: the bot needs no call to see it)."""

    game_id: str
    seat: int
    state: GameState

    @property
    def version(self) -> int:
        return self.state.version


@dataclass(frozen=True, slots=True)
class TurnTimerRunningOut:
    """The timed decision `state` awaits of the person at `seat` is due soon, at
    `deadline_ms`; `decision` as in `AtRest`."""

    game_id: str
    seat: int
    state: GameState
    decision: Record | None
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class BotsOverdue(AtRest):
    """Bots still owe their move in `state`, the bots' recheck after it began: their turns
    may have been lost (a worker died, or the replica before the announcement)."""


@dataclass(frozen=True, slots=True)
class PersonsTurnLookedAt(AtRest):
    """The one look at a person's turn, the bots' recheck after it began: what a replica that
    died right after its append did not announce is announced now."""


@dataclass(frozen=True, slots=True)
class GameOverLookedAt(AtRest):
    """The one look at a game's end, the bots' recheck after it: what a replica that died right
    after appending the end did not announce (the result, the players' GameOver) is now."""


#: Every message the game service publishes.
Announcement: TypeAlias = (
    BatchAppended
    | GameLoaded
    | WatcherArrived
    | TurnTimerRanOut
    | TurnTimerRunningOut
    | BotsOverdue
    | PersonsTurnLookedAt
    | GameOverLookedAt
)
#: Where the game service and its sweeper hand their announcements (the message bus).
Publish: TypeAlias = Callable[[Announcement], None]
