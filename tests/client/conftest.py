"""A real `verrater serve` process and the real client in a pseudo-terminal.

`ServerProcess` runs `python -m services.cli serve` on a fixed port (so it can be killed and
started again on the same port); `spawn_client` runs `python -m services.client ...` under
pexpect with everything it printed kept, so a test can check that no traceback showed.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pexpect
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
SECRET = "client-test-secret-at-least-32-bytes-long"
#: Prompts of the client (services/client/session.py).
CHOICE = "Your choice"
SUPPLY = "Your supply"
PAUSE = "Press Enter to continue"
#: A frame of the full-screen client: cursor home, the lines, then the cursor hidden or put at
#: the prompt (services/client/terminal.py).
FRAME = re.compile(r"\x1b\[H(.*?)(?:\x1b\[\?25l|\x1b\[(\d+);(\d+)H\x1b\[\?25h)", re.S)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: The status line: the first line of every frame.
STATUS = re.compile(r"^(?:Round \d+ of \d+ · |Before round 1 · |Game over after round \d+ of \d+)")
#: The virtualenv's scripts, which a newcomer's shell does not search: the clients here run with
#: a PATH without them, as after `make play`, and name the `verrater` command by its path.
VENV_BIN = Path(sys.executable).parent
RUN = os.path.relpath(VENV_BIN / "verrater", ROOT)


def newcomers_path() -> str:
    """This process's PATH without the virtualenv's scripts."""
    kept = [
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and Path(folder).resolve() != VENV_BIN.resolve()
    ]
    return os.pathsep.join(kept)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """`verrater serve` (all services, bots in process) as a child process on one port."""

    def __init__(self, log_dir: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self._env = {
            **os.environ,
            "VERRATER_BIND": self.address,
            "VERRATER_LOG_LEVEL": "WARNING",
            "VERRATER_WEB_BIND": "",  # no browser door: these tests use the terminal
            **(env or {}),
        }
        self._log_dir = log_dir
        self._starts = 0
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._starts += 1
        log = (self._log_dir / f"server-{self.port}-{self._starts}.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve"],
            cwd=ROOT,
            env=self._env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.wait_until_serving()

    def wait_until_serving(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as channel:
            health: Any = health_pb2_grpc.HealthStub(channel)  # stubs without Check typed
            while True:
                assert self.process is not None and self.process.poll() is None, "server died"
                try:
                    reply = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    if time.monotonic() > deadline:
                        raise
                time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: the server gets no chance to say goodbye."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One in-memory server for the tests of a module."""
    process = ServerProcess(tmp_path_factory.mktemp("server"))
    process.start()
    try:
        yield process
    finally:
        process.stop()


@dataclass(frozen=True)
class Frame:
    """One whole frame as the terminal shows it: its lines, without colours."""

    lines: list[str]
    cursor: tuple[int, int] | None  # (row, column), 1-based; None: hidden

    @property
    def status(self) -> str:
        return self.lines[0] if self.lines else ""

    @property
    def prompt(self) -> str:
        """The last line: the question and what is typed, or what the client waits for."""
        return self.lines[-1].rstrip() if self.lines else ""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def asks(self) -> str | None:
        """CHOICE, SUPPLY or PAUSE when the frame asks that and nothing is typed yet."""
        for question in (CHOICE, SUPPLY, PAUSE):
            if self.prompt.startswith(question) and self.prompt.endswith((":", "continue")):
                return question
        return None


