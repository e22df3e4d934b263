"""The players, a line each in turn order (the start player first): who acts, the seat's mark,
name, house, VP, hand, the supply played this round, action card, buildings.

The table is made to fit the terminal's width whole: the short forms come first on a narrow
terminal, and only a name longer than the room left for it is shortened, so a VP, a total or a
column's header is never cut.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import cards_pb2, view_pb2

from . import stakes, words
from .chronicle import Chronicle
from .conflict import house_text

#: Marks beside a name (the web page's tags): the start player, the strategist.
START, STRATEGIST = "★", "⚑"
HEADERS = ("", "Seat", "Player", "House", "VP", "Hand", "Played", "Action", "Buildings")
#: The columns whose values are numbers (right-aligned).
NUMBERS = frozenset({"VP", "Hand"})


def _buildings(view: view_pb2.PlayerView, seat: int) -> str:
    mine = [
        landscape.building_side
        for landscape in view.ring
        if landscape.HasField("building_owner") and landscape.building_owner == seat
    ]
    estates = mine.count(cards_pb2.BUILDING_SIDE_ESTATE)
    posts = mine.count(cards_pb2.BUILDING_SIDE_TRADING_POST)
    return f"{estates}E {posts}T {view.seats[seat].unplaced_buildings} left"


def _action(view: view_pb2.PlayerView, seat_view: view_pb2.SeatView, roomy: bool) -> str:
    if seat_view.HasField("revealed_pick"):
        return words.ACTIONS.get(seat_view.revealed_pick, "?")
    if view.HasField("seat") and view.seat == seat_view.seat and view.HasField("pick"):
        card = words.ACTIONS.get(view.pick, "?")
        return f"{card} (secret)" if roomy else f"({card})"
    return "picked" if seat_view.has_picked else ""


def _tags(view: view_pb2.PlayerView, seat: int, roomy: bool) -> str:
    tags = []
    if seat == view.start_player:
        tags.append(f"{START} start" if roomy else START)
    if seat == view.strategist:
        tags.append(f"{STRATEGIST} strategist" if roomy else STRATEGIST)
    return " ".join(tags)


def _rows(view: view_pb2.PlayerView, chronicle: Chronicle, roomy: bool) -> list[list[str]]:
    """A row of strings per seat in turn order (the Player column: the name alone)."""
    rows = []
    for seat in stakes.turn_order(view):
        seat_view = view.seats[seat]
        name = chronicle.name(seat)
        if view.HasField("seat") and view.seat == seat:
            name += " (you)"
        played = "—"
        if seat_view.HasField("played"):
            values = list(seat_view.played.cards)
            played = f"{words.cards(values)} ={sum(values)}" if values else "none"
        rows.append(
            [
                "▶" if seat in view.turn.seats else "",
                words.mark(seat),
                name,
                words.house(seat_view.house),
                str(seat_view.vp),
                str(seat_view.hand_count),
                played,
                _action(view, seat_view, roomy),
                _buildings(view, seat),
            ]
        )
    return rows


def _name_room(rows: list[list[str]], width: int) -> int:
    """The columns the Player column may take for the table to be at most `width` wide."""
    player = HEADERS.index("Player")
    others = sum(
        max(len(HEADERS[column]), *(len(row[column]) for row in rows))
        for column in range(len(HEADERS))
        if column != player
    )
    return width - others - (len(HEADERS) - 1)


def _fit_names(rows: list[list[str]], tags: list[str], room: int) -> None:
    """Put each row's tags after its name, shortening the name (never the tags) where it would
    take more than `room` columns."""
    player = HEADERS.index("Player")
    for row, tag in zip(rows, tags, strict=True):
        name, suffix = row[player], f" {tag}" if tag else ""
        if len(name) + len(suffix) > room:
            name = name[: max(1, room - len(suffix) - 1)] + "…"
        row[player] = name + suffix


def render_players(
    view: view_pb2.PlayerView, chronicle: Chronicle, width: int, roomy: bool, header: bool
) -> Table:
    """Every seat in turn order, a line each, at most `width` wide: in the roomy forms when they
    fit whole, else in the short ones."""
    order = stakes.turn_order(view)
    player = HEADERS.index("Player")
    for in_words in (True, False) if roomy else (False,):
        rows = _rows(view, chronicle, in_words)
        tags = [_tags(view, seat, in_words) for seat in order]
        room = _name_room(rows, width)
        named = (f"{row[player]} {tag}".rstrip() for row, tag in zip(rows, tags, strict=True))
        if all(len(name) <= room for name in named):
            break
    _fit_names(rows, tags, room)
    table = Table(
        box=None,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        show_header=header,
        header_style="bold dim",
    )
    for title in HEADERS:
        table.add_column(title, no_wrap=True, justify="right" if title in NUMBERS else "left")
    for seat, row in zip(order, rows, strict=True):
        cells: list[Text | str] = list(row)
        cells[0] = Text(row[0], style="bold green")
        cells[3] = house_text(view.seats[seat].house)
        table.add_row(*cells)
    return table
