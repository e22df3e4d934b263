"""`legal_commands`: every command a seat may give now, one list per decision phase.

The lists follow the checks of `rules.decide` (shared/RULES.md, A round): `decide` accepts every
command listed here and refuses anything else with a `RuleViolation`, save the same decision
spelled otherwise (a conflict's two landscapes swapped, supply cards in another order).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from .cards import HAND_LIMIT, MAX_SUPPLY_PLAYED, MAX_TRADING_POSTS, RING_SIZE, BuildingSide
from .commands import (
    ChooseConflict,
    DiscardCards,
    FlipBuilding,
    MoveBuilding,
    PassBuild,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
)
from .events import Phase
from .state import GameState
from .turns import to_act


@lru_cache(maxsize=4096)
def sub_multisets(hand: tuple[int, ...], size: int | None = None) -> tuple[tuple[int, ...], ...]:
    """Every distinct choice of cards from a hand (of one size, or of every size)."""
    sizes = range(len(hand) + 1) if size is None else (size,)
    return tuple(sorted({combo for r in sizes for combo in combinations(sorted(hand), r)}))


def legal_commands(state: GameState, seat: int) -> list[PlayerCommand]:
    """Every command `seat` may give now (empty when it is not that seat's decision)."""
    if seat not in to_act(state):
        return []
    phase = state.phase
    free = [pos for pos in range(RING_SIZE) if state.buildings[pos] is None]
    if phase is Phase.FIRST_ESTATES:
        return [PlaceFirstEstate(seat, pos) for pos in free]
    if phase is Phase.CONFLICT:
        return [
            ChooseConflict(seat, pos, (pos + 1) % RING_SIZE)
            for pos in range(RING_SIZE)
            if state.houses[pos] is not state.houses[(pos + 1) % RING_SIZE]
        ]
    if phase is Phase.DRAFT:
        return [PickActionCard(seat, card) for card in sorted(set(state.pool))]
    if phase is Phase.SUPPLY:
        return list(_supply_plays(seat, state.hands[seat]))
    if phase is Phase.HAND_LIMIT:
        return list(_discards(seat, state.hands[seat]))
    return _build_commands(state, seat, free)


# A hand's choices run to a hundred commands and recur all game: build each list once. The
# commands are frozen, so sharing them is safe.
@lru_cache(maxsize=4096)
def _supply_plays(seat: int, hand: tuple[int, ...]) -> tuple[PlaySupply, ...]:
    return tuple(
        PlaySupply(seat, cards) for cards in sub_multisets(hand) if len(cards) <= MAX_SUPPLY_PLAYED
    )


@lru_cache(maxsize=4096)
def _discards(seat: int, hand: tuple[int, ...]) -> tuple[DiscardCards, ...]:
    return tuple(DiscardCards(seat, cards) for cards in sub_multisets(hand, len(hand) - HAND_LIMIT))


def _build_commands(state: GameState, seat: int, free: list[int]) -> list[PlayerCommand]:
    commands: list[PlayerCommand] = [PassBuild(seat)]
    room = state.trading_posts(seat) < MAX_TRADING_POSTS
    sides = [BuildingSide.ESTATE, BuildingSide.TRADING_POST] if room else [BuildingSide.ESTATE]
    if state.unplaced_buildings(seat):
        commands.extend(PlaceBuilding(seat, pos, side) for pos in free for side in sides)
    own = [
        (pos, b.side) for pos, b in enumerate(state.buildings) if b is not None and b.owner == seat
    ]
    commands.extend(
        FlipBuilding(seat, pos) for pos, side in own if side is BuildingSide.TRADING_POST or room
    )
    if state.rules.builder_may_move:
        for pos, side in own:
            move_room = room or side is BuildingSide.TRADING_POST
            move_sides = (
                [BuildingSide.ESTATE, BuildingSide.TRADING_POST]
                if move_room
                else [BuildingSide.ESTATE]
            )
            commands.extend(MoveBuilding(seat, pos, dest, s) for dest in free for s in move_sides)
    return commands
