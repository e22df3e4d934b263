"""Events: every fact of a game, small and immutable. Game state is only ever their fold.

Fields marked *hidden* hold information some seats may not see; `view.redact_event` replaces
them with None in what a seat or spectator receives. The full events are the audit record.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import get_args

from .cards import ActionCard, BuildingSide, House, LandscapeType, Ruleset


class Phase(IntEnum):
    """Where the game is. Decision phases wait for players; SETUP and GAME_OVER do not."""

    SETUP = 0
    FIRST_ESTATES = 1
    CONFLICT = 2
    DRAFT = 3
    SUPPLY = 4
    BUILD = 5
    HAND_LIMIT = 6
    GAME_OVER = 7


class ScoreReason(IntEnum):
    """Why a player gained victory points."""

    CONQUEST = 0
    TRAITOR = 1
    STRATEGIST = 2
    TRADING_POSTS = 3


class DrawReason(IntEnum):
    """Which rule of the draw phase gave a player cards."""

    FARMER = 0
    ESTATES = 1
    DIPLOMAT2 = 2


@dataclass(frozen=True, slots=True)
class ExplicitSetup:
    """A setup fixed by hand instead of by the seed (tests, teaching, sandbox tables).

    Any part left None is drawn from the seed as usual. `set_aside` fixes the action card set
    aside in each round's draft (round 1 first); rounds beyond its length use the seed.
    """

    start_player: int | None = None
    ring: tuple[tuple[LandscapeType, House], ...] | None = None
    deck: tuple[int, ...] | None = None
    set_aside: tuple[ActionCard, ...] | None = None


class BotLevel(StrEnum):
    """How strong a bot plays: the one list of levels (the AI maps each to a policy)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"


@dataclass(frozen=True, slots=True)
class SeatAssignment:
    """Who sits at a seat: a player id and name, and the bot level for a bot (None for a
    person).

    The rules ignore it; it is recorded so the log alone tells who played (results, ratings,
    which seats the AI service plays).
    """

    player_id: str
    name: str
    bot_level: BotLevel | None = None


@dataclass(frozen=True, slots=True)
class GameCreated:
    """The first event: the ruleset in force and the commitment to the secret seed.

    `seed` is hidden until GameEnded reveals it; `setup.deck` and `setup.set_aside` are hidden.
    """

    ruleset: Ruleset
    seed_commitment: str
    seed: bytes | None
    setup: ExplicitSetup | None = None
    seats: tuple[SeatAssignment, ...] = ()
    ranked: bool = False
    turn_seconds: int = 0


@dataclass(frozen=True, slots=True)
class StartPlayerChosen:
    """Setup 1: the start player backs Eagle; going left, players alternate houses."""

    seat: int
    allegiances: tuple[House, ...]


@dataclass(frozen=True, slots=True)
class RingLaidOut:
    """Setup 2: the shuffled ring of 12 landscapes, (type, house) per position 0..11."""

    landscapes: tuple[tuple[LandscapeType, House], ...]


@dataclass(frozen=True, slots=True)
class SupplyDealt:
    """Setup 3: the starting hands (public: everyone gets 3, 4, 5) and the shuffled draw pile.

    `deck` (top card first) is hidden; `deck_size` is public.
    """

    hands: tuple[tuple[int, ...], ...]
    deck_size: int
    deck: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class StrategistAssigned:
    """Setup 4 and phase 8: this seat now holds the strategy and conflict cards."""

    seat: int


@dataclass(frozen=True, slots=True)
class PhaseBegan:
    """The game moved to another phase."""

    phase: Phase


@dataclass(frozen=True, slots=True)
class FirstEstatePlaced:
    """Setup 5 (decision): a player's first estate under a landscape without a building."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A new round begins with the conflict phase."""

    round: int
    start_player: int


@dataclass(frozen=True, slots=True)
class ConflictChosen:
    """Phase 1 (decision): the strategist marks two adjacent landscapes of different houses."""

    seat: int
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class ActionCardsDealt:
    """Phase 2: the action cards are shuffled; one is set aside, five go to the start player.

    Both fields are hidden: `set_aside` from everyone during the game, `offered` from all but
    the start player.
    """

    set_aside: ActionCard | None
    offered: tuple[ActionCard, ...] | None


