"""Commands: what a player (or the system, for CreateGame) asks the game to do.

Every player command names the acting seat; `decide` checks it is that seat's decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ActionCard, BuildingSide, Ruleset
from .events import ExplicitSetup, SeatAssignment

#: A timed table gives a person between these many seconds per decision (a correspondence game
#: up to 14 days); 0 is no timer.
MIN_TURN_SECONDS = 5
MAX_TURN_SECONDS = 14 * 24 * 3600


def valid_turn_seconds(turn_seconds: int) -> bool:
    return turn_seconds == 0 or MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS


@dataclass(frozen=True, slots=True)
class CreateGame:
    """Start a game: the ruleset, the secret seed, optionally a setup fixed by hand, who sits
    where (one SeatAssignment per seat, or none), whether results count for ratings, and the
    seconds a human seat has per decision before a bot decides for it (0: no timer)."""

    ruleset: Ruleset
    seed: bytes
    setup: ExplicitSetup | None = None
    seats: tuple[SeatAssignment, ...] = ()
    ranked: bool = False
    turn_seconds: int = 0


@dataclass(frozen=True, slots=True)
class PlaceFirstEstate:
    """Setup 5: put your first estate under a landscape without a building."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class ChooseConflict:
    """Phase 1: the strategist marks two adjacent landscapes of different houses."""

    seat: int
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class PickActionCard:
    """Phase 2: keep one of the action cards offered to you."""

    seat: int
    card: ActionCard


@dataclass(frozen=True, slots=True)
class PlaySupply:
    """Phase 3: play 0 to 5 supply cards from your hand (values, e.g. (3, 5))."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlaceBuilding:
    """Phase 7: as builder, place an unplaced building card, either side up."""

    seat: int
    position: int
    side: BuildingSide


@dataclass(frozen=True, slots=True)
class FlipBuilding:
    """Phase 7: as builder, turn one of your buildings to its other side."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class MoveBuilding:
    """Phase 7 (variant builder_may_move): move one of your buildings to a free landscape."""

    seat: int
    origin: int
    destination: int
    side: BuildingSide


@dataclass(frozen=True, slots=True)
class PassBuild:
    """Phase 7: as builder, build nothing this round."""

    seat: int


@dataclass(frozen=True, slots=True)
class DiscardCards:
    """Phase 10: over the hand limit, discard exactly enough cards to keep 5."""

    seat: int
    cards: tuple[int, ...]


PlayerCommand = (
    PlaceFirstEstate
    | ChooseConflict
    | PickActionCard
    | PlaySupply
    | PlaceBuilding
    | FlipBuilding
    | MoveBuilding
    | PassBuild
    | DiscardCards
)
Command = CreateGame | PlayerCommand