class Client:
    """The client in a pseudo-terminal, with all it printed kept in `output`."""

    def __init__(self, child: pexpect.spawn[str], log: io.StringIO, size: tuple[int, int]) -> None:
        self.child = child
        self._log = log
        self.rows, self.columns = size
        self.frames: list[Frame] = []

    @property
    def output(self) -> str:
        return self._log.getvalue()

    @property
    def said(self) -> str:
        """The output as words: uncoloured, every run of whitespace (a wrapped line's end too)
        one space."""
        return " ".join(ANSI.sub("", self.output).split())

    def expect(self, patterns: list[str] | str, timeout: float = 30) -> int:
        wanted: list[Any] = [patterns] if isinstance(patterns, str) else list(patterns)
        return int(self.child.expect(wanted, timeout=timeout))

    def matched(self, group: int) -> str:
        """A group of what the last `expect` matched."""
        match = self.child.match
        assert isinstance(match, re.Match), match
        return str(match.group(group))

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def type(self, keys: str) -> None:
        """Keys as a person types them (Enter is "\\r")."""
        self.child.send(keys)

    def resize(self, rows: int, columns: int) -> None:
        """Resize the terminal (the client gets SIGWINCH) and wait for a frame of the new size."""
        self.child.setwinsize(rows, columns)
        self.rows, self.columns = rows, columns
        self.next_frame(lambda frame: len(frame.lines) == rows, check=False)

    def next_frame(
        self,
        wanted: Callable[[Frame], bool] = lambda frame: True,
        timeout: float = 60,
        *,
        check: bool = True,
    ) -> Frame:
        """The next frame `wanted` accepts within `timeout` seconds, checking on the way that
        each frame fits the terminal and starts with the status line."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                last = self.frames[-1].text if self.frames else "(none)"
                raise AssertionError(f"no such frame in {timeout} s; the last:\n{last}")
            index = self.child.expect([FRAME, pexpect.EOF], timeout=left)
            if index == 1:
                raise AssertionError(f"the client ended: {self.output[-2000:]}")
            match = self.child.match
            assert isinstance(match, re.Match)
            lines = ANSI.sub("", match.group(1)).split("\r\n")
            cursor = (int(match.group(2)), int(match.group(3))) if match.group(2) else None
            frame = Frame(lines, cursor)
            self.frames.append(frame)
            if check:
                assert len(lines) <= self.rows, f"{len(lines)} lines:\n{frame.text}"
                too_wide = [line for line in lines if len(line) > self.columns]
                assert not too_wide, too_wide
                assert STATUS.match(frame.status), frame.text
            if wanted(frame):
                return frame

    def finish(self, timeout: float = 30) -> int:
        """Wait for the process to end; its exit status."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"killed by signal {self.child.signalstatus}"
        return int(status)

    def answer(self, frame: Frame) -> None:
        """The first option, no supply cards, Enter at a pause."""
        question = frame.asks()
        self.type({CHOICE: "1\r", SUPPLY: "none\r", PAUSE: "\r"}[question or PAUSE])

    def play(self, decisions: int | None = None, timeout: float = 60) -> int:
        """Answer each question once (see `answer`) until the game is over, or until
        `decisions` were answered and the next question is on the screen; how many decisions
        were answered. A question is told from the one before by the round and phase the status
        line names (a seat decides once per phase)."""
        answered = 0
        last = ""
        while True:
            frame = self.next_frame(timeout=timeout)
            if frame.status.startswith("Game over"):
                return answered
            question = frame.asks()
            asked = " · ".join(frame.status.split(" · ")[:2]) + (question or "")
            if question is None or asked == last:
                continue
            if decisions is not None and answered >= decisions:
                return answered
            last = asked
            self.answer(frame)
            if question != PAUSE:
                answered += 1

    def play_to_the_end(self, timeout: float = 60) -> int:
        """Play as `play` does, then wait for the end screen; the decisions answered."""
        answered = self.play(timeout=timeout)
        self.expect("Final scores", timeout=timeout)
        return answered


SpawnClient = Callable[..., Client]


@pytest.fixture
def spawn_client(tmp_path: Path) -> Iterator[SpawnClient]:
    """Start `python -m services.client ARGS...` in a pseudo-terminal of `rows` x `columns`,
    with a configuration directory of its own (`config`, default: one per test); every client
    is closed at the end."""
    started: list[Client] = []

    def spawn(
        *args: str,
        rows: int = 60,
        columns: int = 160,
        config: Path | None = None,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
    ) -> Client:
        environment = {
            **os.environ,
            "TERM": "xterm-256color",
            "XDG_CONFIG_HOME": str(config or tmp_path / "config"),
            "PATH": newcomers_path(),
            **(env or {}),
        }
        for fixed in ("COLUMNS", "LINES"):  # the client reads the terminal's own size
            environment.pop(fixed, None)
        program, *rest = command or [sys.executable, "-m", "services.client"]
        child = pexpect.spawn(
            program,
            [*rest, *args],
            cwd=str(ROOT),
            env=environment,
            encoding="utf-8",
            codec_errors="replace",
            dimensions=(rows, columns),
            timeout=30,
        )
        log = io.StringIO()
        child.logfile_read = log
        client = Client(child, log, (rows, columns))
        started.append(client)
        return client

    yield spawn
    for client in started:
        if client.child.isalive():
            client.child.terminate(force=True)
        assert "Traceback" not in client.output, client.output[-3000:]
