"""The live loop of one game, for a player or a spectator.

Follow `Game.Watch` from the first event (the chronicle needs them all; the screen is drawn
only from the version the session started at), redraw where each batch of events ends, pause
after a conflict so nobody misses it, and ask the player whenever the view lists commands for
them. Nothing polls: between decisions the loop sleeps in the Watch stream.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

import grpc
from rich.console import Console
from rich.text import Text

from services.api.verrater.v1 import (
    ai_pb2,
    commands_pb2,
    events_pb2,
    game_pb2,
    ruleset_pb2,
    view_pb2,
)

from . import words
from .chronicle import Chronicle, timed_out_seat
from .connection import Connection, ServerRefused
from .render import render_options, render_screen

PROMPT = "Your choice (number, words, or ? for a hint): "
PAUSE_PROMPT = "Press Enter to continue "
#: Refusals that mean "this command breaks the rules or makes no sense": ask again.
_ASK_AGAIN = frozenset({grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT})


@dataclass(frozen=True, slots=True)
class Accepted:
    """The server applied the command."""


@dataclass(frozen=True, slots=True)
class Refused:
    """The server refused the command; the decision still stands."""

    reason: str


@dataclass(frozen=True, slots=True)
class MovedOn:
    """The game moved on before the command arrived (e.g. the turn timer ran out)."""

    reason: str


Outcome = Accepted | Refused | MovedOn


class GameSession:
    """One game on screen: as the seat the connection's token is bound to, or as a spectator."""

    def __init__(
        self,
        conn: Connection,
        console: Console,
        game_id: str,
        *,
        pause_after_conflict: bool,
        hint_level: events_pb2.BotLevel.ValueType = events_pb2.BOT_LEVEL_NORMAL,
        ask: Callable[[str], str] | None = None,
    ) -> None:
        self.conn = conn
        self.console = console
        self.game_id = game_id
        self.pause_after_conflict = pause_after_conflict
        self.hint_level = hint_level
        self.ask = ask or console.input
        self.chronicle = Chronicle()
        self.ruleset = ruleset_pb2.Ruleset()
        self.seat: int | None = None
        self._notices: list[str] = []
        # The newest version this session knows of from a command's answer or a fresh view:
        # views older than it, still queued in the stream, are drawn no more and asked on never.
        self._known_version = 0

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> view_pb2.PlayerView:
        """Follow the game to its end; returns the final view."""
        conn = self.conn
        now = conn.call(conn.game.GetView, game_pb2.GetViewRequest(game_id=self.game_id)).view
        self.seat = now.seat if now.HasField("seat") else None
        self.ruleset = conn.call(
            conn.game.GetRuleset, game_pb2.GetRulesetRequest(game_id=self.game_id)
        ).ruleset
        self._known_version = now.version
        conflict_in_batch = False
        for update in conn.watch(self.game_id, 0):
            self.chronicle.apply(update.event)
            live = update.version > now.version
            if update.event.HasField("conflict_resolved"):
                conflict_in_batch = live
            if live and self.seat is not None and timed_out_seat(update.event) == self.seat:
                self._notices.append("Your turn timer ran out: a bot decided for you.")
            if not update.HasField("view") or update.version < self._known_version:
                continue
            view = update.view
            self.show(view)
            if view.phase == events_pb2.PHASE_GAME_OVER:
                return view
            if conflict_in_batch and self.pause_after_conflict:
                self.ask(PAUSE_PROMPT)
            conflict_in_batch = False
            if view.legal:
                self.decide(view)
        raise AssertionError("the Watch stream never ends by itself")

    def show(self, view: view_pb2.PlayerView) -> None:
        if self.console.is_terminal:
            self.console.clear()
        self.console.print(render_screen(view, self.ruleset, self.chronicle))
        for notice in self._notices:
            self.console.print(notice, style="bold yellow")
        self._notices.clear()

    def farewell(self) -> str:
        """What to say when the player leaves mid-game (Ctrl-C)."""
        if self.seat is None:
            return "Stopped watching."
        if self.chronicle.turn_seconds:
            return (
                "You left the game. When your turn comes, a bot plays for you after the "
                f"{self.chronicle.turn_seconds} s turn timer."
            )
        return "You left the game. Your seat waits for you (this table has no turn timer)."

    # --- deciding --------------------------------------------------------------------------

    def decide(self, view: view_pb2.PlayerView) -> None:
        """Ask until the player gives a command the server takes (or the game moves on)."""
        self.console.print(render_options(view))
        while True:
            reading = words.read_choice(self.ask(PROMPT), view)
            if isinstance(reading, words.WantsHint):
                self.hint(view)
                continue
            if isinstance(reading, words.Unclear):
                self.console.print(Text(f"✗ {reading.reason}", style="red"))
                continue
            outcome = self.submit(view, reading.command)
            if isinstance(outcome, Accepted):
                return
            if isinstance(outcome, MovedOn):
                self._notices.append(outcome.reason)
                return
            self.console.print(Text(f"✗ Not allowed: {outcome.reason}", style="red"))

    def submit(self, view: view_pb2.PlayerView, command: commands_pb2.Command) -> Outcome:
        """Send the command for the version it was chosen at; a retry keeps its command id."""
        conn = self.conn
        version = view.version
        for _ in range(3):
            request = game_pb2.SubmitCommandRequest(
                game_id=self.game_id,
                expected_version=version,
                command_id=uuid.uuid4().hex,
                command=command,
            )
            try:
                answer = conn.call(conn.game.SubmitCommand, request)
                self._known_version = max(self._known_version, answer.version)
                return Accepted()
            except ServerRefused as refusal:
                if refusal.code in _ASK_AGAIN:
                    return Refused(refusal.reason)
                if refusal.code != grpc.StatusCode.ABORTED:
                    raise
            # Stale: someone moved first. If the same choice still stands, send it again.
            fresh = conn.call(conn.game.GetView, game_pb2.GetViewRequest(game_id=self.game_id)).view
            self._known_version = max(self._known_version, fresh.version)
            if fresh.turn.decision != view.turn.decision or (
                words.option_index(command, fresh.legal) < 0
            ):
                return MovedOn(
                    "The game moved on before your move arrived (a turn timer may have run "
                    "out); here is where it stands now."
                )
            version = fresh.version
        return MovedOn("The game kept moving while your move was on its way; look again.")

    def hint(self, view: view_pb2.PlayerView) -> None:
        """`?`: the AI's suggestion for this decision, with its reason."""
        conn = self.conn
        try:
            suggestion = conn.call(
                conn.ai.SuggestMove,
                ai_pb2.SuggestMoveRequest(game_id=self.game_id, level=self.hint_level),
                timeout=30,
            )
        except ServerRefused as refusal:
            self.console.print(Text(f"No suggestion: {refusal.reason}", style="yellow"))
            return
        index = words.option_index(suggestion.command, view.legal)
        number = f"option {index + 1}: " if index >= 0 else ""
        said = words.describe(suggestion.command, view)
        line = Text("Suggestion: ", style="bold cyan")
        line.append(f"{number}{said} ({suggestion.reason})")
        if suggestion.version != view.version:
            line.append(" [for an earlier moment of the game]", style="dim")
        self.console.print(line)
