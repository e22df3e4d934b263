"""The screen as Rich renderables, computed from (view, ruleset, chronicle, prompt) and nothing
else: pure functions, no I/O, no server. `to_text` prints a renderable as plain text, which is
how the tests read the screen.

`render_frame` lays the game out in fixed regions for a terminal of a given size, top to
bottom: the status line, the board (the ring of twelve landscapes), the players, the latest
events, and the caller's hand with the prompt on the last line. The frame is exactly as tall as
the terminal, whatever happens: each region gets a height first, and its content is fitted to
it (the events keep the newest lines; a menu that cannot fit says how to type what it hides),
so nothing scrolls a region away. From 80x24 up; a larger terminal gets roomier regions.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich import box
from rich.console import Console, Group, RenderableType
from rich.layout import Layout
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import cards_pb2, commands_pb2, events_pb2, ruleset_pb2, view_pb2

from . import stakes, words
from .chronicle import Chronicle

HOUSE_STYLES: dict[int, str] = {
    cards_pb2.HOUSE_EAGLE: "bold yellow",
    cards_pb2.HOUSE_ROSE: "bold red",
}
CONFLICT_STYLE = "bold magenta"
#: The ring drawn as a racetrack: top row left to right, bottom row right to left, so the
#: cells that touch are the landscapes that are adjacent (0 above 11, 5 above 6).
RING_ROWS = ((0, 1, 2, 3, 4, 5), (11, 10, 9, 8, 7, 6))
#: The smallest terminal the layout is made for.
MIN_WIDTH, MIN_HEIGHT = 80, 24
#: From this size on, the board's landscapes are framed cards.
ROOMY_WIDTH, ROOMY_HEIGHT = 100, 36
#: Lines of a landscape cell (name, house and cp, vp scale, building).
CELL_LINES = 4
#: Spaces between the columns of a menu.
MENU_GAP = 2
#: What a menu that cannot show every option says.
MENU_HIDDEN = "type what you want in words, e.g. 'estate #7', 'flip #3', 'pass'"


def to_text(renderable: RenderableType, width: int = 100, height: int | None = None) -> str:
    """The renderable as plain text (no colours, no control codes)."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        height=height or 25,
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
    )
    console.print(renderable)
    return out.getvalue()


def height_of(renderable: RenderableType, width: int) -> int:
    """How many lines `renderable` takes at `width`."""
    console = Console(file=io.StringIO(), width=width, color_system=None, legacy_windows=False)
    return len(console.render_lines(renderable, console.options.update_width(width), pad=False))


def house_text(value: int) -> Text:
    return Text(words.house(value), style=HOUSE_STYLES.get(value, ""))


