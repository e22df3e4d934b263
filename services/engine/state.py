"""Game state and `evolve`: the state is only ever the fold of the game's events.

`evolve(state, event)` returns a new state and never touches the old one: it copies the state
(a flat record of immutable values: ints, enums and tuples) and rebinds the fields the event
changes. Copy-on-write of a flat record is what keeps the fold cheap enough for search bots;
`fold` copies once and rebinds the fields of its own copy event after event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .buildings import Building, building, productive_estates, trading_posts, unplaced_buildings
from .cards import RING_SIZE, ActionCard, BuildingSide, House, LandscapeType, Ruleset
from .events import (
    ActionCardPicked,
    ActionCardsDealt,
    ActionCardsRevealed,
    AllegianceSwitched,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildPassed,
    CardsDiscarded,
    CardsDrawn,
    ConflictChosen,
    ConflictResolved,
    DiscardPileReshuffled,
    Event,
    ExplicitSetup,
    FirstEstatePlaced,
    GameCreated,
    GameEnded,
    LandscapeFlipped,
    Phase,
    PhaseBegan,
    PointsAwarded,
    RingLaidOut,
    RoundEnded,
    RoundStarted,
    ScoreReason,
    SeatAssignment,
    StartPlayerChosen,
    StrategistAssigned,
    SupplyDealt,
    SupplyDiscarded,
    SupplyPlayed,
)
from .strength import HouseStrength, StrengthParts, strength_parts, strengths


@dataclass(frozen=True, slots=True)
class ConflictSummary:
    """What happened in a round's conflict (shown to everyone after the reveal)."""

    round: int
    first: int
    second: int
    picks: tuple[ActionCard | None, ...]
    played: tuple[tuple[int, ...] | None, ...]
    traitor: int | None
    eagle_strength: int
    rose_strength: int
    winner: House | None
    conquest_points: tuple[int, ...]
    flipped: int | None
    #: What the houses' strengths were made of (None in a summary received without them).
    parts: StrengthParts | None = None

    def strengths(self) -> tuple[HouseStrength, HouseStrength] | None:
        """How each house's strength added up, as (Eagle, Rose), when the parts are known."""
        return None if self.parts is None else strengths(self.parts, self.played, self.picks)


