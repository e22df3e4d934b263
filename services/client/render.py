"""The screen as Rich renderables, computed from (view, ruleset, chronicle) and nothing else.

Pure functions: no I/O, no server. `to_text` prints a renderable to plain text, which is how
the tests read the screen.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import cards_pb2, events_pb2, ruleset_pb2, view_pb2

from . import words
from .chronicle import Chronicle

HOUSE_STYLES: dict[int, str] = {
    cards_pb2.HOUSE_EAGLE: "bold yellow",
    cards_pb2.HOUSE_ROSE: "bold red",
}
CONFLICT_STYLE = "bold magenta"
#: The diplomats' strength (RULES.md, phase 5); the view names the cards, not their numbers.
DIPLOMATS: dict[int, int] = {cards_pb2.ACTION_CARD_DIPLOMAT2: 2, cards_pb2.ACTION_CARD_DIPLOMAT5: 5}
#: The ring drawn as a racetrack: top row left to right, bottom row right to left, so the
#: cells that touch are the landscapes that are adjacent (0 above 11, 5 above 6).
RING_ROWS = ((0, 1, 2, 3, 4, 5), (11, 10, 9, 8, 7, 6))
#: From this width on, the players and the latest happenings stand side by side.
SIDE_BY_SIDE_WIDTH = 150


class Beside:
    """Two renderables side by side on a wide console, one above the other on a narrow one."""

    def __init__(self, left: RenderableType, right: RenderableType, min_width: int) -> None:
        self.left = left
        self.right = right
        self.min_width = min_width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= self.min_width:
            grid = Table.grid(padding=(0, 2))
            grid.add_row(self.left, self.right)
            yield grid
        else:
            yield self.left
            yield self.right


def to_text(renderable: RenderableType, width: int = 100) -> str:
    """The renderable as plain text (no colours, no control codes)."""
    out = io.StringIO()
    console = Console(
        file=out, width=width, color_system=None, force_terminal=False, legacy_windows=False
    )
    console.print(renderable)
    return out.getvalue()


def house_text(value: int) -> Text:
    return Text(words.house(value), style=HOUSE_STYLES.get(value, ""))


def conflict_points(ruleset: ruleset_pb2.Ruleset) -> dict[int, int]:
    """Landscape type -> cp, from the game's own card table."""
    return {spec.type: spec.cp for spec in ruleset.card_table.landscapes}


def render_screen(
    view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset, chronicle: Chronicle
) -> RenderableType:
    """Everything a player (or spectator) sees at one version of the game."""
    parts: list[RenderableType] = [
        render_status(view, chronicle),
        render_ring(view, ruleset, chronicle),
    ]
    parts.append(
        Beside(render_players(view, chronicle), render_recent(chronicle), SIDE_BY_SIDE_WIDTH)
    )
    conflict = render_conflict(view, ruleset, chronicle)
    if conflict is not None:
        parts.append(conflict)
    if view.HasField("seat"):
        parts.append(render_own(view))
    if chronicle.ended is not None:
        parts.append(render_final(chronicle))
    return Group(*parts)


def render_status(view: view_pb2.PlayerView, chronicle: Chronicle) -> RenderableType:
    """The status line (round, phase, who must act and what) and the piles."""
    line = Text(words.status_line(view, chronicle.names), style="bold")
    piles = Text(
        f"Draw pile {view.deck_count} · discard pile {len(view.discard)} · "
        f"start player {chronicle.name(view.start_player)} · "
        f"strategist {chronicle.name(view.strategist)}",
        style="dim",
    )
    who = "spectator" if not view.HasField("seat") else f"you are {chronicle.name(view.seat)}"
    return Panel(
        Group(line, piles),
        title=f"Verräter · game {view.game_id} · {who}",
        title_align="left",
        box=box.ROUNDED,
    )


def _marked(view: view_pb2.PlayerView) -> tuple[int, ...]:
    if view.HasField("conflict") and view.phase != events_pb2.PHASE_GAME_OVER:
        return (view.conflict.first, view.conflict.second)
    return ()


def render_ring(
    view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset, chronicle: Chronicle
) -> RenderableType:
    """The 12 landscapes: type, conflict value, house, and the building under each."""
    cp = conflict_points(ruleset)
    marked = _marked(view)
    grid = Table.grid(expand=True)
    for _ in range(6):
        grid.add_column(ratio=1)
    for row in RING_ROWS:
        cells: list[RenderableType] = []
        for position in row:
            if position >= len(view.ring):
                cells.append(Text(""))
                continue
            landscape = view.ring[position]
            kind = words.LANDSCAPES.get(landscape.type, "?")
            body = Text(no_wrap=True, overflow="ellipsis")
            body.append(f"{kind.capitalize()} {cp.get(landscape.type, '?')}\n", style="bold")
            body.append_text(house_text(landscape.house))
            body.append("\n")
            if landscape.HasField("building_owner"):
                body.append(f"{words.SIDES.get(landscape.building_side, '?')}\n")
                body.append(chronicle.name(landscape.building_owner), style="italic")
            else:
                body.append("no building\n", style="dim")
            in_conflict = position in marked
            cells.append(
                Panel(
                    body,
                    title=f"#{position}" + (" ⚔" if in_conflict else ""),
                    title_align="left",
                    box=box.DOUBLE if in_conflict else box.ROUNDED,
                    border_style=CONFLICT_STYLE if in_conflict else "dim",
                    padding=(0, 0),
                )
            )
        grid.add_row(*cells)
    caption = "Landscapes (cp: conflict value)"
    if marked:
        first, second = marked
        caption += f" · conflict marked: {words.place(view, first)} vs {words.place(view, second)}"
    return Group(Text(caption, style="bold"), grid)