# --- what the session tells the screen -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prompt:
    """The bottom line and what stands above it: a question (`label`, with what is `typed` so
    far) or, when nothing is asked, `idle` words; `notes` are short lines above it (a refusal,
    a suggestion, input that was ignored)."""

    label: str = ""
    typed: str = ""
    idle: str = ""
    notes: tuple[Text, ...] = ()
    menu: bool = False  # show the caller's legal commands as numbered options

    @property
    def asking(self) -> bool:
        return bool(self.label)


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything one frame shows."""

    view: view_pb2.PlayerView
    ruleset: ruleset_pb2.Ruleset
    chronicle: Chronicle
    prompt: Prompt = field(default_factory=Prompt)
    clock: str = ""  # "1:45 left", "" without a turn timer
    clock_urgent: bool = False


# --- the status line -------------------------------------------------------------------------


def render_status(scene: Scene, details: bool) -> RenderableType:
    """Round, phase, who must act and what, and the clock on the right; with `details` a second
    line: who you are, the game, the piles, the seed commitment."""
    view, chronicle = scene.view, scene.chronicle
    grid = Table.grid(expand=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True, justify="right")
    clock = Text(f" {scene.clock}" if scene.clock else "")
    if scene.clock_urgent:
        clock.stylize("bold red")
    grid.add_row(Text(words.status_line(view, chronicle.names), style="bold"), clock)
    if not details:
        return grid
    who = "spectator" if not view.HasField("seat") else f"you are {chronicle.name(view.seat)}"
    line = Text(
        f"{who[:1].upper()}{who[1:]} · game {view.game_id} · draw pile {view.deck_count} · "
        f"discard pile {len(view.discard)} · seed commitment {view.seed_commitment}",
        style="dim",
        no_wrap=True,
        overflow="ellipsis",
    )
    return Group(grid, line)


# --- the board -------------------------------------------------------------------------------


def _marked(view: view_pb2.PlayerView) -> tuple[int, ...]:
    if view.HasField("conflict") and view.phase != events_pb2.PHASE_GAME_OVER:
        return (view.conflict.first, view.conflict.second)
    return ()


def _cell(
    view: view_pb2.PlayerView,
    ruleset: ruleset_pb2.Ruleset,
    chronicle: Chronicle,
    position: int,
    framed: bool,
) -> Text:
    """One landscape: position and type, house and conflict value, VP scale, building."""
    landscape = view.ring[position]
    in_conflict = position in _marked(view)
    body = Text(no_wrap=True, overflow="ellipsis")
    label = f"#{position} {words.LANDSCAPES.get(landscape.type, '?')}"
    if in_conflict and not framed:
        body.append("»" + label, style=CONFLICT_STYLE)
    else:
        body.append(label, style="bold")
    body.append("\n")
    body.append_text(house_text(landscape.house))
    body.append(f" cp {stakes.cp_text(ruleset, landscape.type)}\n")
    scale = (
        f"vp {stakes.scale_text(ruleset, landscape.type)}"
        if framed
        else stakes.scale_text(ruleset, landscape.type, "/")
    )
    body.append(scale + "\n", style="cyan")
    if landscape.HasField("building_owner"):
        side = words.SIDES.get(landscape.building_side, "?")
        short = "estate" if landscape.building_side == cards_pb2.BUILDING_SIDE_ESTATE else "post"
        body.append(f"{short if not framed else side} ")
        body.append(chronicle.name(landscape.building_owner), style="italic")
    else:
        body.append("no building", style="dim")
    return body


def render_board(scene: Scene, roomy: bool, caption: bool) -> RenderableType:
    """The 12 landscapes as a racetrack of two rows (adjacent cells are adjacent landscapes)."""
    view, ruleset, chronicle = scene.view, scene.ruleset, scene.chronicle
    marked = _marked(view)
    grid = Table.grid(expand=True, padding=(0, 0 if roomy else 1))
    for _ in range(6):
        grid.add_column(ratio=1, no_wrap=True)
    for row in RING_ROWS:
        cells: list[RenderableType] = []
        for position in row:
            if position >= len(view.ring):
                cells.append(Text(""))
                continue
            body = _cell(view, ruleset, chronicle, position, roomy)
            if roomy:
                in_conflict = position in marked
                cells.append(
                    Panel(
                        body,
                        title="conflict" if in_conflict else None,
                        title_align="left",
                        box=box.DOUBLE if in_conflict else box.ROUNDED,
                        border_style=CONFLICT_STYLE if in_conflict else "dim",
                        padding=(0, 0),
                    )
                )
            else:
                cells.append(body)
        grid.add_row(*cells)
    if not caption:
        return grid
    text = Text("Landscapes", style="bold")
    scale = "vp" if roomy else "a/b/c/d"
    text.append(
        f" · cp conflict value · {scale}: VP each winner gains with 1/2/3/4 winners · * provisional"
    )
    if marked:
        first, second = marked
        text.append(
            f" · conflict: {words.place(view, first)} vs {words.place(view, second)}",
            style=CONFLICT_STYLE,
        )
    text.no_wrap = True
    text.overflow = "ellipsis"
    return Group(text, grid)


# --- the players -----------------------------------------------------------------------------


def _buildings(view: view_pb2.PlayerView, seat: int) -> str:
    mine = [
        landscape.building_side
        for landscape in view.ring
        if landscape.HasField("building_owner") and landscape.building_owner == seat
    ]
    estates = mine.count(cards_pb2.BUILDING_SIDE_ESTATE)
    posts = mine.count(cards_pb2.BUILDING_SIDE_TRADING_POST)
    return f"{estates}E {posts}T {view.seats[seat].unplaced_buildings} left"


def _action(view: view_pb2.PlayerView, seat_view: view_pb2.SeatView) -> str:
    if seat_view.HasField("revealed_pick"):
        return words.ACTIONS.get(seat_view.revealed_pick, "?")
    if view.HasField("seat") and view.seat == seat_view.seat and view.HasField("pick"):
        return f"{words.ACTIONS.get(view.pick, '?')} (secret)"
    return "picked" if seat_view.has_picked else ""


def render_players(scene: Scene, header: bool) -> RenderableType:
    """Every seat in turn order (start player first): who acts, house, VP, hand count, the
    supply played this round, action card, buildings."""
    view, chronicle = scene.view, scene.chronicle
    table = Table(
        box=None, pad_edge=False, padding=(0, 1), show_header=header, header_style="bold dim"
    )
    table.add_column("", no_wrap=True)
    table.add_column("Order", no_wrap=True)
    table.add_column("Player", no_wrap=True, overflow="ellipsis", max_width=28)
    for column in ("House", "VP", "Hand", "Played", "Action", "Buildings"):
        table.add_column(column, no_wrap=True, overflow="ellipsis")
    acting = set(view.turn.seats)
    for order, seat in enumerate(stakes.turn_order(view), start=1):
        seat_view = view.seats[seat]
        name = chronicle.name(seat)
        if view.HasField("seat") and view.seat == seat:
            name += " (you)"
        if seat == view.strategist:
            name += " [strategist]"
        played = "—"
        if seat_view.HasField("played"):
            values = list(seat_view.played.cards)
            played = f"{words.cards(values)} ={sum(values)}" if values else "none"
        table.add_row(
            Text("▶", style="bold green") if seat in acting else "",
            f"{order}" + (" start" if seat == view.start_player else ""),
            name,
            house_text(seat_view.house),
            str(seat_view.vp),
            str(seat_view.hand_count),
            played,
            _action(view, seat_view),
            _buildings(view, seat),
        )
    return table


# --- the latest events -----------------------------------------------------------------------


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


def conflict_lines(scene: Scene) -> list[Text]:
    """The last conflict in a few lines: both strengths and where they came from, the winner,
    the traitor, the points, the landscape that flipped."""
    view, chronicle = scene.view, scene.chronicle
    if not view.HasField("last_conflict"):
        return []
    summary = view.last_conflict
    head = Text(f"Conflict of round {summary.round}: ", style=CONFLICT_STYLE)
    for value, strength in (
        (cards_pb2.HOUSE_EAGLE, summary.eagle),
        (cards_pb2.HOUSE_ROSE, summary.rose),
    ):
        if value == cards_pb2.HOUSE_ROSE:
            head.append(" vs ")
        head.append_text(house_text(value))
        said = " + ".join(
            f"{number} {label}" for label, number in strength_parts(view, chronicle.names, value)
        )
        head.append(f" {strength.total} = {said or '0'}")
    outcome = Text()
    if summary.HasField("winner"):
        outcome.append(f"{words.house(summary.winner)} wins", style=HOUSE_STYLES[summary.winner])
    else:
        outcome.append("A tie: nobody conquers", style="bold")
    if summary.HasField("traitor"):
        now = view.seats[summary.traitor].house
        outcome.append(
            f" · {chronicle.name(summary.traitor)} betrayed (now backs {words.house(now)})"
        )
    outcome.append(f" · points: {_points(chronicle)}")
    if summary.HasField("flipped"):
        flipped = summary.flipped
        outcome.append(
            f" · {words.place(view, flipped)} flipped to {words.house(view.ring[flipped].house)}"
        )
    return [head, outcome]


def render_events(scene: Scene, width: int, lines: int) -> RenderableType:
    """The last conflict (when there was one) and the newest happenings, in `lines` lines: the
    newest at the bottom, the oldest left out first."""
    if lines <= 0:
        return Text("")
    rule = Text("Latest", style="bold dim")
    view = scene.view
    # This round's conflict comes first, and stays when little room is left; an older one
    # is told among the happenings.
    fresh = view.HasField("last_conflict") and view.last_conflict.round == view.round
    first = conflict_lines(scene) if fresh else []
    for line in first:
        line.no_wrap = lines < 6
        line.overflow = "ellipsis"
    used = (1 if lines > 2 else 0) + sum(height_of(line, width) for line in first)
    while first and used > lines:
        used -= height_of(first.pop(), width)
    rows = [Text(said, style="dim") for said in scene.chronicle.recent]
    fitted: list[Text] = []
    for row in reversed(rows):
        row_lines = height_of(row, width)
        if used + row_lines > lines:
            if used < lines:  # room for the start of one more: cut it to one line
                cut = row.copy()
                cut.no_wrap = True
                cut.overflow = "ellipsis"
                fitted.append(cut)
            break
        fitted.append(row)
        used += row_lines
    fitted.reverse()
    return Group(*([rule] if lines > 2 else []), *first, *fitted)


# --- the hand and the prompt ------------------------------------------------------------------


def hand_line(view: view_pb2.PlayerView) -> Text:
    """The caller's secrets: hand, allegiance, action card, the cards offered in the draft."""
    hand = sorted(view.hand.cards)
    text = Text()
    text.append("Your hand: ", style="bold")
    text.append(" ".join(str(card) for card in hand) or "no cards")
    if hand:
        text.append(f" (sum {sum(hand)})", style="dim")
    text.append(" · you back ")
    text.append_text(house_text(view.seats[view.seat].house))
    if view.HasField("pick"):
        text.append(f" · your action card: {words.ACTIONS.get(view.pick, '?')}")
    if view.HasField("offered") and view.offered.cards:
        offered = ", ".join(words.ACTIONS.get(card, "?") for card in view.offered.cards)
        text.append(f" · offered: {offered}")
    return text


