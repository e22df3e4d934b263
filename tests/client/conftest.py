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
PAUSE = "Press Enter to continue"


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


class Client:
    """The client in a pseudo-terminal, with all it printed kept in `output`."""

    def __init__(self, child: pexpect.spawn[str], log: io.StringIO) -> None:
        self.child = child
        self._log = log

    @property
    def output(self) -> str:
        return self._log.getvalue()

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

    def finish(self, timeout: float = 30) -> int:
        """Wait for the process to end; its exit status."""
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"killed by signal {self.child.signalstatus}"
        return int(status)

    def play_to_the_end(self, answer: str = "1", timeout: float = 60) -> int:
        """Answer every decision with `answer` and every pause with Enter until the final
        scores show; how many decisions were answered."""
        decisions = 0
        while True:
            index = self.expect([CHOICE, PAUSE, "Final scores"], timeout=timeout)
            if index == 0:
                self.send(answer)
                decisions += 1
            elif index == 1:
                self.send("")
            else:
                return decisions


SpawnClient = Callable[..., Client]


@pytest.fixture
def spawn_client() -> Iterator[SpawnClient]:
    """Start `python -m services.client ARGS...`; every client is closed at the end."""
    started: list[Client] = []

    def spawn(*args: str) -> Client:
        child = pexpect.spawn(
            sys.executable,
            ["-m", "services.client", *args],
            cwd=str(ROOT),
            env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "60"},
            encoding="utf-8",
            codec_errors="replace",
            dimensions=(60, 160),
            timeout=30,
        )
        log = io.StringIO()
        child.logfile_read = log
        client = Client(child, log)
        started.append(client)
        return client

    yield spawn
    for client in started:
        if client.child.isalive():
            client.child.terminate(force=True)
        assert "Traceback" not in client.output, client.output[-3000:]
