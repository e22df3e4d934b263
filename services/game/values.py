"""The game application's plain values: a game to start, a command's result, a view with its
deadline, a game as it stands, what a watcher asks for and is sent (services/game/service.py
takes and gives them; what it announces is in announcements.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from services.codec import Record
from services.engine import (
    Event,
    ExplicitSetup,
    GameState,
    PlayerView,
    SeatAssignment,
    redact_event,
)


@dataclass(frozen=True, slots=True)
class CommandResult:
    """The outcome of a command: the events it caused (versions first..last), and the states
    on the way as the engine folded them (`execute_steps`): `states[i]` is the state event `i`
    applies to, `states[-1]` the state after the last."""

    first_version: int
    events: tuple[Event, ...]
    states: tuple[GameState, ...]
    replayed: bool
    #: The decision's record as stored (its command id, whether a bot stood in, when the batch
    #: was appended).
    decision: Record | None = None

    @property
    def version(self) -> int:
        return self.first_version + len(self.events) - 1

    @property
    def state(self) -> GameState:
        """The state after the command's events."""
        return self.states[-1]

    def events_for(self, seat: int | None) -> list[Event]:
        """The command's events as `seat` may see them (each redacted against the state
        before it)."""
        return [
            redact_event(event, seat, before)
            for event, before in zip(self.events, self.states, strict=False)
        ]


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to start: what the lobby (or a sandbox tool) asks for. The seed and the ruleset
    are chosen here unless fixed (a fixed seed or setup is for sandbox and teaching tables)."""

    players: int
    game_id: str = ""
    builder_may_move: bool = False
    setup: ExplicitSetup | None = None
    seed: bytes | None = None
    seats: tuple[SeatAssignment, ...] = ()
    ranked: bool = False
    turn_seconds: int = 0


@dataclass(frozen=True, slots=True)
class Seen:
    """A view, and when the decision it awaits is due (None: no turn timer or none awaited)."""

    view: PlayerView
    deadline_ms: int | None


class Resting(NamedTuple):
    """A game as it stands: its state, when it came to rest (the last batch's append, Unix
    ms; 0: unknown), and the first record of the batch that led there (None: setup events
    only)."""

    state: GameState
    since_ms: int
    decision: Record | None


class WatchMode(enum.Enum):
    """What a watcher is sent (the proto's WatchMode)."""

    #: Every event, redacted, with the view where a batch ends.
    EVENTS = 0
    #: The view each time the game comes to rest (the latest only, for a slow reader).
    VIEWS = 1
    #: The view each time the watcher's seat must decide, and the final one.
    TURNS = 2


@dataclass(frozen=True, slots=True)
class Update:
    """One update as a watcher may see it: an event (EVENTS mode), a view, or both.

    In EVENTS mode `view` is set where a batch of events ends; in the views-only modes
    `event` is None and `view` is always set.
    """

    version: int
    event: Event | None
    view: PlayerView | None
    turn_timer_expired: bool = False
    #: The command id of the decision this event records (EVENTS mode; "" when automatic).
    command_id: str = ""
    #: When the decision the view awaits is due (None: no timer, none awaited, or no view).
    deadline_ms: int | None = None
    #: When the batch was appended (Unix ms), on its first event only (EVENTS mode; else 0).
    recorded_at_ms: int = 0