@dataclass(frozen=True, slots=True)
class ActionCardPicked:
    """Phase 2 (decision): a player keeps one action card; `card` is hidden until the reveal."""

    seat: int
    card: ActionCard | None


@dataclass(frozen=True, slots=True)
class SupplyPlayed:
    """Phase 3 (decision): a player plays 0 to 5 supply cards face up."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ActionCardsRevealed:
    """Phase 4: every pick is revealed (None for a seat that picked nothing)."""

    picks: tuple[ActionCard | None, ...]


@dataclass(frozen=True, slots=True)
class AllegianceSwitched:
    """Phase 4: the traitor switches to the other house at once."""

    seat: int
    house: House


@dataclass(frozen=True, slots=True)
class ConflictResolved:
    """Phase 5: both houses' strengths; `winner` is None on a tie."""

    eagle_strength: int
    rose_strength: int
    winner: House | None


@dataclass(frozen=True, slots=True)
class PointsAwarded:
    """Phases 6 and final scoring: a player gains victory points."""

    seat: int
    points: int
    reason: ScoreReason


@dataclass(frozen=True, slots=True)
class LandscapeFlipped:
    """Phase 6: the losing landscape turns to the winning house; buildings stay."""

    position: int
    house: House


@dataclass(frozen=True, slots=True)
class BuildingPlaced:
    """Phase 7 (decision): the builder places an unplaced building card."""

    seat: int
    position: int
    side: BuildingSide


@dataclass(frozen=True, slots=True)
class BuildingFlipped:
    """Phase 7 (decision): the builder turns one of their buildings to `side`."""

    seat: int
    position: int
    side: BuildingSide


@dataclass(frozen=True, slots=True)
class BuildingMoved:
    """Phase 7 (decision, variant builder_may_move): a building moves to a free landscape."""

    seat: int
    origin: int
    destination: int
    side: BuildingSide


@dataclass(frozen=True, slots=True)
class BuildPassed:
    """Phase 7 (decision): the builder builds nothing."""

    seat: int


@dataclass(frozen=True, slots=True)
class SupplyDiscarded:
    """Phase 9: the supply cards played this round go to the face-up discard pile."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DiscardPileReshuffled:
    """Phase 10: the draw pile ran out; the discard pile becomes the new draw pile.

    `order` (top card first) is hidden; `size` is public.
    """

    size: int
    order: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """Phase 10: a player draws from the top of the draw pile; `cards` is hidden from others."""

    seat: int
    count: int
    cards: tuple[int, ...] | None
    reason: DrawReason


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    """Phase 10 (decision): a player over the hand limit discards down to 5, face up."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """Phases 11 and 12: action cards return; the start player card passes left."""

    round: int
    next_start_player: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The last event: final VP, the winners (ties share the win) and the revealed seed."""

    final_vp: tuple[int, ...]
    winners: tuple[int, ...]
    seed: bytes
    early: bool


Event = (
    GameCreated
    | StartPlayerChosen
    | RingLaidOut
    | SupplyDealt
    | StrategistAssigned
    | PhaseBegan
    | FirstEstatePlaced
    | RoundStarted
    | ConflictChosen
    | ActionCardsDealt
    | ActionCardPicked
    | SupplyPlayed
    | ActionCardsRevealed
    | AllegianceSwitched
    | ConflictResolved
    | PointsAwarded
    | LandscapeFlipped
    | BuildingPlaced
    | BuildingFlipped
    | BuildingMoved
    | BuildPassed
    | SupplyDiscarded
    | DiscardPileReshuffled
    | CardsDrawn
    | CardsDiscarded
    | RoundEnded
    | GameEnded
)

#: Events that record a player's decision (the rest are automatic consequences).
DecisionEvent = (
    FirstEstatePlaced
    | ConflictChosen
    | ActionCardPicked
    | SupplyPlayed
    | BuildingPlaced
    | BuildingFlipped
    | BuildingMoved
    | BuildPassed
    | CardsDiscarded
)
DECISION_EVENTS: tuple[type[Event], ...] = get_args(DecisionEvent)


def deciding_seat(event: Event) -> int | None:
    """The seat whose decision `event` records; None for an automatic event."""
    if isinstance(event, DecisionEvent):
        return event.seat
    return None
