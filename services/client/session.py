"""The live loop of one game, for a player or a spectator.

Two threads. A reader follows `Game.Watch` from the first event (the chronicle needs them all;
the screen shows the game from the version the session started at) and hands every update to
the main thread through a queue. The main thread owns the screen and the keyboard: it draws a
frame whenever the game, the keys or the clock change, and asks the player whenever the newest
view lists commands for them.

Keys typed while nothing is asked (a bot deciding, the answer to a move on its way) are read and
thrown away at once, and the screen says so: a `1` typed while others decide never becomes the
next decision. The conflict key (Tab) shows the last conflict in full at any time, and the
board again. Nothing polls: between events and keys the main thread sleeps in `select`, woken
by a key, by the reader, by a resize, or by the next second of a running clock.
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections import deque
from dataclasses import dataclass

import grpc
from rich.text import Text

from services.api.verrater.v1 import (
    ai_pb2,
    chat_pb2,
    commands_pb2,
    events_pb2,
    game_pb2,
    ruleset_pb2,
    view_pb2,
)

from . import words
from .chronicle import Chronicle, timed_out_seat
from .clock import ServerClock, countdown
from .conflict import CONFLICT_KEY
from .connection import Connection, ServerRefused
from .render import Prompt, Scene, prompt_cursor, render_frame
from .terminal import Terminal

CHOICE_PROMPT = "Your choice (number, words, or ? for a hint): "
SUPPLY_PROMPT = "Your supply (card values like 6 5, none, or ? for a hint): "
PAUSE_PROMPT = "Press Enter to continue "
CHAT_PROMPT = "Chat: "
#: What a chat line starts with.
SAY = "/say "
#: Chat messages kept for the screen (it shows the newest that fit).
CHAT_KEPT = 20
#: The clock turns red with this many seconds left.
URGENT_S = 20
#: Notes kept above the prompt.
NOTES = 3
#: Refusals that mean "this command breaks the rules or makes no sense": ask again.
_ASK_AGAIN = frozenset({grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT})
_BACKSPACE = frozenset({"\x7f", "\x08"})


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


@dataclass(frozen=True, slots=True)
class _Notice:
    """A message from the connection (reader thread) for the screen."""

    text: str


@dataclass(frozen=True, slots=True)
class _Failed:
    """The reader thread's stream failed for good."""

    error: BaseException


@dataclass(frozen=True, slots=True)
class _Said:
    """A chat message of the table (chat thread)."""

    message: chat_pb2.ChatMessage


def chat_line(message: chat_pb2.ChatMessage) -> Text:
    """A chat message as the screen shows it: who, then what (the stands marked)."""
    line = Text()
    if message.channel == chat_pb2.CHAT_CHANNEL_SPECTATORS:
        line.append("[stands] ", style="dim")
    line.append(f"{message.display_name}: ", style="bold cyan")
    line.append(message.text)
    return line