def _buildings(view: view_pb2.PlayerView, seat: int) -> str:
    estates = sum(
        1
        for landscape in view.ring
        if landscape.HasField("building_owner")
        and landscape.building_owner == seat
        and landscape.building_side == cards_pb2.BUILDING_SIDE_ESTATE
    )
    posts = sum(
        1
        for landscape in view.ring
        if landscape.HasField("building_owner")
        and landscape.building_owner == seat
        and landscape.building_side == cards_pb2.BUILDING_SIDE_TRADING_POST
    )
    return f"{estates}E {posts}T {view.seats[seat].unplaced_buildings} left"


def _action(view: view_pb2.PlayerView, seat_view: view_pb2.SeatView) -> str:
    if seat_view.HasField("revealed_pick"):
        return words.ACTIONS.get(seat_view.revealed_pick, "?")
    if view.HasField("seat") and view.seat == seat_view.seat and view.HasField("pick"):
        return f"{words.ACTIONS.get(view.pick, '?')} (secret)"
    return "picked" if seat_view.has_picked else ""


def render_players(view: view_pb2.PlayerView, chronicle: Chronicle) -> RenderableType:
    """Every seat: house, VP, hand count, supply played this round, action card, buildings."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title="Players", title_justify="left")
    for column in ("", "Player", "House", "VP", "Hand", "Played", "Action", "Buildings"):
        table.add_column(column, no_wrap=column != "Player")
    acting = set(view.turn.seats)
    for seat_view in view.seats:
        seat = seat_view.seat
        mark = "▶" if seat in acting else ""
        name = chronicle.name(seat)
        if view.HasField("seat") and view.seat == seat:
            name += " (you)"
        roles = [
            role
            for role, holder in (("start", view.start_player), ("strategist", view.strategist))
            if holder == seat
        ]
        if roles:
            name += f" [{', '.join(roles)}]"
        played = "—"
        if seat_view.HasField("played"):
            values = list(seat_view.played.cards)
            played = f"{words.cards(values)} ({sum(values)})" if values else "none"
        table.add_row(
            mark,
            name,
            house_text(seat_view.house),
            str(seat_view.vp),
            str(seat_view.hand_count),
            played,
            _action(view, seat_view),
            _buildings(view, seat),
        )
    return table


def render_recent(chronicle: Chronicle) -> RenderableType:
    """The latest happenings in words, oldest first."""
    lines = Text("\n".join(chronicle.recent) if chronicle.recent else "nothing yet", style="dim")
    return Panel(lines, title="Latest", title_align="left", box=box.ROUNDED)


def _at_the_time(summary: view_pb2.ConflictSummary, view: view_pb2.PlayerView, pos: int) -> int:
    """The house a conflict landscape belonged to when the conflict was fought."""
    current = view.ring[pos].house
    if summary.HasField("flipped") and summary.flipped == pos:
        return words.other_house(current)
    return current


def render_conflict(
    view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset, chronicle: Chronicle
) -> RenderableType | None:
    """The last conflict: both houses' strengths and where they came from, the winner, the
    points each player got, the landscape that flipped, and who betrayed."""
    if not view.HasField("last_conflict"):
        return None
    summary = view.last_conflict
    names = chronicle.names
    lines = Text()
    houses = {pos: _at_the_time(summary, view, pos) for pos in (summary.first, summary.second)}
    lines.append(
        f"{words.place(view, summary.first)} ({words.house(houses[summary.first])}) vs "
        f"{words.place(view, summary.second)} ({words.house(houses[summary.second])})\n"
    )
    for value, strength in (
        (cards_pb2.HOUSE_EAGLE, summary.eagle_strength),
        (cards_pb2.HOUSE_ROSE, summary.rose_strength),
    ):
        lines.append_text(house_text(value))
        parts = strength_parts(view, ruleset, names, value)
        said = " + ".join(f"{number} ({label})" for label, number in parts) or "0"
        lines.append(f" {strength} = {said}\n")
    if summary.HasField("winner"):
        lines.append(f"{words.house(summary.winner)} wins", style=HOUSE_STYLES[summary.winner])
    else:
        lines.append("A tie: nobody conquers", style="bold")
    lines.append("\n")
    if summary.HasField("traitor"):
        now = view.seats[summary.traitor].house
        lines.append(
            f"Traitor: {words.seat_name(names, summary.traitor)} betrayed and now backs "
            f"{words.house(now)}\n"
        )
    else:
        lines.append("Nobody betrayed this round\n")
    picks = [
        f"{words.seat_name(names, seat)} {words.ACTIONS.get(pick.card, '?')}"
        for seat, pick in enumerate(summary.picks)
        if pick.HasField("card")
    ]
    if picks:
        lines.append("Action cards: " + " · ".join(picks) + "\n")
    lines.append("Points: " + _points(chronicle) + "\n")
    if summary.HasField("flipped"):
        flipped = summary.flipped
        lines.append(
            f"{words.place(view, flipped).capitalize()} flipped to "
            f"{words.house(view.ring[flipped].house)}"
        )
    else:
        lines.append("No landscape changed hands")
    return Panel(
        lines,
        title=f"Conflict of round {summary.round}",
        title_align="left",
        box=box.HEAVY,
        border_style=CONFLICT_STYLE,
    )


def strength_parts(
    view: view_pb2.PlayerView, ruleset: ruleset_pb2.Ruleset, names: Sequence[str], house: int
) -> list[tuple[str, int]]:
    """Where a house's strength in the last conflict came from, as (label, value): its
    landscape's cp, each backer's supply cards, the diplomats that back it (RULES.md phase 5).
    The values add up to the strength the server reports."""
    summary = view.last_conflict
    cp = conflict_points(ruleset)
    parts = [
        (words.place(view, pos), cp.get(view.ring[pos].type, 0))
        for pos in (summary.first, summary.second)
        if _at_the_time(summary, view, pos) == house
    ]
    # Allegiances change only at a reveal, so the view's houses are those of the last conflict.
    for seat in (seat.seat for seat in view.seats if seat.house == house):
        who = words.seat_name(names, seat)
        if seat < len(summary.played) and summary.played[seat].HasField("cards"):
            values = list(summary.played[seat].cards.cards)
            if values:
                parts.append((f"{who} played {words.cards(values)}", sum(values)))
        if seat < len(summary.picks) and summary.picks[seat].card in DIPLOMATS:
            card = summary.picks[seat].card
            parts.append((f"{words.ACTIONS[card]}: {who}", DIPLOMATS[card]))
    return parts


def _points(chronicle: Chronicle) -> str:
    if not chronicle.conflict_points:
        return "none"
    parts = []
    for seat in sorted(chronicle.conflict_points):
        gains = " ".join(
            f"+{points} ({words.REASONS.get(reason, '?')})"
            for points, reason in chronicle.conflict_points[seat]
        )
        parts.append(f"{chronicle.name(seat)} {gains}")
    return " · ".join(parts)


def render_own(view: view_pb2.PlayerView) -> RenderableType:
    """The caller's secrets: hand, action card, cards offered in the draft."""
    hand = list(view.hand.cards)
    text = Text()
    text.append("Your hand: ", style="bold")
    text.append(f"{' '.join(str(card) for card in hand) or 'no cards'}")
    if hand:
        text.append(f" (sum {sum(hand)})", style="dim")
    text.append(" · you back ")
    text.append_text(house_text(view.seats[view.seat].house))
    if view.HasField("pick"):
        text.append(f" · your action card: {words.ACTIONS.get(view.pick, '?')}")
    if view.HasField("offered") and view.offered.cards:
        offered = ", ".join(words.ACTIONS.get(card, "?") for card in view.offered.cards)
        text.append(f"\nOffered to you: {offered}")
    return text


