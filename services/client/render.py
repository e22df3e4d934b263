"""The screen as Rich renderables, computed from (view, ruleset, chronicle, prompt) and nothing
else: pure functions, no I/O, no server. `to_text` prints a renderable as plain text, which is
how the tests read the screen.

`render_frame` lays the game out in fixed regions for a terminal of a given size, top to
bottom: the status line, the board (the ring of twelve landscapes, board.py), the players
(players.py), the latest events, the table chat's newest messages (from lines the events can
spare; when they spare none, the newest message takes the board legend's line), and the
caller's hand with the prompt on the last line. The
frame is exactly as tall as the terminal, whatever happens. What must be seen always has its
line: the status line (round, phase, who acts, the clock), every player's VP, your hand, the
question. The rest gets lines in order of need (the players' header, a menu, the last conflict
in a line, notes, the supply's totals and stakes, the legend, ...) while there are lines left,
and what gets a line is shown whole, never cut: a text too long for the width has shorter
forms. The conflict key (Tab) puts the last conflict in full where the board is. From 80x24
up; a larger terminal gets roomier regions.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Console, Group, RenderableType
from rich.layout import Layout
from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import commands_pb2, events_pb2, ruleset_pb2, view_pb2

from . import stakes, words
from .board import board_lines, render_board
from .chronicle import Chronicle
from .conflict import (
    CONFLICT_KEY_NAME,
    CONFLICT_STYLE,
    conflict_brief,
    conflict_lines,
    house_text,
)
from .players import START, STRATEGIST, render_players

#: The smallest terminal the layout is made for.
MIN_WIDTH, MIN_HEIGHT = 80, 24
#: From this size on, the board's landscapes are framed cards.
ROOMY_WIDTH, ROOMY_HEIGHT = 100, 36
#: Spaces between the columns of a menu.
MENU_GAP = 2
#: What a menu that cannot show every option says.
MENU_HIDDEN = "type its number, or words such as 'estate #7', 'flip #3', 'pass'"
#: The events region has its "Latest" title from this many lines on.
TITLED_EVENTS = 5
#: Chat messages shown at most (the newest), at 80x24 and on a roomy terminal. They take lines
#: only the latest events can spare: the events keep EVENTS_BEFORE_CHAT lines, or this round's
#: conflict in full and a line more, first; when they spare none, the newest message takes the
#: board legend's line.
CHAT_LINES, ROOMY_CHAT_LINES = 2, 4
EVENTS_BEFORE_CHAT = 3


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


def first_fitting(candidates: Sequence[str], width: int) -> str:
    """The first of `candidates` (fullest first) that is at most `width` long, else the last."""
    return next((text for text in candidates if len(text) <= width), candidates[-1])


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
    suggested: int | None = None  # the option a hint named (0-based): the menu shows it

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
    conflict_shown: bool = False  # the last conflict in full, where the board is
    chat: tuple[Text, ...] = ()  # the table chat's latest messages, oldest first


# --- the status line -------------------------------------------------------------------------


def render_status(scene: Scene, width: int, details: bool) -> RenderableType:
    """Round, phase, who must act and what (in as few words as the width needs), and the clock
    on the right; with `details` a second line: who you are, the start player and strategist,
    the piles, the game, the seed commitment (what fits of them, whole)."""
    view, chronicle = scene.view, scene.chronicle
    clock = Text(f" {scene.clock}" if scene.clock else "")
    if scene.clock_urgent:
        clock.stylize("bold red")
    said = first_fitting(words.status_lines(view, chronicle.names), width - len(clock))
    grid = Table.grid(expand=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(no_wrap=True, justify="right")
    grid.add_row(Text(said, style="bold"), clock)
    if not details:
        return grid
    parts = [
        "Spectator"
        if not view.HasField("seat")
        else f"You are {words.mark(view.seat)}, {chronicle.name(view.seat)}",
        f"{START} start player {words.mark(view.start_player)}",
        f"{STRATEGIST} strategist {words.mark(view.strategist)}",
        f"draw pile {view.deck_count}",
        f"discard pile {len(view.discard)}",
        f"game {view.game_id}",
        f"seed commitment {view.seed_commitment}",
    ]
    line = parts[0]
    for part in parts[1:]:
        if len(line) + 3 + len(part) <= width:
            line += f" · {part}"
    return Group(grid, Text(line, style="dim", no_wrap=True))


# --- the latest events -----------------------------------------------------------------------


def render_events(scene: Scene, width: int, lines: int) -> RenderableType:
    """The last conflict (in full when it is this round's and there is room, else in a line
    that names the key showing it in full) and the newest happenings, in `lines` lines: the
    newest at the bottom, only whole ones."""
    if lines <= 0:
        return Text("")
    view = scene.view
    rows: list[Text] = []
    if lines >= TITLED_EVENTS:
        rows.append(Text("Latest", style="bold dim"))
    if view.HasField("last_conflict"):
        full = conflict_lines(view, scene.chronicle)
        fresh = view.last_conflict.round == view.round
        room = lines - len(rows)
        if fresh and sum(height_of(line, width) for line in full) <= room - 1:
            rows.extend(full)
        else:
            brief = conflict_brief(view)
            rows.append(
                Text(first_fitting([f"{brief} · {CONFLICT_KEY_NAME}: in full", brief], width))
            )
            rows[-1].stylize(CONFLICT_STYLE)
    used = sum(height_of(row, width) for row in rows)
    happened: list[Text] = []
    for said in reversed(scene.chronicle.recent):
        row = Text(said, style="dim")
        row_lines = height_of(row, width)
        if used + row_lines > lines:
            break
        happened.append(row)
        used += row_lines
    return Group(*rows, *reversed(happened))


def _events_before_chat(scene: Scene, width: int) -> int:
    """The lines the latest events keep before chat gets any: a few, or this round's conflict
    in full and the newest happening."""
    view = scene.view
    if view.HasField("last_conflict") and view.last_conflict.round == view.round:
        full = sum(height_of(line, width) for line in conflict_lines(view, scene.chronicle))
        return max(EVENTS_BEFORE_CHAT, full + 2)
    return EVENTS_BEFORE_CHAT


def render_chat(scene: Scene, lines: int) -> RenderableType:
    """The newest `lines` chat messages, one line each (a long one ends in an ellipsis)."""
    shown = [line.copy() for line in scene.chat[-lines:]] if lines > 0 else []
    for line in shown:
        line.no_wrap = True
        line.overflow = "ellipsis"
    return Group(*shown)


def render_conflict_view(scene: Scene) -> RenderableType:
    """The last conflict in full, where the board is (the conflict key's view)."""
    title = Text(f"The last conflict ({CONFLICT_KEY_NAME}: back to the board)", style="bold dim")
    if not scene.view.HasField("last_conflict"):
        return Group(title, Text("No conflict has been fought yet."))
    return Group(title, *conflict_lines(scene.view, scene.chronicle))


# --- the hand and the prompt ------------------------------------------------------------------


def hand_line(view: view_pb2.PlayerView, offered: bool = True) -> Text:
    """The caller's secrets: hand, allegiance, action card, and (with `offered`) the cards
    offered in the draft."""
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
    if offered and view.HasField("offered") and view.offered.cards:
        cards = ", ".join(words.ACTIONS.get(card, "?") for card in view.offered.cards)
        text.append(f" · offered: {cards}")
    return text


def totals_line(scene: Scene) -> Text | None:
    """During the supply: each house's strength so far, and who is still to play."""
    view, names = scene.view, scene.chronicle.names
    if view.phase != events_pb2.PHASE_SUPPLY or not stakes.conflict_stakes(view, scene.ruleset):
        return None
    totals = stakes.running_totals(view, scene.ruleset)
    line = Text("So far: ", style="bold")
    line.append(stakes.totals_text(view, totals, names))
    left = stakes.still_to_play(view, names)
    line.append(f" · to play: {left}" if left else " · everyone has played")
    return line


def stakes_line(scene: Scene) -> Text | None:
    """What the marked conflict is worth (draft and supply)."""
    view, names = scene.view, scene.chronicle.names
    found = stakes.conflict_stakes(view, scene.ruleset)
    if not found:
        return None
    stake = Text("Stakes: ", style="bold")
    stake.append(" · ".join(stakes.stake_text(view, each, names) for each in found))
    mine = stakes.worth_to_you(view, found)
    if mine:
        stake.append(f" · {mine}", style="bold")
    stake.append(" · the traitor's switch is unknown until the reveal", style="dim")
    return stake


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


def menu_rows(view: view_pb2.PlayerView, width: int) -> int:
    """The rows the whole menu needs at `width`."""
    columns = _menu_columns(_menu_entries(view, width), width)
    return -(-len(view.legal) // columns)


def menu_grid(
    view: view_pb2.PlayerView, width: int, rows: int, suggested: int | None = None
) -> tuple[RenderableType, int]:
    """The caller's legal commands as numbered options in as many columns as fit `width`, in at
    most `rows` rows (at least one); the grid and how many options it had to leave out (then
    its last row says how to ask for them, and names the `suggested` option if it is one)."""
    entries = _menu_entries(view, width)
    if not entries:
        return Text(""), 0
    columns = _menu_columns(entries, width)
    rows = max(1, rows)
    needed = -(-len(entries) // columns)
    hidden = 0
    shown = entries
    if needed > rows:
        needed = max(1, rows - 1)
        hidden = len(entries) - needed * columns
        shown = entries[: needed * columns]
    grid = Table.grid(padding=(0, MENU_GAP, 0, 0))
    for _ in range(columns):
        grid.add_column(no_wrap=True)
    for row in range(needed):
        grid.add_row(
            *(
                shown[row + needed * col] if row + needed * col < len(shown) else ""
                for col in range(columns)
            )
        )
    if not hidden:
        return grid, 0
    first = len(shown) + 1
    more = f"   +{hidden} more ({first}-{len(entries)})"
    if suggested is not None and suggested >= len(shown):
        more += f", the suggestion among them: {entries[suggested].strip()}"
    more = first_fitting(
        [f"{more}: {MENU_HIDDEN}", f"{more}: type its number or words", more], width
    )
    return Group(grid, Text(more, no_wrap=True)), hidden


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


@dataclass(slots=True)
class _Room:
    """The lines of a frame not yet given to a region."""

    spare: int

    def take(self, lines: int) -> bool:
        """Take `lines` if they are left."""
        if lines > self.spare:
            return False
        self.spare -= lines
        return True


def render_frame(scene: Scene, width: int, height: int) -> Layout:
    """The whole screen for a terminal of `width` x `height`: exactly `height` lines."""
    view = scene.view
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return _too_small(scene, width, height)
    roomy = width >= ROOMY_WIDTH and height >= ROOMY_HEIGHT
    prompt = scene.prompt
    menu = prompt.menu and bool(view.legal)
    hand = [hand_line(view, offered=not menu)] if view.HasField("seat") else []
    conflict = render_conflict_view(scene) if scene.conflict_shown else None
    top_h = height_of(conflict, width) if conflict is not None else board_lines(roomy)
    hand_h = sum(height_of(part, width) for part in hand)
    room = _Room(height - 1 - top_h - len(view.seats) - hand_h - 1)  # - status - prompt
    header = room.take(1)
    rows = 1 if menu and room.take(1) else 0
    events_h = 1 if conflict is None and room.take(1) else 0
    notes = [note for note in reversed(prompt.notes) if room.take(height_of(note, width))]
    told = [
        part
        for part in (totals_line(scene), stakes_line(scene))
        if part is not None and room.take(height_of(part, width))
    ]
    if menu:
        more = max(0, min(menu_rows(view, width) - rows, room.spare))
        room.take(more)
        rows += more
    caption = conflict is None and room.take(1)
    details = room.take(1)
    # Chat, from what the events can spare; what is left goes to the events; in the
    # conflict's view, to the conflict (which, with lines short, keeps its first ones).
    chat_h = 0
    if conflict is None and scene.chat:
        spare = events_h + room.spare - _events_before_chat(scene, width)
        chat_h = max(0, min(len(scene.chat), ROOMY_CHAT_LINES if roomy else CHAT_LINES, spare))
        room.take(chat_h)
        if not chat_h and caption:
            # The events spare nothing (a long menu at 80x24): the newest message takes the
            # legend's line, which explains the board but tells nothing new.
            caption, chat_h = False, 1
    if conflict is None:
        events_h += max(0, room.spare)
    else:
        top_h += room.spare
    bottom: list[RenderableType] = [*hand, *told]
    if rows:
        bottom.append(menu_grid(view, width, rows, prompt.suggested)[0])
    bottom.extend(reversed(notes))
    bottom.append(prompt_line(prompt))
    status_h = 2 if details else 1
    layout = Layout()
    regions = [Layout(render_status(scene, width, details), name="status", size=status_h)]
    if conflict is not None:
        regions.append(Layout(conflict, name="conflict", size=top_h))
    else:
        board = render_board(view, scene.ruleset, width, roomy, caption)
        regions.append(Layout(board, name="board", size=top_h + int(caption)))
    players = render_players(view, scene.chronicle, width, roomy, header)
    regions.append(Layout(players, name="players", size=len(view.seats) + header))
    if conflict is None:
        regions.append(Layout(render_events(scene, width, events_h), name="events", size=events_h))
    if chat_h:
        regions.append(Layout(render_chat(scene, chat_h), name="chat", size=chat_h))
    bottom_h = height - sum(region.size or 0 for region in regions)
    regions.append(Layout(Group(*bottom), name="prompt", size=bottom_h))
    layout.split_column(*regions)
    return layout


def _too_small(scene: Scene, width: int, height: int) -> Layout:
    """A terminal smaller than 80x24: the status line and a request for more room."""
    layout = Layout()
    ask = Text(
        f"This terminal is {width}x{height}: make it at least {MIN_WIDTH}x{MIN_HEIGHT} "
        "to see the game (it redraws at once).",
        style="bold",
    )
    layout.split_column(
        Layout(render_status(scene, width, False), size=1),
        Layout(ask),
        Layout(prompt_line(scene.prompt), size=1),
    )
    return layout


def prompt_cursor(scene: Scene, width: int, height: int) -> tuple[int, int]:
    """Where the cursor stands in a frame (1-based row and column): after what is typed."""
    prompt = scene.prompt
    column = len(prompt.label) + len(prompt.typed) + 1 if prompt.asking else 1
    return height, min(column, width)
