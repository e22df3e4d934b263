"""The last conflict in words: one line for a busy screen, and in full (each house's strength
part by part, who betrayed, who held which action card, the points, the landscape that flipped)
for the key that shows it, as the web page's dialog does, and for the end screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from services.api.verrater.v1 import cards_pb2, view_pb2

from . import words
from .chronicle import Chronicle

CONFLICT_STYLE = "bold magenta"
HOUSE_STYLES: dict[int, str] = {
    cards_pb2.HOUSE_EAGLE: "bold yellow",
    cards_pb2.HOUSE_ROSE: "bold red",
}
#: The key that shows the last conflict in full, and goes back to the board (see session.py).
CONFLICT_KEY = "\t"
CONFLICT_KEY_NAME = "Tab"


def house_text(value: int) -> Text:
    return Text(words.house(value), style=HOUSE_STYLES.get(value, ""))


def outcome(view: view_pb2.PlayerView) -> str:
    """ "Eagle 35 vs Rose 20: Eagle wins" or "Eagle 20 vs Rose 20: a tie"."""
    summary = view.last_conflict
    said = f"{words.house(summary.winner)} wins" if summary.HasField("winner") else "a tie"
    return f"Eagle {summary.eagle_strength} vs Rose {summary.rose_strength}: {said}"


def conflict_brief(view: view_pb2.PlayerView) -> str:
    """The last conflict in one line: "Conflict of round 2: Eagle 35 vs Rose 20: Eagle
    wins"."""
    if not view.HasField("last_conflict"):
        return ""
    return f"Conflict of round {view.last_conflict.round}: {outcome(view)}"


def strength_parts(
    view: view_pb2.PlayerView, names: Sequence[str], house: int
) -> list[tuple[str, int]]:
    """Where a house's strength in the last conflict came from, as (label, value), from the
    server's breakdown: its landscape's cp, each backer's supply cards, the diplomats (RULES.md
    phase 5). The values add up to the house's strength."""
    summary = view.last_conflict
    strength = summary.eagle if house == cards_pb2.HOUSE_EAGLE else summary.rose
    parts = [(f"({words.place(view, strength.position)})", strength.landscape)]
    for contribution in strength.seats:
        if contribution.cards:
            who = words.seat_name(names, contribution.seat)
            cards = str(contribution.cards)
            if contribution.seat < len(summary.played):
                played = summary.played[contribution.seat]
                if played.HasField("cards"):
                    cards = words.cards(list(played.cards.cards))
            parts.append((f"({who} {cards})", contribution.cards))
    if strength.diplomats:
        parts.append(("(diplomats)", strength.diplomats))
    return parts


def _points(chronicle: Chronicle) -> str:
    if not chronicle.conflict_points:
        return "nobody scored"
    parts = []
    for seat in sorted(chronicle.conflict_points):
        gains = " ".join(
            f"+{points} ({words.REASONS.get(reason, '?')})"
            for points, reason in chronicle.conflict_points[seat]
        )
        parts.append(f"{chronicle.name(seat)} {gains}")
    return ", ".join(parts)


def conflict_lines(view: view_pb2.PlayerView, chronicle: Chronicle) -> list[Text]:
    """The last conflict in full, a line per fact (each may wrap, none is cut): the outcome,
    both strengths and where they came from, the traitor, the action cards, the points, the
    landscape that flipped."""
    if not view.HasField("last_conflict"):
        return []
    summary = view.last_conflict
    lines = [Text(f"Conflict of round {summary.round}: {outcome(view)}", style=CONFLICT_STYLE)]
    for house, strength in (
        (cards_pb2.HOUSE_EAGLE, summary.eagle),
        (cards_pb2.HOUSE_ROSE, summary.rose),
    ):
        line = house_text(house)
        said = " + ".join(
            f"{number} {label}" for label, number in strength_parts(view, chronicle.names, house)
        )
        line.append(f" {strength.total} = {said or '0'}")
        lines.append(line)
    if summary.HasField("traitor"):
        now = view.seats[summary.traitor].house
        lines.append(
            Text(f"{chronicle.name(summary.traitor)} betrayed (now backs {words.house(now)})")
        )
    else:
        lines.append(Text("Nobody betrayed."))
    picks = [
        f"{chronicle.name(seat)} {words.ACTIONS.get(pick.card, '?')}"
        for seat, pick in enumerate(summary.picks)
        if pick.HasField("card")
    ]
    if picks:
        lines.append(Text(f"Action cards: {', '.join(picks)}"))
    lines.append(Text(f"Points: {_points(chronicle)}"))
    if summary.HasField("flipped"):
        flipped = summary.flipped
        lines.append(
            Text(f"{words.place(view, flipped)} flipped to {words.house(view.ring[flipped].house)}")
        )
    return lines