def stake_lines(scene: Scene) -> list[Text]:
    """What the marked conflict is worth (draft and supply), and during the supply each house's
    strength so far and who is still to play."""
    view, names = scene.view, scene.chronicle.names
    found = stakes.conflict_stakes(view, scene.ruleset)
    if not found:
        return []
    lines: list[Text] = []
    if view.phase == events_pb2.PHASE_SUPPLY:
        totals = stakes.running_totals(view, scene.ruleset)
        line = Text("So far: ", style="bold")
        line.append(stakes.totals_text(view, totals, names))
        left = stakes.still_to_play(view, names)
        line.append(f" · to play: {left}" if left else " · everyone has played")
        lines.append(line)
    stake = Text("Stakes: ", style="bold")
    stake.append(" · ".join(stakes.stake_text(view, each, names) for each in found))
    mine = stakes.worth_to_you(view, found)
    if mine:
        stake.append(f" · {mine}", style="bold")
    stake.append(" · the traitor's switch is unknown until the reveal", style="dim")
    lines.append(stake)
    return lines


def menu_label(command: commands_pb2.Command, view: view_pb2.PlayerView, width: int) -> str:
    """One numbered option as the menu shows it at `width`."""
    return words.option_label(command, view, short=width < ROOMY_WIDTH)


