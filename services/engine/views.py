"""What a seat (or a spectator) may see: views of the state and redacted events.

RULES.md, Hidden information: a hand is seen by its owner (others see the count); the draw
pile's order by nobody; the set-aside action card by nobody during the game; the cards passed in
the draft by the player whose pick it is; a pick before the reveal by its owner. Everything else
is public. Views and redacted events are built from that table and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from .buildings import Building, building, trading_posts, unplaced_buildings
from .cards import ActionCard, BuildingSide, House, LandscapeType
from .commands import PlayerCommand
from .events import (
    ActionCardPicked,
    ActionCardsDealt,
    BotLevel,
    CardsDrawn,
    DiscardPileReshuffled,
    Event,
    GameCreated,
    Phase,
    SupplyDealt,
)
from .legal import legal_commands
from .state import ConflictSummary, GameState
from .turns import Turn, whose_turn


@dataclass(frozen=True, slots=True)
class LandscapeView:
    """One ring position: the landscape, the house it belongs to, and its building if any."""

    position: int
    type: LandscapeType
    house: House
    building_owner: int | None
    building_side: BuildingSide | None


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public facts about one seat."""

    seat: int
    house: House
    vp: int
    hand_count: int
    unplaced_buildings: int
    trading_posts: int
    has_picked: bool
    played: tuple[int, ...] | None
    revealed_pick: ActionCard | None
    name: str = ""
    bot_level: BotLevel | None = None


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything `seat` may know (seat None: a spectator, who sees the public part only)."""

    seat: int | None
    version: int
    phase: Phase
    round: int
    rounds: int
    start_player: int
    strategist: int
    ring: tuple[LandscapeView, ...]
    seats: tuple[SeatView, ...]
    deck_count: int
    discard: tuple[int, ...]
    conflict: tuple[int, int] | None
    turn: Turn
    last_conflict: ConflictSummary | None
    seed_commitment: str
    hand: tuple[int, ...] | None
    pick: ActionCard | None
    offered: tuple[ActionCard, ...] | None
    legal: tuple[PlayerCommand, ...]
    winners: tuple[int, ...]
    seed: bytes | None
    # The table's time per decision (0: untimed): public, like who sits where.
    turn_seconds: int = 0

    def buildings(self) -> tuple[Building | None, ...]:
        """The building under each ring position, as the state records it."""
        return tuple(
            building(landscape.building_owner, landscape.building_side)
            if landscape.building_owner is not None and landscape.building_side is not None
            else None
            for landscape in self.ring
        )


def view(state: GameState, seat: int | None) -> PlayerView:
    """The state as `seat` may see it; `seat=None` gives the spectator view."""
    n = len(state.vp)
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not in this game")
    buildings = state.buildings
    ring = _ring(state.kinds, state.houses, buildings)
    seats = tuple(
        SeatView(
            seat=s,
            house=state.allegiance[s],
            vp=state.vp[s],
            hand_count=len(state.hands[s]),
            unplaced_buildings=unplaced_buildings(buildings, s),
            trading_posts=trading_posts(buildings, s),
            has_picked=state.picks[s] is not None,
            played=state.played[s],
            revealed_pick=state.picks[s] if state.revealed else None,
            name=state.seating[s].name if state.seating else "",
            bot_level=state.seating[s].bot_level if state.seating else None,
        )
        for s in range(n)
    )
    turn = whose_turn(state)
    mine = seat is not None
    drafting = mine and state.phase is Phase.DRAFT and turn.seats == (seat,)
    return PlayerView(
        seat=seat,
        version=state.version,
        phase=state.phase,
        round=state.round,
        rounds=state.rules.rounds,
        start_player=state.start_player,
        strategist=state.strategist,
        ring=ring,
        seats=seats,
        deck_count=len(state.deck),
        discard=state.discard,
        conflict=state.conflict,
        turn=turn,
        last_conflict=state.last_conflict,
        seed_commitment=state.seed_commitment,
        hand=state.hands[seat] if seat is not None else None,
        pick=state.picks[seat] if seat is not None else None,
        offered=state.pool if drafting else None,
        legal=tuple(legal_commands(state, seat)) if seat is not None else (),
        winners=state.winners,
        seed=state.seed if state.phase is Phase.GAME_OVER else None,
        turn_seconds=state.turn_seconds,
    )


@lru_cache(maxsize=4096)
def _ring(
    kinds: tuple[LandscapeType, ...],
    houses: tuple[House, ...],
    buildings: tuple[Building | None, ...],
) -> tuple[LandscapeView, ...]:
    """The ring as everyone sees it. It changes only when a building or a house does, so one
    game asks for the same ring over and over (and every seat's view shares it). A new ring
    reuses the landscapes it shares with any ring seen before: one tuple, not fifteen objects
    (a ring lives on in the cache, and what lives on is what the garbage collector walks)."""
    return tuple(
        _landscape(pos, kind, houses[pos], b)
        for pos, (kind, b) in enumerate(zip(kinds, buildings, strict=True))
    )


@lru_cache(maxsize=4096)
def _landscape(
    position: int, kind: LandscapeType, house: House, building: Building | None
) -> LandscapeView:
    return LandscapeView(
        position=position,
        type=kind,
        house=house,
        building_owner=building.owner if building is not None else None,
        building_side=building.side if building is not None else None,
    )


def redact_event(event: Event, seat: int | None, before: GameState) -> Event:
    """`event` as `seat` may receive it live; `before` is the state the event applies to."""
    match event:
        case GameCreated():
            setup = event.setup
            if setup is not None:
                setup = replace(setup, deck=None, set_aside=None)
            return replace(event, seed=None, setup=setup)
        case SupplyDealt():
            return replace(event, deck=None)
        case ActionCardsDealt():
            offered = event.offered if seat == before.start_player else None
            return ActionCardsDealt(set_aside=None, offered=offered)
        case ActionCardPicked() if event.seat != seat:
            return replace(event, card=None)
        case CardsDrawn() if event.seat != seat:
            return replace(event, cards=None)
        case DiscardPileReshuffled():
            return replace(event, order=None)
        case _:
            return event
