"""A house's strength in a conflict, and what it is made of (RULES.md, phase 5).

strength = the conflict value of the house's landscape + the supply cards played this round by
every seat backing the house now (after the traitor's switch) + 2 if the diplomat2 holder backs
it + 5 if the diplomat5 holder backs it. The rules decide the conflict on `total`; the conflict
summary keeps what the parts are made of (`StrengthParts`, a few references the fold takes for
free) and adds them up when a view is made of it, so a player sees why a house won.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .cards import DIPLOMAT_BONUS, ActionCard, House

if TYPE_CHECKING:
    from .state import GameState


class HouseStrength(NamedTuple):
    """One house's strength in a conflict, part by part (a named tuple: every conflict makes
    four of them, and a tuple is made in a fifth of a frozen dataclass's time)."""

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


class StrengthParts(NamedTuple):
    """What a conflict's strengths are made of, beyond the cards played and picked: who backed
    which house after the traitor's switch, and each house's landscape."""

    allegiance: tuple[House, ...]
    eagle_at: int
    eagle_landscape: int
    rose_at: int
    rose_landscape: int


def strength_parts(state: GameState) -> StrengthParts:
    """The parts of `state`'s conflict (a chosen one), as they stand."""
    assert state.conflict is not None, "strengths are of a chosen conflict"
    first, second = state.conflict
    eagle_at, rose_at = (first, second) if state.houses[first] is House.EAGLE else (second, first)
    cards, kinds = state.rules.card_table, state.kinds
    return StrengthParts(
        state.allegiance, eagle_at, cards[kinds[eagle_at]].cp, rose_at, cards[kinds[rose_at]].cp
    )


def strengths(
    parts: StrengthParts,
    played: tuple[tuple[int, ...] | None, ...],
    picks: tuple[ActionCard | None, ...],
) -> tuple[HouseStrength, HouseStrength]:
    """Phase 5: what each house brings to the conflict, as (Eagle, Rose), in one pass."""
    eagle_seats: list[tuple[int, int]] = []
    rose_seats: list[tuple[int, int]] = []
    eagle_diplomats = rose_diplomats = 0
    for seat, backs in enumerate(parts.allegiance):
        cards = played[seat]
        contribution = (seat, sum(cards) if cards else 0)
        pick = picks[seat]
        bonus = DIPLOMAT_BONUS.get(pick, 0) if pick is not None else 0
        if backs is House.EAGLE:
            eagle_seats.append(contribution)
            eagle_diplomats += bonus
        else:
            rose_seats.append(contribution)
            rose_diplomats += bonus
    return (
        HouseStrength(parts.eagle_at, parts.eagle_landscape, tuple(eagle_seats), eagle_diplomats),
        HouseStrength(parts.rose_at, parts.rose_landscape, tuple(rose_seats), rose_diplomats),
    )


def conflict_strengths(state: GameState) -> tuple[HouseStrength, HouseStrength]:
    """The strengths of `state`'s conflict (a chosen one) as it stands, as (Eagle, Rose)."""
    return strengths(strength_parts(state), state.played, state.picks)
