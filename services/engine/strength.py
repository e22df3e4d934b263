"""A house's strength in a conflict, and what it is made of (RULES.md, phase 5).

strength = the conflict value of the house's landscape + the supply cards played this round by
every seat backing the house now (after the traitor's switch) + 2 if the diplomat2 holder backs
it + 5 if the diplomat5 holder backs it. The rules decide the conflict on `total`; the conflict
summary keeps the parts, so a player sees why a house won.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cards import DIPLOMAT_BONUS, House

if TYPE_CHECKING:
    from .state import GameState


@dataclass(frozen=True, slots=True)
class HouseStrength:
    """One house's strength in a conflict, part by part."""

    position: int
    #: The conflict value of the house's landscape at `position`.
    landscape: int
    #: (seat, sum of the supply cards it played) for every seat backing the house, seat order.
    seats: tuple[tuple[int, int], ...]
    #: The diplomats' bonus (2 and/or 5) of the holders backing the house.
    diplomats: int

    @property
    def total(self) -> int:
        return self.landscape + sum(cards for _, cards in self.seats) + self.diplomats


def house_strength(state: GameState, house: House, position: int) -> HouseStrength:
    """Phase 5: what `house` brings to the conflict from its landscape at `position`."""
    seats = []
    diplomats = 0
    for seat, backs in enumerate(state.allegiance):
        if backs is house:
            played = state.played[seat]
            seats.append((seat, sum(played) if played else 0))
            pick = state.picks[seat]
            if pick is not None and pick in DIPLOMAT_BONUS:
                diplomats += DIPLOMAT_BONUS[pick]
    return HouseStrength(
        position, state.rules.card_table[state.kinds[position]].cp, tuple(seats), diplomats
    )