def render_options(view: view_pb2.PlayerView) -> RenderableType:
    """The caller's legal commands, numbered from 1, in words."""
    options = [
        f"{number:>2}. {words.describe(command, view)}"
        for number, command in enumerate(view.legal, start=1)
    ]
    columns = 1 if len(options) <= 12 else 3 if len(options) > 24 else 2
    grid = Table.grid(padding=(0, 3))
    rows = -(-len(options) // columns)
    for _ in range(columns):
        grid.add_column()
    for row in range(rows):
        grid.add_row(
            *(
                options[row + rows * col] if row + rows * col < len(options) else ""
                for col in range(columns)
            )
        )
    return Group(
        Text(f"Your turn: {words.DECISIONS.get(view.turn.decision, 'decide')}", style="bold green"),
        grid,
    )


def render_final(chronicle: Chronicle) -> RenderableType:
    """Final scores, with the trading-post bonus shown on its own."""
    ended = chronicle.ended
    table = Table(title="Final scores", title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("Player", "VP in play", "Trading posts", "Total", ""):
        table.add_column(column, justify="left" if column == "Player" else "right")
    if ended is None:
        return table
    winners = set(ended.winners)
    for seat, total in enumerate(ended.final_vp):
        bonus = chronicle.trading_post_bonus.get(seat, 0)
        table.add_row(
            chronicle.name(seat),
            str(total - bonus),
            f"+{bonus}",
            str(total),
            "★ winner" if seat in winners else "",
        )
    names = [chronicle.name(seat) for seat in ended.winners]
    verdict = f"{names[0]} wins" if len(names) == 1 else f"{' and '.join(names)} share the win"
    if ended.early:
        verdict += " (the game ended early: every landscape belongs to one house)"
    return Group(table, Text(verdict, style="bold"))
