"""What the round's conflict is worth, from the game's own card table and the allegiances now.

Each landscape card prints a victory-point scale: what *each* winner gains when the landscape
is conquered, by how many players back the winning house (RULES.md, phase 6). So the stakes of
a conflict are: if Eagle wins, Rose's landscape of the pair falls and each of Eagle's backers
gains that landscape's vp[k] (k: how many back Eagle), and the other way round. Allegiances
change at the reveal, when the traitor switches: a client knows its own pick, nobody else's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.api.verrater.v1 import cards_pb2, events_pb2, ruleset_pb2, view_pb2

from . import words

#: The phases in which the round's conflict is marked and not yet fought.
BEFORE_THE_FIGHT = frozenset({events_pb2.PHASE_DRAFT, events_pb2.PHASE_SUPPLY})


def spec_of(ruleset: ruleset_pb2.Ruleset, kind: int) -> ruleset_pb2.LandscapeSpec | None:
    for spec in ruleset.card_table.landscapes:
        if spec.type == kind:
            return spec
    return None


def cp_text(ruleset: ruleset_pb2.Ruleset, kind: int) -> str:
    """A landscape's conflict value, marked "*" while provisional: "7*"."""
    spec = spec_of(ruleset, kind)
    if spec is None:
        return "?"
    return f"{spec.cp}{'*' if spec.cp_provisional else ''}"


def scale_text(ruleset: ruleset_pb2.Ruleset, kind: int, sep: str = " ") -> str:
    """A landscape's victory-point scale for 1, 2, 3, 4 winners, provisional cells marked "*":
    "10 6 3 1", "15* 9* 4 1*"."""
    spec = spec_of(ruleset, kind)
    if spec is None:
        return "?"
    return sep.join(f"{cell.points}{'*' if cell.provisional else ''}" for cell in spec.vp)


def each_gains(ruleset: ruleset_pb2.Ruleset, kind: int, winners: int) -> tuple[int, bool]:
    """VP each of `winners` players gains when a landscape of `kind` falls to their house, and
    whether that number is provisional. Nobody gains anything when nobody backs the winner."""
    spec = spec_of(ruleset, kind)
    if spec is None or not 1 <= winners <= len(spec.vp):
        return 0, False
    cell = spec.vp[winners - 1]
    return cell.points, cell.provisional


def turn_order(view: view_pb2.PlayerView) -> list[int]:
    """Every seat in turn order: the start player first, then leftwards."""
    count = len(view.seats)
    return [(view.start_player + step) % count for step in range(count)]


def allegiances(view: view_pb2.PlayerView) -> dict[int, int]:
    """Seat -> the house it will back in this round's conflict, as far as the caller knows:
    as now, except that a caller holding the traitor switches at the reveal."""
    backing: dict[int, int] = {seat.seat: seat.house for seat in view.seats}
    if (
        view.HasField("seat")
        and view.HasField("pick")
        and view.pick == cards_pb2.ACTION_CARD_TRAITOR
        and view.phase in BEFORE_THE_FIGHT
    ):
        backing[view.seat] = words.other_house(backing[view.seat])
    return backing


@dataclass(frozen=True, slots=True)
class Stake:
    """What it is worth if `house` wins this round's conflict."""

    house: int
    falls: int  # the ring position of the other house's landscape, which it conquers
    backers: tuple[int, ...]  # the seats backing `house` (as far as the caller knows)
    each: int  # VP each backer gains
    provisional: bool


def conflict_stakes(view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset) -> list[Stake]:
    """Both houses' stakes in the marked conflict (Eagle first); empty when no conflict is
    marked or it has been fought."""
    if view.phase not in BEFORE_THE_FIGHT or not view.HasField("conflict"):
        return []
    pair = (view.conflict.first, view.conflict.second)
    if any(not 0 <= position < len(view.ring) for position in pair):
        return []
    backing = allegiances(view)
    stakes = []
    for house in (cards_pb2.HOUSE_EAGLE, cards_pb2.HOUSE_ROSE):
        lost = [position for position in pair if view.ring[position].house != house]
        if not lost:
            continue
        backers = tuple(seat for seat in turn_order(view) if backing[seat] == house)
        each, provisional = each_gains(ruleset, view.ring[lost[0]].type, len(backers))
        stakes.append(Stake(house, lost[0], backers, each, provisional))
    return stakes


