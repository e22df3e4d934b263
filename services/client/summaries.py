"""Beside the frame: the end of the game (final scores with the trading-post bonuses, the last
conflict in full, and how to replay and audit it), as Rich renderables computed from the view
and the chronicle alone (see render.py for the frame), made to fit the terminal it is left on.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from services.api.verrater.v1 import ruleset_pb2, view_pb2

from . import words
from .board import render_board
from .chronicle import Chronicle
from .conflict import CONFLICT_STYLE, conflict_lines
from .render import height_of


def render_conflict(view: view_pb2.PlayerView, chronicle: Chronicle) -> RenderableType | None:
    """The last conflict as a panel (the end screen and the tests use it)."""
    if not view.HasField("last_conflict"):
        return None
    lines = Text("\n").join(conflict_lines(view, chronicle))
    return Panel(lines, box=box.HEAVY, border_style=CONFLICT_STYLE)


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


def render_end(
    view: view_pb2.PlayerView,
    ruleset: ruleset_pb2.Ruleset,
    chronicle: Chronicle,
    server: str,
    size: tuple[int, int],
    *,
    run: str = "verrater",
) -> RenderableType:
    """What stays on a terminal of `size` (width, height) after the game: the header, the
    final scores, how to replay and audit this very game (`run`: how the player's shell runs
    the `verrater` command), and the last conflict and the board while they fit, so that the
    terminal scrolls none of it away (the shell's prompt takes the last line)."""
    width, height = size
    flag = f" --server {server}"
    commands = Group(
        Text(f"Seed commitment, as shown when the game started: {view.seed_commitment}"),
        Text("Replay this game, round by round:", style="bold"),
        Text(f"  {run} replay {view.game_id}{flag}"),
        Text("Audit it (hash chain, seed and shuffles, every move legal):", style="bold"),
        Text(f"  {run} audit {view.game_id}{flag}"),
        Text(
            "(on a server other than your own `verrater serve`, add --token with a player "
            "token, or set VERRATER_TOKEN)",
            style="dim",
        ),
    )
    parts: list[RenderableType] = [
        Text(words.status_line(view, chronicle.names), style="bold"),
        render_final(chronicle),
        commands,
    ]
    # The conflict before the board: each goes in (above the scores) while all still fits.
    board = render_board(view, ruleset, width, False, True)
    for extra in (render_conflict(view, chronicle), board):
        if extra is not None and sum(height_of(part, width) for part in [*parts, extra]) < height:
            parts.insert(1, extra)
    return Group(*parts)
