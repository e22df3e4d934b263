"""The ring of twelve landscapes as a racetrack of two rows, and the legend above it.

Each landscape is a cell of four lines (position and type, house and conflict value, the VP
scale, the building and its owner's mark). On a roomy terminal the cells are framed cards; on a
narrow one every line is made to fit its cell (a long type name is shortened, an owner is named
by the seat's mark "P2"), so nothing is cut.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import cards_pb2, events_pb2, ruleset_pb2, view_pb2

from . import stakes, words
from .conflict import CONFLICT_STYLE, house_text

#: The ring drawn as a racetrack: top row left to right, bottom row right to left, so the
#: cells that touch are the landscapes that are adjacent (0 above 11, 5 above 6).
RING_ROWS = ((0, 1, 2, 3, 4, 5), (11, 10, 9, 8, 7, 6))
#: Lines of a landscape cell (name, house and cp, vp scale, building).
CELL_LINES = 4
#: Type names shortened for a cell too narrow for them.
SHORT_LANDSCAPES: dict[int, str] = {cards_pb2.LANDSCAPE_TYPE_WASTELAND: "waste"}
#: The legend, from the fullest to the shortest: the board shows the first that fits.
LEGENDS = (
    "Landscapes · cp conflict value · {scale}: VP each winner gains with 1/2/3/4 winners · "
    "* provisional",
    "cp conflict value · {scale}: VP each winner gains with 1/2/3/4 winners · * provisional",
    "cp conflict value · {scale}: VP per winner with 1/2/3/4 winners · * provisional",
)


def _marked(view: view_pb2.PlayerView) -> tuple[int, ...]:
    if view.HasField("conflict") and view.phase != events_pb2.PHASE_GAME_OVER:
        return (view.conflict.first, view.conflict.second)
    return ()


def cell_width(width: int, framed: bool) -> int:
    """The columns a landscape's lines may use on a board `width` wide."""
    return (width - 2 * 6 if framed else width - 5) // 6


def _cell(
    view: view_pb2.PlayerView,
    ruleset: ruleset_pb2.Ruleset,
    position: int,
    framed: bool,
    room: int,
) -> Text:
    """One landscape in `room` columns: position and type, house and conflict value, VP
    scale, building and its owner's mark."""
    landscape = view.ring[position]
    in_conflict = position in _marked(view) and not framed
    body = Text(no_wrap=True, overflow="crop")
    label = f"{'»' if in_conflict else ''}#{position} {words.LANDSCAPES.get(landscape.type, '?')}"
    if len(label) > room:
        short = SHORT_LANDSCAPES.get(landscape.type, words.LANDSCAPES.get(landscape.type, "?"))
        label = f"{'»' if in_conflict else ''}#{position} {short}"
    body.append(label, style=CONFLICT_STYLE if in_conflict else "bold")
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
        owner = words.mark(landscape.building_owner)
        if len(f"{side} {owner}") > room:
            side = side.split()[-1]  # "post"
        body.append(f"{side} ")
        body.append(owner, style="italic")
    else:
        body.append("no building", style="dim")
    return body


def legend(view: view_pb2.PlayerView, width: int, roomy: bool) -> Text:
    """The line above the board: what the numbers mean, and the conflict when there is room."""
    scale = "vp" if roomy else "a/b/c/d"
    fitting = [line.format(scale=scale) for line in LEGENDS]
    said = next((line for line in fitting if len(line) <= width), fitting[-1])
    text = Text(said)
    text.stylize("bold", 0, len("Landscapes") if said.startswith("Landscapes") else 0)
    marked = _marked(view)
    if marked:
        first, second = marked
        conflict = f" · conflict: {words.place(view, first)} vs {words.place(view, second)}"
        if len(said) + len(conflict) <= width:
            text.append(conflict, style=CONFLICT_STYLE)
    return text


def render_board(
    view: view_pb2.PlayerView,
    ruleset: ruleset_pb2.Ruleset,
    width: int,
    roomy: bool,
    caption: bool,
) -> RenderableType:
    """The 12 landscapes as a racetrack of two rows (adjacent cells are adjacent landscapes),
    `width` columns wide."""
    marked = _marked(view)
    room = cell_width(width, roomy)
    grid = Table.grid(expand=True, padding=(0, 0 if roomy else 1, 0, 0))
    for _ in range(6):
        grid.add_column(ratio=1, no_wrap=True)
    for row in RING_ROWS:
        cells: list[RenderableType] = []
        for position in row:
            if position >= len(view.ring):
                cells.append(Text(""))
                continue
            body = _cell(view, ruleset, position, roomy, room)
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
    return Group(legend(view, width, roomy), grid)


def board_lines(roomy: bool) -> int:
    """The board's height without its legend."""
    return 2 * (CELL_LINES + 2) if roomy else 2 * CELL_LINES