def _menu_entries(view: view_pb2.PlayerView, width: int) -> list[str]:
    return [
        f"{number:>2} {menu_label(command, view, width)}"
        for number, command in enumerate(view.legal, start=1)
    ]


def _menu_columns(entries: Sequence[str], width: int) -> int:
    widest = max(len(entry) for entry in entries)
    return max(1, min(len(entries), (width + MENU_GAP) // (widest + MENU_GAP)))


def menu_grid(view: view_pb2.PlayerView, width: int, rows: int) -> tuple[RenderableType, int]:
    """The caller's legal commands as numbered options in as many columns as fit `width`, in at
    most `rows` rows (at least one); the grid and how many options it had to leave out (then
    its last row says how to ask for them in words)."""
    entries = _menu_entries(view, width)
    if not entries:
        return Text(""), 0
    columns = _menu_columns(entries, width)
    rows = max(1, rows)
    needed = -(-len(entries) // columns)
    hidden = 0
    if needed > rows:
        needed = max(1, rows - 1)
        hidden = len(entries) - needed * columns
        entries = entries[: needed * columns]
    grid = Table.grid(padding=(0, MENU_GAP))
    for _ in range(columns):
        grid.add_column(no_wrap=True, overflow="ellipsis")
    for row in range(needed):
        grid.add_row(
            *(
                entries[row + needed * col] if row + needed * col < len(entries) else ""
                for col in range(columns)
            )
        )
    if hidden:
        more = Text(f"   +{hidden} more: {MENU_HIDDEN}", no_wrap=True, overflow="ellipsis")
        return Group(grid, more), hidden
    return grid, hidden


def prompt_line(prompt: Prompt) -> Text:
    """The last line of the screen: the question and what is typed so far, or the idle words."""
    if prompt.asking:
        line = Text(prompt.label, style="bold green")
        line.append(prompt.typed)
    else:
        line = Text(prompt.idle, style="dim")
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


# --- the frame -------------------------------------------------------------------------------


def render_frame(scene: Scene, width: int, height: int) -> Layout:
    """The whole screen for a terminal of `width` x `height`: exactly `height` lines."""
    view = scene.view
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return _too_small(scene, width, height)
    roomy = width >= ROOMY_WIDTH and height >= ROOMY_HEIGHT
    own = view.HasField("seat")
    prompt = scene.prompt
    # The bottom region: hand, stakes, notes, menu, prompt (the menu takes what is left).
    above_menu: list[RenderableType] = []
    if own:
        above_menu.append(hand_line(view))
    above_menu.extend(stake_lines(scene))
    notes = list(prompt.notes)
    fixed_bottom = sum(height_of(part, width) for part in above_menu + notes) + 1
    board_h = 2 * (CELL_LINES + 2) if roomy else 2 * CELL_LINES
    players_h = len(view.seats)
    required = 1 + board_h + players_h + 1 + fixed_bottom  # + at least one line of events
    spare = height - required
    menu_rows = 0
    if prompt.menu and view.legal:
        _, columns_rows = _menu_size(view, width)
        menu_rows = max(1, min(columns_rows, spare))
        spare -= menu_rows
    extras = {"caption": False, "header": False, "details": False}
    for extra in ("caption", "header", "details"):
        if spare > 0:
            extras[extra] = True
            spare -= 1
    status_h = 2 if extras["details"] else 1
    board_h += 1 if extras["caption"] else 0
    players_h += 1 if extras["header"] else 0
    bottom_parts = list(above_menu)
    if menu_rows:
        grid, _ = menu_grid(view, width, menu_rows)
        bottom_parts.append(grid)
    bottom_parts.extend(notes)
    bottom_parts.append(prompt_line(prompt))
    bottom_h = fixed_bottom + menu_rows
    events_h = height - status_h - board_h - players_h - bottom_h
    if events_h < 1:  # notes or stakes that wrapped more than expected: the events keep one
        bottom_h += events_h - 1
        events_h = 1
    layout = Layout()
    layout.split_column(
        Layout(render_status(scene, extras["details"]), name="status", size=status_h),
        Layout(render_board(scene, roomy, extras["caption"]), name="board", size=board_h),
        Layout(render_players(scene, extras["header"]), name="players", size=players_h),
        Layout(render_events(scene, width, events_h), name="events", size=events_h),
        Layout(_bottom(bottom_parts, width, bottom_h), name="prompt", size=bottom_h),
    )
    return layout


def _menu_size(view: view_pb2.PlayerView, width: int) -> tuple[int, int]:
    """(columns, rows) the whole menu needs at `width`."""
    columns = _menu_columns(_menu_entries(view, width), width)
    return columns, -(-len(view.legal) // columns)


def _bottom(parts: Sequence[RenderableType], width: int, lines: int) -> RenderableType:
    """The bottom region, its last line the prompt: when the parts are taller than `lines`,
    the top ones give way (the prompt always stays)."""
    kept = list(parts)
    while len(kept) > 1 and sum(height_of(part, width) for part in kept) > lines:
        kept.pop(0)
    return Group(*kept)


def _too_small(scene: Scene, width: int, height: int) -> Layout:
    """A terminal smaller than 80x24: the status line and a request for more room."""
    layout = Layout()
    ask = Text(
        f"This terminal is {width}x{height}: make it at least {MIN_WIDTH}x{MIN_HEIGHT} "
        "to see the game (it redraws at once).",
        style="bold",
    )
    layout.split_column(
        Layout(render_status(scene, False), size=1),
        Layout(ask),
        Layout(prompt_line(scene.prompt), size=1),
    )
    return layout


def prompt_cursor(scene: Scene, width: int, height: int) -> tuple[int, int]:
    """Where the cursor stands in a frame (1-based row and column): after what is typed."""
    prompt = scene.prompt
    column = len(prompt.label) + len(prompt.typed) + 1 if prompt.asking else 1
    return height, min(column, width)


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
