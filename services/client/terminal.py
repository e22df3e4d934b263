"""The terminal the game is drawn on: full screen when both ends are a terminal, plain lines
when not (a pipe, a file, a test harness without a pseudo-terminal).

Full screen means the alternate screen buffer (the shell's scrollback is left alone and comes
back at the end), keys read one at a time without echo (cbreak mode: Ctrl-C still interrupts),
and every frame drawn whole: cursor home, exactly as many lines as the terminal is tall, then
the cursor put where the next key will show. The terminal's size is read for each frame, and a
resize (SIGWINCH) wakes the loop to draw at once.

Why Rich and not Textual: the client is a blocking loop around a gRPC stream and one question
at a time; a frame is a pure function of the game, rendered by Rich (already the client's one
dependency) into a fixed-size Layout. Textual would bring its own asyncio application loop,
widgets that own the keyboard, and diffed partial screen updates: more machinery than six fixed
regions need, and frames a test could no longer read off the pseudo-terminal as whole pictures.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import select
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any, TextIO

from rich.console import Console, RenderableType

#: Escape sequences a key can send (arrows, function keys): not text, dropped.
_ESCAPES = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?", re.S)
#: Height of a frame printed as plain lines (no terminal to fill).
PLAIN_HEIGHT = 40
ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN = "\x1b[?1049h", "\x1b[?1049l"
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
HOME = "\x1b[H"


class Terminal:
    """Frames out, keys in, and a way for other threads (and signals) to wake the reader."""

    def __init__(self, console: Console, stdin: TextIO | None = None) -> None:
        self.console = console
        self._stdin = stdin if stdin is not None else sys.stdin
        self._in_fd = self._fileno(self._stdin)
        self._out_fd = self._fileno(console.file)
        self.full_screen = (
            self._in_fd is not None
            and self._out_fd is not None
            and os.isatty(self._in_fd)
            and os.isatty(self._out_fd)
        )
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._saved: list[Any] | None = None
        self._previous_winch: Any = None
        self._lock = threading.Lock()
        self._last_plain = ""
        self.resized = False
        self.closed_input = False

    @staticmethod
    def _fileno(stream: object) -> int | None:
        try:
            return int(stream.fileno())  # type: ignore[attr-defined]
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            return None

    # --- entering and leaving ---------------------------------------------------------------

    @contextlib.contextmanager
    def session(self) -> Iterator[Terminal]:
        """Full screen for the time of the block (when there is a terminal)."""
        if not self.full_screen:
            yield self
            return
        import termios
        import tty

        assert self._in_fd is not None
        self._saved = termios.tcgetattr(self._in_fd)
        tty.setcbreak(self._in_fd, termios.TCSANOW)
        self._previous_winch = signal.signal(signal.SIGWINCH, self._on_resize)
        self._write(ENTER_ALT_SCREEN + HIDE_CURSOR)
        try:
            yield self
        finally:
            self._write(SHOW_CURSOR + LEAVE_ALT_SCREEN)
            signal.signal(signal.SIGWINCH, self._previous_winch)
            termios.tcsetattr(self._in_fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def _on_resize(self, signum: int, frame: FrameType | None) -> None:
        self.resized = True
        self.wake()

    def wake(self) -> None:
        """Make a waiting `read_keys` return (safe from any thread and from signal handlers)."""
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_write, b"\0")

    # --- drawing ----------------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        if self.full_screen and self._out_fd is not None:
            with contextlib.suppress(OSError):
                columns, lines = os.get_terminal_size(self._out_fd)
                return columns, lines
        return self.console.width, PLAIN_HEIGHT

    def draw(self, renderable: RenderableType, cursor: tuple[int, int] | None) -> None:
        """One frame of the terminal's size; `cursor` (row, column, 1-based) shows the cursor
        there, None hides it. Plain lines: the frame is printed when it differs from the last."""
        width, height = self.size()
        out = io.StringIO()
        frame_console = Console(
            file=out,
            width=width,
            height=height,
            force_terminal=self.full_screen,
            color_system=self.console.color_system if self.full_screen else None,  # type: ignore[arg-type]
            legacy_windows=False,
            highlight=False,
        )
        frame_console.print(renderable, end="")
        text = out.getvalue().removesuffix("\n")
        with self._lock:
            if not self.full_screen:
                if text != self._last_plain:
                    self._last_plain = text
                    self._write(text + "\n")
                return
            tail = HIDE_CURSOR if cursor is None else f"\x1b[{cursor[0]};{cursor[1]}H{SHOW_CURSOR}"
            self._write(HOME + text + tail)

    def _write(self, text: str) -> None:
        if self._out_fd is None:
            self.console.file.write(text)
            self.console.file.flush()
            return
        data = text.encode("utf-8", errors="replace")
        while data:
            written = os.write(self._out_fd, data)
            data = data[written:]

    # --- reading ----------------------------------------------------------------------------

    def read_keys(self, timeout: float | None) -> str:
        """What was typed (as text; a line's end as "\\r"), waiting at most `timeout` seconds
        for it; "" when woken or timed out. At the end of the input, `closed_input` is set."""
        watched = [self._wake_read]
        if self._in_fd is not None and not self.closed_input:
            watched.append(self._in_fd)
        ready, _, _ = select.select(watched, [], [], timeout)
        if self._wake_read in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_read, 4096)
        if self._in_fd is None or self._in_fd not in ready:
            return ""
        data = os.read(self._in_fd, 4096)
        if not data:
            self.closed_input = True
            return "\x04"
        text = self._decoder.decode(data)
        return _ESCAPES.sub("", text).replace("\r\n", "\r").replace("\n", "\r")