class GameState:
    """Everything about one game at one version. Treat as immutable: use `evolve`."""

    __slots__ = (
        "allegiance",
        "buildings",
        "conflict",
        "deck",
        "discard",
        "hands",
        "houses",
        "kinds",
        "last_conflict",
        "phase",
        "picks",
        "played",
        "pool",
        "reshuffles",
        "revealed",
        "round",
        "ruleset",
        "seating",
        "seed",
        "seed_commitment",
        "set_aside",
        "setup",
        "start_player",
        "strategist",
        "turn",
        "turn_seconds",
        "version",
        "vp",
        "winners",
    )

    ruleset: Ruleset | None
    # Who sits where and the turn timer: the rules ignore them; services read them.
    seating: tuple[SeatAssignment, ...]
    turn_seconds: int
    seed: bytes
    seed_commitment: str
    setup: ExplicitSetup | None
    version: int
    phase: Phase
    round: int
    start_player: int
    strategist: int
    kinds: tuple[LandscapeType, ...]
    houses: tuple[House, ...]
    buildings: tuple[Building | None, ...]
    allegiance: tuple[House, ...]
    vp: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    reshuffles: int
    turn: int
    conflict: tuple[int, int] | None
    set_aside: ActionCard | None
    pool: tuple[ActionCard, ...]
    picks: tuple[ActionCard | None, ...]
    played: tuple[tuple[int, ...] | None, ...]
    revealed: bool
    last_conflict: ConflictSummary | None
    winners: tuple[int, ...]

    def __init__(self) -> None:
        self.ruleset = None
        self.seating = ()
        self.turn_seconds = 0
        self.seed = b""
        self.seed_commitment = ""
        self.setup = None
        self.version = 0
        self.phase = Phase.SETUP
        self.round = 0
        self.start_player = 0
        self.strategist = 0
        self.kinds = ()
        self.houses = ()
        self.buildings = (None,) * RING_SIZE
        self.allegiance = ()
        self.vp = ()
        self.hands = ()
        self.deck = ()
        self.discard = ()
        self.reshuffles = 0
        self.turn = 0
        self.conflict = None
        self.set_aside = None
        self.pool = ()
        self.picks = ()
        self.played = ()
        self.revealed = False
        self.last_conflict = None
        self.winners = ()

    def copy(self) -> GameState:
        # Spelled out: a loop over __slots__ with getattr/setattr costs three times as much,
        # and evolve copies the state once per event.
        new = GameState.__new__(GameState)
        new.allegiance = self.allegiance
        new.buildings = self.buildings
        new.conflict = self.conflict
        new.deck = self.deck
        new.discard = self.discard
        new.hands = self.hands
        new.houses = self.houses
        new.kinds = self.kinds
        new.last_conflict = self.last_conflict
        new.phase = self.phase
        new.picks = self.picks
        new.played = self.played
        new.pool = self.pool
        new.reshuffles = self.reshuffles
        new.revealed = self.revealed
        new.round = self.round
        new.ruleset = self.ruleset
        new.seed = self.seed
        new.seating = self.seating
        new.seed_commitment = self.seed_commitment
        new.set_aside = self.set_aside
        new.setup = self.setup
        new.start_player = self.start_player
        new.strategist = self.strategist
        new.turn = self.turn
        new.turn_seconds = self.turn_seconds
        new.version = self.version
        new.vp = self.vp
        new.winners = self.winners
        return new

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _SLOTS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"GameState(version={self.version}, phase={self.phase.name}, round={self.round})"

    # --- derived facts (kept out of the record so they can never disagree with it) -------

    @property
    def players(self) -> int:
        return len(self.vp)

    @property
    def rules(self) -> Ruleset:
        """The ruleset in force; a rule violation to ask before the game exists."""
        if self.ruleset is None:
            raise ValueError("the game has not been created yet")
        return self.ruleset

    def seat_in_turn(self, index: int) -> int:
        """The seat `index` places after the start player in turn order."""
        return (self.start_player + index) % len(self.vp)

    def holder(self, card: ActionCard) -> int | None:
        """The seat that picked `card` this round, if any."""
        for seat, pick in enumerate(self.picks):
            if pick is card:
                return seat
        return None

    def unplaced_buildings(self, seat: int) -> int:
        return unplaced_buildings(self.buildings, seat)

    def trading_posts(self, seat: int) -> int:
        return trading_posts(self.buildings, seat)

    def productive_estates(self, seat: int) -> int:
        """Estates of `seat` under landscapes of the house the seat backs now."""
        return productive_estates(self.buildings, self.houses, seat, self.allegiance[seat])


_SLOTS: tuple[str, ...] = GameState.__slots__


def remove_cards(hand: tuple[int, ...], cards: Iterable[int]) -> tuple[int, ...] | None:
    """The hand without `cards` (a multiset), or None if the hand does not hold them all."""
    rest = list(hand)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            return None
    return tuple(rest)


def supply_count(state: GameState) -> Counter[int]:
    """All supply cards wherever they are: hands, draw pile, discard pile, played this round."""
    counter: Counter[int] = Counter(state.deck)
    counter.update(state.discard)
    for cards in (*state.hands, *state.played):
        if cards:
            counter.update(cards)
    return counter


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _revealed(value: Any, field: str) -> Any:
    """Folding needs the full event; a redacted one (hidden field None) cannot be folded."""
    if value is None:
        raise ValueError(f"cannot fold a redacted event: {field} is hidden")
    return value


# --- one function per event --------------------------------------------------------------


def _game_created(s: GameState, e: GameCreated) -> None:
    n = e.ruleset.players
    s.ruleset = e.ruleset
    s.seed = _revealed(e.seed, "seed")
    s.seed_commitment = e.seed_commitment
    s.setup = e.setup
    s.seating = e.seats
    s.turn_seconds = e.turn_seconds
    s.phase = Phase.SETUP
    s.vp = (0,) * n
    s.hands = ((),) * n
    s.allegiance = (House.EAGLE,) * n
    s.picks = (None,) * n
    s.played = (None,) * n


def _start_player_chosen(s: GameState, e: StartPlayerChosen) -> None:
    s.start_player = e.seat
    s.allegiance = e.allegiances


def _ring_laid_out(s: GameState, e: RingLaidOut) -> None:
    s.kinds = tuple(kind for kind, _ in e.landscapes)
    s.houses = tuple(house for _, house in e.landscapes)