def stake_text(view: view_pb2.PlayerView, stake: Stake, names: Sequence[str]) -> str:
    """One house's stake in words: "Eagle wins with 2 backers (you, Cleo): 6 each, for the
    village #4"."""
    house = words.house(stake.house)
    where = words.place(view, stake.falls)
    if not stake.backers:
        return f"{house} wins with no backers: nobody gains {where}"
    who = ", ".join(_who(view, seat, names) for seat in stake.backers)
    plural = "backer" if len(stake.backers) == 1 else "backers"
    mark = "*" if stake.provisional else ""
    count = f"{len(stake.backers)} {plural} ({who})"
    return f"{house} wins with {count}: {stake.each}{mark} each, for {where}"


def worth_to_you(view: view_pb2.PlayerView, stakes: Sequence[Stake]) -> str:
    """What the conflict is worth to the caller: "For you: 6 if Eagle wins, 0 if Rose wins"."""
    if not view.HasField("seat") or not stakes:
        return ""
    parts = [
        f"{stake.each if view.seat in stake.backers else 0} if {words.house(stake.house)} wins"
        for stake in stakes
    ]
    text = "For you: " + ", ".join(parts)
    if allegiances(view)[view.seat] != view.seats[view.seat].house:
        text += " (you hold the traitor: you switch sides at the reveal)"
    return text


@dataclass(frozen=True, slots=True)
class HouseTotal:
    """A house's strength so far in the marked conflict: its landscape's conflict value and the
    supply cards played by the seats backing it now (diplomats count at the reveal)."""

    house: int
    position: int
    landscape: int
    cards: tuple[tuple[int, int], ...]  # (seat, sum of its cards) for each backer that played

    @property
    def total(self) -> int:
        return self.landscape + sum(value for _, value in self.cards)


def running_totals(view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset) -> list[HouseTotal]:
    """Each house's strength so far, while the supply is played (Eagle first)."""
    if view.phase not in BEFORE_THE_FIGHT or not view.HasField("conflict"):
        return []
    totals = []
    for house in (cards_pb2.HOUSE_EAGLE, cards_pb2.HOUSE_ROSE):
        mine = [
            position
            for position in (view.conflict.first, view.conflict.second)
            if 0 <= position < len(view.ring) and view.ring[position].house == house
        ]
        if not mine:
            continue
        spec = spec_of(ruleset, view.ring[mine[0]].type)
        played = tuple(
            (seat, sum(view.seats[seat].played.cards))
            for seat in turn_order(view)
            if view.seats[seat].house == house and view.seats[seat].HasField("played")
        )
        totals.append(HouseTotal(house, mine[0], spec.cp if spec else 0, played))
    return totals


def totals_text(
    view: view_pb2.PlayerView, totals: Sequence[HouseTotal], names: Sequence[str]
) -> str:
    """ "Eagle 7 (forest #3) + 6 Anna + 5 Cleo = 18 · Rose 10 (village #4) = 10"."""
    parts = []
    for total in totals:
        text = f"{words.house(total.house)} {total.landscape} ({words.place(view, total.position)})"
        for seat, value in total.cards:
            text += f" + {value} {_who(view, seat, names)}"
        parts.append(f"{text} = {total.total}")
    return " · ".join(parts)


def still_to_play(view: view_pb2.PlayerView, names: Sequence[str]) -> str:
    """The seats yet to play supply this round, in turn order: "Bert, then Dora"."""
    left = [
        _who(view, seat, names)
        for seat in turn_order(view)
        if not view.seats[seat].HasField("played")
    ]
    return ", then ".join(left)


def _who(view: view_pb2.PlayerView, seat: int, names: Sequence[str]) -> str:
    if view.HasField("seat") and view.seat == seat:
        return "you"
    return words.seat_name(names, seat)