class GameSession:
    """One game on screen: as the seat the connection's token is bound to, or as a spectator."""

    def __init__(
        self,
        conn: Connection,
        terminal: Terminal,
        game_id: str,
        *,
        pause_after_conflict: bool,
        hint_level: events_pb2.BotLevel.ValueType = events_pb2.BOT_LEVEL_NORMAL,
        table_id: str = "",
    ) -> None:
        """`table_id`: the game's table, whose chat the screen shows and `/say` writes to
        ("": no chat)."""
        self.conn = conn
        self.table_id = table_id
        self._chat: deque[Text] = deque(maxlen=CHAT_KEPT)
        self.terminal = terminal
        self.game_id = game_id
        self.pause_after_conflict = pause_after_conflict
        self.hint_level = hint_level
        self.chronicle = Chronicle()
        self.ruleset = ruleset_pb2.Ruleset()
        self.clock = ServerClock()
        self.seat: int | None = None
        self.view = view_pb2.PlayerView()
        self._inbox: queue.Queue[list[game_pb2.GameUpdate] | _Notice | _Failed | _Said] = (
            queue.Queue()
        )
        self._main = threading.get_ident()
        # The newest version this session knows of from a command's answer or a fresh view:
        # views older than it, still queued in the stream, are drawn no more and asked on never.
        self._known_version = 0
        self._asking: view_pb2.PlayerView | None = None  # the view the question is about
        self._typed = ""
        self._ignored = ""  # typed while nothing was asked, since the last question
        self._news: list[Text] = []  # what happened (a timer ran out, the connection ...)
        self._answer_notes: list[Text] = []  # about the question asked: go with it
        self._suggested: int | None = None  # the option the hint for this question named
        self._conflict_shown = False
        self._paused = False
        self._conflict_in_batch = False
        self._sending = False
        self._move_in = False  # the server took a move this screen's view does not show yet

    # --- the loop ------------------------------------------------------------------------

    def open(self) -> view_pb2.PlayerView:
        """The game as it stands now, and its ruleset (the card table the board shows)."""
        conn = self.conn
        now = conn.call(conn.game.GetView, game_pb2.GetViewRequest(game_id=self.game_id)).view
        self.seat = now.seat if now.HasField("seat") else None
        self.ruleset = conn.call(
            conn.game.GetRuleset, game_pb2.GetRulesetRequest(game_id=self.game_id)
        ).ruleset
        self._known_version = now.version
        self.view = now
        return now

    def run(self) -> view_pb2.PlayerView:
        """Follow the game to its end; returns the final view."""
        conn = self.conn
        now = self.view if self.view.version else self.open()
        conn.set_notify(self._notify)
        reader = threading.Thread(target=self._read, name="watch", daemon=True)
        reader.start()
        if self.table_id:
            threading.Thread(target=self._read_chat, name="chat", daemon=True).start()
        self._catch_up(now.version)
        self._take_view(now)
        while True:
            self.draw()
            shown = self.view
            if shown.phase == events_pb2.PHASE_GAME_OVER and not self._paused:
                return shown
            keys = self.terminal.read_keys(self._tick())
            if self.terminal.resized:
                self.terminal.resized = False
            if keys:
                self._keys(keys)
            if not self._paused:
                self._drain()

    def _read(self) -> None:
        """The reader thread: the Watch stream's updates into the inbox, a batch at a time (as
        the stream sends them: the view rides on a batch's last event), so no frame shows half
        a batch."""
        try:
            for batch in self.conn.watch(self.game_id, 0):
                self._inbox.put(batch)
                self.terminal.wake()
        except BaseException as error:  # handed to the main thread, which shows it
            self._inbox.put(_Failed(error))
            self.terminal.wake()

    def _read_chat(self) -> None:
        """The chat thread: the table's messages into the inbox. Chat failing ends chat only,
        never the game: the screen says so."""
        try:
            for message in self.conn.chat_messages(self.table_id, CHAT_KEPT):
                self._inbox.put(_Said(message))
                self.terminal.wake()
        except BaseException as error:  # the game goes on without chat
            self._inbox.put(_Notice(f"Chat stopped: {error}"))
            self.terminal.wake()

    def _notify(self, message: str) -> None:
        """News of the connection, from whichever thread: shown above the prompt."""
        if threading.get_ident() == self._main:
            self._tell(Text(message, style="yellow"))
            self.draw()
        else:
            self._inbox.put(_Notice(message))
            self.terminal.wake()

    def _catch_up(self, version: int) -> None:
        """Fold the events up to `version` (the game so far) into the chronicle, unshown."""
        while True:
            item = self._inbox.get()
            if isinstance(item, _Failed):
                raise item.error
            if isinstance(item, _Notice):
                self._tell(Text(item.text, style="yellow"))
                continue
            if isinstance(item, _Said):
                self._chat.append(chat_line(item.message))
                continue
            for update in item:
                self.chronicle.apply(update.event)
            if item[-1].version >= version:
                return

    def _drain(self) -> None:
        """Take in whatever the reader has delivered, stopping at a conflict to pause."""
        while not self._paused:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Failed):
                raise item.error
            if isinstance(item, _Notice):
                self._tell(Text(item.text, style="yellow"))
                continue
            if isinstance(item, _Said):
                self._chat.append(chat_line(item.message))
                continue
            for update in item:
                self._update(update)

    def _update(self, update: game_pb2.GameUpdate) -> None:
        event = update.event
        if event.recorded_at_ms:
            self.clock.learn(event.recorded_at_ms)
        self.chronicle.apply(event)
        if self.seat is not None and timed_out_seat(event) == self.seat:
            self._tell(Text("Your turn timer ran out: a bot decided for you.", style="bold yellow"))
        if event.HasField("conflict_resolved"):
            self._conflict_in_batch = True
        if update.HasField("view"):
            # A batch ends here: pause on a conflict, once its outcome is on the screen.
            if update.version >= self._known_version:
                self._take_view(update.view)
            self._paused = self._conflict_in_batch and self.pause_after_conflict
            self._conflict_in_batch = False

    def _take_view(self, view: view_pb2.PlayerView) -> None:
        """A newer view: show it, and ask when it lists commands for the caller."""
        self.view = view
        self._known_version = max(self._known_version, view.version)
        self._move_in = False
        if view.legal:
            if self._asking is None or self._asking.version != view.version:
                self._new_question(view)
                if self._ignored:
                    self._note(
                        Text(
                            f"Ignored what you typed before your turn ({self._ignored!r}): "
                            "type your choice now.",
                            style="yellow",
                        )
                    )
                    self._ignored = ""
        elif self._asking is not None:
            self._new_question(None)

    def _new_question(self, view: view_pb2.PlayerView | None) -> None:
        """Ask about `view` (None: nothing): what was typed, said and suggested about the last
        question goes with it, and the board is shown again."""
        self._asking = view
        self._typed = ""
        self._answer_notes = []
        self._suggested = None
        self._conflict_shown = False

    def _note(self, note: Text) -> None:
        """A note about the question asked (a hint, a refusal, input that was unclear)."""
        self._answer_notes = [*self._answer_notes, note][-NOTES:]

    def _tell(self, news: Text) -> None:
        """A note about the game or the connection, kept until newer ones push it out."""
        self._news = [*self._news, news][-NOTES:]

    # --- the screen ------------------------------------------------------------------------

    def _clock(self) -> tuple[str, bool, float | None]:
        """The clock's words, whether it is urgent, and the seconds left (None: no clock)."""
        view = self.view
        if not view.turn.HasField("deadline") or not view.turn.seats:
            return "", False, None
        left = self.clock.left(view.turn.deadline)
        mine = self.seat is not None and self.seat in view.turn.seats
        if left <= 0:
            return ("time is up: a bot decides" if mine else "time is up"), mine, left
        return f"{countdown(left)} left", mine and left <= URGENT_S, left

    def _tick(self) -> float | None:
        """How long to wait for keys: until the clock shows the next second, else forever."""
        _, _, left = self._clock()
        if left is None or left <= 0:
            return None
        return left % 1 + 0.01

    def _prompt(self) -> Prompt:
        notes = tuple([*self._news, *self._answer_notes][-NOTES:])
        if self._paused:
            return Prompt(label=PAUSE_PROMPT, typed=self._typed, notes=notes)
        if self._chatting:
            return Prompt(label=CHAT_PROMPT, typed=self._typed, notes=notes)
        if self._asking is not None and not self._sending:
            supply = self._asking.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY
            label = SUPPLY_PROMPT if supply else CHOICE_PROMPT
            return Prompt(
                label=label,
                typed=self._typed,
                notes=notes,
                menu=not supply,
                suggested=self._suggested,
            )
        return Prompt(idle=self._idle(), notes=notes)

    def _idle(self) -> str:
        view = self.view
        if self._sending:
            return "Sending your move ..."
        if view.phase == events_pb2.PHASE_GAME_OVER:
            return "The game is over."
        if self._ignored:  # the status line says whose turn it is
            return f"Ignored {self._ignored!r}: it is not your turn."
        if self.seat is None:
            return "Watching as a spectator; Tab: the last conflict; Ctrl-C leaves."
        if self._move_in:
            return "Your move is in: waiting for the game to go on ..."
        return f"Waiting: {words.to_act(view, self.chronicle.names, short=True)}."

    def scene(self) -> Scene:
        clock, urgent, _ = self._clock()
        return Scene(
            self.view,
            self.ruleset,
            self.chronicle,
            prompt=self._prompt(),
            clock=clock,
            clock_urgent=urgent,
            conflict_shown=self._conflict_shown,
            chat=tuple(self._chat),
        )

    def draw(self) -> None:
        if not self.view.version:
            return
        scene = self.scene()
        width, height = self.terminal.size()
        frame = render_frame(scene, width, height)
        cursor = prompt_cursor(scene, width, height) if scene.prompt.asking else None
        self.terminal.draw(frame, cursor)

    def farewell(self, resumable: bool, server: str, run: str = "verrater") -> str:
        """What to say when the player leaves mid-game (Ctrl-C); `run`: how the player's shell
        runs the `verrater` command."""
        if self.seat is None:
            return "Stopped watching."
        back = (
            f"Your seat waits for you: run `{run} play --server {server}` again to resume "
            "this game."
            if resumable
            else "This client could not store your credential, so it cannot take you back "
            "to this game."
        )
        if self.chronicle.turn_seconds:
            return (
                f"You left the game. {back} Meanwhile, when your turn comes, a bot decides for "
                f"you after the {self.chronicle.turn_seconds} s turn timer."
            )
        return f"You left the game. {back} (This table has no turn timer: the others wait.)"

    # --- keys ------------------------------------------------------------------------------

    @property
    def _chatting(self) -> bool:
        """A chat line is being typed while nothing is asked (it starts with "/")."""
        return self._asking is None and not self._paused and self._typed.startswith("/")

    def _keys(self, keys: str) -> None:
        """Edit the answer with what was typed; Enter answers. Keys typed while nothing is
        asked are thrown away, and the screen says so, but a line starting with "/" (`/say
        TEXT`), which may be typed at any time."""
        for key in keys:
            if key == "\x04" and (not self._typed or self.terminal.closed_input):
                raise EOFError
            if key == CONFLICT_KEY:
                self._conflict_shown = not self._conflict_shown
                continue
            if self._asking is None and not self._paused and key == "/" and not self._typed:
                self._typed = key
                continue
            if self._asking is None and not self._paused and not self._chatting:
                if key.isprintable() or key == "\r":
                    self._ignored = (self._ignored + ("⏎" if key == "\r" else key))[-20:]
                continue
            if key == "\r":
                self._enter()
            elif key in _BACKSPACE:
                self._typed = self._typed[:-1]
            elif key == "\x15":  # Ctrl-U: start again
                self._typed = ""
            elif key.isprintable():
                self._typed = (self._typed + key)[: 300 if self._typed.startswith("/") else 80]

    def _enter(self) -> None:
        typed, self._typed = self._typed, ""
        if self._paused:
            self._paused = False
            return
        if typed.startswith("/"):
            self.say(typed)
            return
        view = self._asking
        if view is None:
            return
        self._answer_notes = []
        reading = words.read_choice(typed, view)
        if isinstance(reading, words.WantsHint):
            self.hint(view)
            return
        if isinstance(reading, words.Unclear):
            self._note(Text(f"✗ {reading.reason}", style="red"))
            return
        self._sending = True
        self.draw()
        try:
            outcome = self.submit(view, reading.command)
        finally:
            self._sending = False
        if isinstance(outcome, Accepted):
            self._new_question(None)
            self._move_in = True
        elif isinstance(outcome, MovedOn):
            self._new_question(None)
            self._tell(Text(outcome.reason, style="yellow"))
        else:
            self._note(Text(f"✗ Not allowed: {outcome.reason}", style="red"))

    # --- chat ------------------------------------------------------------------------------

    def say(self, line: str) -> None:
        """`/say TEXT`: the text to the table's chat (it comes back through the chat stream,
        as everybody sees it); a refusal (too fast, too long) is a note."""
        word = (line.split(maxsplit=1) or [line])[0]
        if word != SAY.rstrip() or not self.table_id:
            why = "this game has no table chat" if not self.table_id else "type /say TEXT"
            self._note(Text(f"✗ {word}: {why}", style="red"))
            return
        conn = self.conn
        try:
            conn.call(  # retried with its request id: stored once
                conn.chat.SendChatMessage,
                chat_pb2.SendChatMessageRequest(
                    table_id=self.table_id,
                    text=line[len(SAY.rstrip()) :],
                    request_id=uuid.uuid4().hex,
                ),
            )
        except ServerRefused as refusal:
            self._note(Text(f"✗ Chat: {refusal.message}", style="red"))

    # --- deciding --------------------------------------------------------------------------

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
                version_only=True,
            )
            try:
                answer = conn.call(conn.game.SubmitCommand, request)
                self._known_version = max(self._known_version, answer.version)
                return Accepted()
            except ServerRefused as refusal:
                if refusal.code in _ASK_AGAIN:
                    return Refused(refusal.message)
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
        self._note(Text("Asking for a suggestion ...", style="dim"))
        self.draw()
        self._answer_notes = self._answer_notes[:-1]
        try:
            suggestion = conn.call(
                conn.ai.SuggestMove,
                ai_pb2.SuggestMoveRequest(game_id=self.game_id, level=self.hint_level),
                timeout=30,
            )
        except ServerRefused as refusal:
            self._note(Text(f"No suggestion: {refusal.message}", style="yellow"))
            return
        index = words.option_index(suggestion.command, view.legal)
        if suggestion.version == view.version and index >= 0:
            self._suggested = index  # the menu shows it, where it would leave it out
        if view.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY:
            number = f"type {words.cards(list(suggestion.command.play_supply.cards))}: "
        else:
            number = f"option {index + 1}: " if index >= 0 else ""
        said = words.describe(suggestion.command, view)
        line = Text("Suggestion: ", style="bold cyan")
        line.append(f"{number}{said} ({suggestion.reason})")
        if suggestion.version != view.version:
            line.append(" [for an earlier moment of the game]", style="dim")
        self._note(line)