def _supply_dealt(s: GameState, e: SupplyDealt) -> None:
    s.hands = e.hands
    s.deck = _revealed(e.deck, "deck")


def _strategist_assigned(s: GameState, e: StrategistAssigned) -> None:
    s.strategist = e.seat


def _phase_began(s: GameState, e: PhaseBegan) -> None:
    s.phase = e.phase
    s.turn = 0


def _first_estate_placed(s: GameState, e: FirstEstatePlaced) -> None:
    s.buildings = _with(s.buildings, e.position, building(e.seat, BuildingSide.ESTATE))
    s.turn += 1


def _round_started(s: GameState, e: RoundStarted) -> None:
    n = len(s.vp)
    s.round = e.round
    s.start_player = e.start_player
    s.phase = Phase.CONFLICT
    s.turn = 0
    s.conflict = None
    s.set_aside = None
    s.pool = ()
    s.picks = (None,) * n
    s.played = (None,) * n
    s.revealed = False


def _conflict_chosen(s: GameState, e: ConflictChosen) -> None:
    s.conflict = (e.first, e.second)


def _action_cards_dealt(s: GameState, e: ActionCardsDealt) -> None:
    s.set_aside = _revealed(e.set_aside, "set_aside")
    s.pool = _revealed(e.offered, "offered")


def _action_card_picked(s: GameState, e: ActionCardPicked) -> None:
    card = _revealed(e.card, "card")
    s.picks = _with(s.picks, e.seat, card)
    s.turn += 1
    if s.turn == len(s.vp):
        s.pool = ()  # the leftovers go back unseen
    else:
        pool = list(s.pool)
        pool.remove(card)
        s.pool = tuple(pool)


def _supply_played(s: GameState, e: SupplyPlayed) -> None:
    hand = remove_cards(s.hands[e.seat], e.cards)
    s.hands = _with(s.hands, e.seat, _revealed(hand, "cards"))
    s.played = _with(s.played, e.seat, e.cards)
    s.turn += 1


def _action_cards_revealed(s: GameState, e: ActionCardsRevealed) -> None:
    s.picks = e.picks
    s.revealed = True


def _allegiance_switched(s: GameState, e: AllegianceSwitched) -> None:
    s.allegiance = _with(s.allegiance, e.seat, e.house)


def _conflict_resolved(s: GameState, e: ConflictResolved) -> None:
    first, second = _revealed(s.conflict, "conflict")
    traitor = s.holder(ActionCard.TRAITOR)
    s.last_conflict = ConflictSummary(
        round=s.round,
        first=first,
        second=second,
        picks=s.picks,
        played=s.played,
        traitor=traitor,
        eagle_strength=e.eagle_strength,
        rose_strength=e.rose_strength,
        winner=e.winner,
        conquest_points=(0,) * len(s.vp),
        flipped=None,
        parts=strength_parts(s),
    )


def _points_awarded(s: GameState, e: PointsAwarded) -> None:
    s.vp = _with(s.vp, e.seat, s.vp[e.seat] + e.points)
    if e.reason is ScoreReason.CONQUEST and s.last_conflict is not None:
        summary = s.last_conflict
        points = _with(summary.conquest_points, e.seat, e.points)
        s.last_conflict = _with_outcome(summary, points, summary.flipped)


def _landscape_flipped(s: GameState, e: LandscapeFlipped) -> None:
    s.houses = _with(s.houses, e.position, e.house)
    if s.last_conflict is not None:
        summary = s.last_conflict
        s.last_conflict = _with_outcome(summary, summary.conquest_points, e.position)


def _with_outcome(
    summary: ConflictSummary, conquest_points: tuple[int, ...], flipped: int | None
) -> ConflictSummary:
    """The summary with the conquest's points and flipped landscape: `dataclasses.replace`
    spelled out, because its generic walk over the fields was a fifth of a game's fold."""
    return ConflictSummary(
        round=summary.round,
        first=summary.first,
        second=summary.second,
        picks=summary.picks,
        played=summary.played,
        traitor=summary.traitor,
        eagle_strength=summary.eagle_strength,
        rose_strength=summary.rose_strength,
        winner=summary.winner,
        conquest_points=conquest_points,
        flipped=flipped,
        parts=summary.parts,
    )


