"""The distributed stack the fault benchmark hurts: a private Redis with AOF (or a private Redis
Cluster configured as docs/OPERATING.md's recipe says), two game replicas, the lobby, the AI
service and two workers, each a `verrater` process of its own that can be killed and started
again with the same settings."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import RedisServer, start_private_redis

from .common import free_port, private_queue, stack_env

SECRET = "faults-bench-secret-only-for-this-local-run"
#: `cluster-node-timeout` of the bench's cluster unless asked otherwise: the guide's.
DEFAULT_NODE_TIMEOUT_MS = 5000


class Child:
    """A `verrater` process of the stack, in its own process group, that can be hurt and
    started again with the same settings."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.cli", *self.args],
                env={**os.environ, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def signal(self, signum: signal.Signals, *, wait: float = 30.0) -> None:
        """Send `signum` to the whole process group and wait for the process to end."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        self.signal(signal.SIGTERM)


@dataclass
class Stack:
    """The running processes and what the faults need to reach them."""

    redis: RedisServer | None
    cluster: RedisClusterServers | None
    store_url: str
    broker: str
    queue: str
    games: list[Child]
    workers: list[Child]
    others: list[Child]
    lobby_address: str
    game_address: str


@contextlib.contextmanager
def distributed_stack(
    broker: str | None,
    workdir: Path,
    redis_cluster: int = 0,
    node_timeout_ms: int = DEFAULT_NODE_TIMEOUT_MS,
) -> Iterator[Stack]:
    cluster: RedisClusterServers | None = None
    if redis_cluster:
        # As docs/OPERATING.md's recipe has it ("Redis Cluster").
        cluster = RedisClusterServers(
            workdir / "cluster",
            masters=redis_cluster,
            node_timeout_ms=node_timeout_ms,
            appendonly=True,
            min_replicas_to_write=1,
            min_replicas_max_lag=max(1, node_timeout_ms // 1000),
        )
        cluster.start()
        # Celery's broker, unless one is named: a cluster cannot be one.
        redis = None if broker else start_private_redis(workdir / "broker")
        store_url = cluster.url
    else:
        redis = start_private_redis(workdir / "redis", appendonly=True)
        store_url = redis.url
    try:
        broker_url = broker or (redis.url if redis is not None else "")
        with private_queue(broker_url) as queue:
            children: list[Child] = []
            try:
                game_ports = [free_port(), free_port()]
                lobby_port, ai_port = free_port(), free_port()
                env = {
                    **stack_env(
                        store_url, broker_url, queue, SECRET, game_ports, scratch=workdir / "tmp"
                    ),
                    "VERRATER_GRACE_SECONDS": "3",
                }
                game_address = env["VERRATER_GAME_ADDR"]

                def child(name: str, args: list[str], **more: str) -> Child:
                    made = Child(args, {**env, **more}, workdir / f"{name}.log")
                    made.start()
                    children.append(made)
                    return made

                # Each replica advertises its address: bot moves go back to the replica that
                # announced them, and through the balanced address while it is down.
                games = [
                    child(
                        f"game-{n}",
                        ["serve", "game"],
                        VERRATER_BIND=f"127.0.0.1:{port}",
                        VERRATER_ADVERTISE_ADDR=f"127.0.0.1:{port}",
                    )
                    for n, port in enumerate(game_ports, start=1)
                ]
                others = [
                    child("lobby", ["serve", "lobby"], VERRATER_BIND=f"127.0.0.1:{lobby_port}"),
                    child("ai", ["serve", "ai"], VERRATER_BIND=f"127.0.0.1:{ai_port}"),
                ]
                workers = [child(f"worker-{n}", ["worker", "--concurrency", "2"]) for n in (1, 2)]
                yield Stack(
                    None if cluster else redis,
                    cluster,
                    store_url,
                    broker_url,
                    queue,
                    games,
                    workers,
                    others,
                    f"127.0.0.1:{lobby_port}",
                    game_address,
                )
            finally:
                # Inside the queue's block: a worker or replica still running when the queue
                # is deleted declares it again, and it would stay on the shared RabbitMQ.
                for made in reversed(children):
                    made.stop()
    finally:
        if redis is not None:
            redis.resume()
            redis.stop()
        if cluster is not None:
            cluster.stop()
