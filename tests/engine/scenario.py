"""Scenario helpers: play Verräter by commands, the way the rulebook tells it.

`Game` keeps the state and every event, and gives the commands of a round in short form. The
board, the draw pile and the set-aside action cards are fixed by an `ExplicitSetup`, so every
scenario is the same game each time it runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

import pytest

from services.engine import (
    DEFAULT_CARD_TABLE,
    ActionCard,
    CardTable,
    ChooseConflict,
    CreateGame,
    DiscardCards,
    Event,
    ExplicitSetup,
    GameState,
    House,
    LandscapeType,
    PassBuild,
    Phase,
    PickActionCard,
    PlaceFirstEstate,
    PlayerCommand,
    PlayerView,
    PlaySupply,
    Ruleset,
    RuleViolation,
    ScoreReason,
    ViolationCode,
    evolve,
    execute,
    initial_state,
    redact_event,
    to_act,
    view,
)
from services.engine.events import PointsAwarded

EAGLE, ROSE = House.EAGLE, House.ROSE
TRAITOR = ActionCard.TRAITOR
DIPLOMAT2 = ActionCard.DIPLOMAT2
DIPLOMAT5 = ActionCard.DIPLOMAT5
BUILDER = ActionCard.BUILDER
STRATEGIST = ActionCard.STRATEGIST
FARMER = ActionCard.FARMER

SEED = b"verrater scenario seed"

Ring = tuple[tuple[LandscapeType, House], ...]


def ring(*cells: str) -> Ring:
    """The 12 landscapes by position 0..11, each written as house and type: "E city", "R river"."""
    houses = {"E": EAGLE, "R": ROSE}
    landscapes = []
    for cell in cells:
        house, kind = cell.split()
        landscapes.append((LandscapeType[kind.upper()], houses[house]))
    assert len(landscapes) == 12, "a ring has 12 positions"
    return tuple(landscapes)


#: Houses alternate all around, so every pair of neighbours is a legal conflict. Each pair
#: (0, 1), (2, 3), ... (10, 11) puts two different conflict values against each other, and the
#: wrap-around pair (11, 0) puts city against city.
STANDARD_RING = ring(
    "E city", "R wasteland", "E village", "R meadow", "E forest", "R river",
    "E river", "R forest", "E meadow", "R village", "E wasteland", "R city",
)  # fmt: skip

#: The draw pile, top card first: what is left of the 23 supply cards once every player holds
#: a 3, a 4 and a 5. The top cards are all different so a test can tell who drew what.
DECK = {
    4: (8, 6, 6, 5, 4, 3, 2, 2, 2, 2, 2),
    3: (8, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 2, 2, 2),
}

#: With the traitor set aside every round, nobody switches sides unless a test says so.
NO_TRAITOR = (TRAITOR,) * 9

#: The card a seat keeps when a test does not say: builder, farmer and strategist before the
#: diplomats, whose bonuses would change the strength of a house.
QUIET_PICKS = (BUILDER, FARMER, STRATEGIST, DIPLOMAT2, DIPLOMAT5, TRAITOR)

EventT = TypeVar("EventT")


class Game:
    """A test driver: the game's state, all its events, and the commands of a round."""

    def __init__(
        self,
        players: int = 4,
        *,
        start_player: int = 0,
        landscapes: Ring = STANDARD_RING,
        deck: Sequence[int] | None = None,
        set_aside: Sequence[ActionCard] = NO_TRAITOR,
        builder_may_move: bool = False,
        card_table: CardTable = DEFAULT_CARD_TABLE,
        seed: bytes = SEED,
        estates: Mapping[int, int] | None = None,
        setup_only: bool = False,
    ) -> None:
        """A game with this setup; past setup 5 (seat s puts its first estate under landscape s,
        unless `estates` says otherwise) unless `setup_only`."""
        setup = ExplicitSetup(
            start_player=start_player,
            ring=landscapes,
            deck=tuple(DECK[players] if deck is None else deck),
            set_aside=tuple(set_aside),
        )
        ruleset = Ruleset.standard(
            players, builder_may_move=builder_may_move, card_table=card_table
        )
        self.events, self.state = execute(initial_state(), CreateGame(ruleset, seed, setup))
        self.last: list[Event] = list(self.events)
        if not setup_only:
            self.first_estates(estates if estates is not None else {s: s for s in range(players)})

    @classmethod
    def from_seed(cls, players: int, seed: bytes) -> Game:
        """A game whose whole setup (start player, ring, draw pile, drafts) comes from the seed;
        stopped before the first estates."""
        game = cls.__new__(cls)
        create = CreateGame(Ruleset.standard(players), seed)
        game.events, game.state = execute(initial_state(), create)
        game.last = list(game.events)
        return game

    # --- commands ----------------------------------------------------------------------

    def do(self, command: PlayerCommand) -> list[Event]:
        """Give a command that the rules allow; returns the events it caused."""
        self.last, self.state = execute(self.state, command)
        self.events.extend(self.last)
        return self.last

    def refuse(self, command: PlayerCommand) -> ViolationCode:
        """Give a command the rules forbid: check that nothing changed, return the code."""
        before = self.state.copy()
        with pytest.raises(RuleViolation) as refusal:
            execute(self.state, command)
        assert self.state == before, "a refused command must not change the state"
        return refusal.value.code

    def first_estates(self, positions: Mapping[int, int]) -> None:
        """Setup 5: every seat, in turn order, puts its first estate at positions[seat]."""
        while self.state.phase is Phase.FIRST_ESTATES:
            (seat,) = to_act(self.state)
            self.do(PlaceFirstEstate(seat, positions[seat]))

    def conflict(self, first: int, second: int) -> None:
        """Phase 1: the strategist marks two landscapes."""
        self.do(ChooseConflict(self.state.strategist, first, second))

    def draft(self, picks: Mapping[int, ActionCard] | None = None) -> None:
        """Phase 2: every seat, in turn order, keeps picks[seat]; a seat not named keeps the
        first of QUIET_PICKS still offered that no named seat is waiting for."""
        picks = picks or {}
        while self.state.phase is Phase.DRAFT:
            (seat,) = to_act(self.state)
            if seat in picks:
                card = picks[seat]
            else:
                wanted = set(picks.values())
                card = next(c for c in QUIET_PICKS if c in self.state.pool and c not in wanted)
            self.do(PickActionCard(seat, card))

    def supply(self, plays: Mapping[int, Sequence[int]] | None = None) -> None:
        """Phase 3: every seat, in turn order, plays plays[seat] (nothing unless told)."""
        plays = plays or {}
        while self.state.phase is Phase.SUPPLY:
            (seat,) = to_act(self.state)
            self.do(PlaySupply(seat, tuple(plays.get(seat, ()))))

    def build(self, command: PlayerCommand | None = None) -> None:
        """Phase 7, if someone holds the builder: `command`, or a pass."""
        if self.state.phase is Phase.BUILD:
            (builder,) = to_act(self.state)
            self.do(command if command is not None else PassBuild(builder))

    def finish_round(
        self,
        build: PlayerCommand | None = None,
        discards: Mapping[int, Sequence[int]] | None = None,
    ) -> None:
        """Phases 7 and 10: the builder's command (a pass unless told), then the hand limit:
        discards[seat], or else the seat's lowest cards."""
        discards = discards or {}
        self.build(build)
        while self.state.phase is Phase.HAND_LIMIT:
            seat = to_act(self.state)[0]
            hand = self.state.hands[seat]
            cards = discards.get(seat, sorted(hand)[: len(hand) - 5])
            self.do(DiscardCards(seat, tuple(cards)))

    def play_round(
        self,
        conflict: tuple[int, int] | None = None,
        picks: Mapping[int, ActionCard] | None = None,
        plays: Mapping[int, Sequence[int]] | None = None,
        build: PlayerCommand | None = None,
        discards: Mapping[int, Sequence[int]] | None = None,
    ) -> list[Event]:
        """A whole round; the conflict is the first legal one unless told. Returns its events."""
        start = len(self.events)
        if conflict is None:
            conflict = first_legal_conflict(self.state)
        self.conflict(*conflict)
        self.draft(picks)
        self.supply(plays)
        self.finish_round(build, discards)
        return self.events[start:]

    # --- what a seat sees --------------------------------------------------------------

    def view(self, seat: int | None) -> PlayerView:
        """What `seat` (None: a spectator) sees now."""
        return view(self.state, seat)

    def redacted(self, seat: int | None) -> list[Event]:
        """Every event so far as `seat` receives it live."""
        return redacted_log(self.events, seat)


def first_legal_conflict(state: GameState) -> tuple[int, int]:
    """The first pair of neighbours (by position) that belong to different houses."""
    for pos in range(12):
        nxt = (pos + 1) % 12
        if state.houses[pos] is not state.houses[nxt]:
            return pos, nxt
    raise AssertionError("no legal conflict: one house holds every landscape")


def redacted_log(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events as `seat` receives them, each redacted against the state it applies to."""
    state = initial_state()
    seen = []
    for event in events:
        seen.append(redact_event(event, seat, state))
        state = evolve(state, event)
    return seen


def only(events: Iterable[Event], kind: type[EventT]) -> list[EventT]:
    """The events of one kind, in order."""
    return [event for event in events if isinstance(event, kind)]


def points(events: Iterable[Event], reason: ScoreReason) -> dict[int, int]:
    """VP gained per seat for one reason (seats that gained none are left out)."""
    gained: dict[int, int] = {}
    for award in only(events, PointsAwarded):
        if award.reason is reason:
            gained[award.seat] = gained.get(award.seat, 0) + award.points
    return gained