def _building_placed(s: GameState, e: BuildingPlaced) -> None:
    s.buildings = _with(s.buildings, e.position, building(e.seat, e.side))
    s.turn += 1


def _building_flipped(s: GameState, e: BuildingFlipped) -> None:
    s.buildings = _with(s.buildings, e.position, building(e.seat, e.side))
    s.turn += 1


def _building_moved(s: GameState, e: BuildingMoved) -> None:
    buildings = _with(s.buildings, e.origin, None)
    s.buildings = _with(buildings, e.destination, building(e.seat, e.side))
    s.turn += 1


def _build_passed(s: GameState, e: BuildPassed) -> None:
    s.turn += 1


def _supply_discarded(s: GameState, e: SupplyDiscarded) -> None:
    s.discard = s.discard + e.cards
    s.played = (None,) * len(s.vp)


def _discard_pile_reshuffled(s: GameState, e: DiscardPileReshuffled) -> None:
    s.deck = s.deck + _revealed(e.order, "order")
    s.discard = ()
    s.reshuffles += 1


def _cards_drawn(s: GameState, e: CardsDrawn) -> None:
    cards = _revealed(e.cards, "cards")
    s.deck = s.deck[e.count :]
    s.hands = _with(s.hands, e.seat, tuple(sorted(s.hands[e.seat] + cards)))


def _cards_discarded(s: GameState, e: CardsDiscarded) -> None:
    hand = remove_cards(s.hands[e.seat], e.cards)
    s.hands = _with(s.hands, e.seat, _revealed(hand, "cards"))
    s.discard = s.discard + e.cards


def _round_ended(s: GameState, e: RoundEnded) -> None:
    s.start_player = e.next_start_player


def _game_ended(s: GameState, e: GameEnded) -> None:
    s.phase = Phase.GAME_OVER
    s.winners = e.winners


E = TypeVar("E")


def _handler(fn: Callable[[GameState, E], None]) -> Callable[[GameState, Any], None]:
    return fn


_APPLY: dict[type, Callable[[GameState, Any], None]] = {
    GameCreated: _handler(_game_created),
    StartPlayerChosen: _handler(_start_player_chosen),
    RingLaidOut: _handler(_ring_laid_out),
    SupplyDealt: _handler(_supply_dealt),
    StrategistAssigned: _handler(_strategist_assigned),
    PhaseBegan: _handler(_phase_began),
    FirstEstatePlaced: _handler(_first_estate_placed),
    RoundStarted: _handler(_round_started),
    ConflictChosen: _handler(_conflict_chosen),
    ActionCardsDealt: _handler(_action_cards_dealt),
    ActionCardPicked: _handler(_action_card_picked),
    SupplyPlayed: _handler(_supply_played),
    ActionCardsRevealed: _handler(_action_cards_revealed),
    AllegianceSwitched: _handler(_allegiance_switched),
    ConflictResolved: _handler(_conflict_resolved),
    PointsAwarded: _handler(_points_awarded),
    LandscapeFlipped: _handler(_landscape_flipped),
    BuildingPlaced: _handler(_building_placed),
    BuildingFlipped: _handler(_building_flipped),
    BuildingMoved: _handler(_building_moved),
    BuildPassed: _handler(_build_passed),
    SupplyDiscarded: _handler(_supply_discarded),
    DiscardPileReshuffled: _handler(_discard_pile_reshuffled),
    CardsDrawn: _handler(_cards_drawn),
    CardsDiscarded: _handler(_cards_discarded),
    RoundEnded: _handler(_round_ended),
    GameEnded: _handler(_game_ended),
}


def initial_state() -> GameState:
    """The state before any event: no game yet."""
    return GameState()


def evolve(state: GameState, event: Event) -> GameState:
    """The state after `event`. The given state is left as it was."""
    new = state.copy()
    _APPLY[type(event)](new, event)
    new.version = state.version + 1
    return new


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Replay events from scratch (or on top of `state`, which is left as it was).

    The result equals evolving event by event; it copies the state once instead of per event
    and applies each event to that private copy in place, the same step `evolve` takes.
    """
    current = initial_state() if state is None else state.copy()
    for event in events:
        _APPLY[type(event)](current, event)
        current.version += 1
    return current
