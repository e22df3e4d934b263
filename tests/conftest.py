"""Shared fixtures: a real Redis for the whole session, flushed per test.

``redis_url`` (session) is the Redis chosen by :func:`tests.support.redis_server.start_test_redis`;
it starts lazily, so test runs that never ask for Redis never start one. ``fresh_redis_url``
(function) is the same URL after ``FLUSHDB``. With ``REDIS_URL`` set, that flush hits the
database named in the URL: point it at a throwaway one (``redis://host:6379/15``).
``persistent_redis`` is an extra private server with AOF for tests that crash and restart Redis.
``redis_cluster`` (session) is a private Redis Cluster of three masters and three replicas
(:mod:`services.devtools.redis_cluster`), started on first use; ``fresh_cluster_url``
(function) is its ``redis+cluster://`` URL after every master was flushed. ``store_url`` runs
a test once per kind of store (memory, Redis, Redis Cluster), and ``stores`` is that as the
end-to-end harnesses (tests/lobby, tests/chat) take it.
``rabbitmq_url`` (session) is a real RabbitMQ (:mod:`tests.support.rabbitmq`); without one its
tests are skipped, saying why. Which Redis and which RabbitMQ served the run is printed in the
terminal summary.
"""

from __future__ import annotations

import os

# gRPC's fork handlers restart its poller thread in a forked child; a child that closes its file
# descriptors before exec (pexpect does, for the terminal client's tests) then dies on
# "epoll_wait error: Bad file descriptor" before it runs (grpc/grpc#43055, grpcio >= 1.81; one
# spawn in six on this machine once this process has served gRPC). No test forks a process that
# goes on using gRPC without exec, so the handlers are off; this runs before anything imports grpc.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.devtools.redis_cluster import RedisClusterServers
from tests.support.rabbitmq import find_test_rabbitmq
from tests.support.redis_server import RedisServer, start_private_redis, start_test_redis

_REDIS_DESCRIPTION = pytest.StashKey[str]()
_RABBITMQ_DESCRIPTION = pytest.StashKey[str]()
_CLUSTER_DESCRIPTION = pytest.StashKey[str]()


@pytest.fixture(scope="session")
def redis_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    source = start_test_redis(tmp_path_factory.mktemp("redis"))
    request.config.stash[_REDIS_DESCRIPTION] = source.description
    try:
        yield source.url
    finally:
        source.stop()


@pytest.fixture(scope="session")
def rabbitmq_url(request: pytest.FixtureRequest) -> Iterator[str]:
    source = find_test_rabbitmq()
    request.config.stash[_RABBITMQ_DESCRIPTION] = source.description
    if source.url is None:
        pytest.skip(f"no RabbitMQ: {source.description}")
    try:
        yield source.url
    finally:
        source.stop()


@pytest.fixture
def fresh_redis_url(redis_url: str) -> str:
    with redis.Redis.from_url(redis_url) as client:
        client.flushdb()
    return redis_url


@pytest.fixture(scope="session")
def redis_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RedisClusterServers]:
    # No test kills this cluster's nodes (those that do start a cluster of their own), so a
    # failover here is only ever a spurious one: a node starved of the CPU on a busy machine for
    # longer than the node timeout, its slots then refused while its replica takes over. A long
    # timeout keeps that from failing whichever test happens to run (1 s did, at a load of 10).
    cluster = RedisClusterServers(tmp_path_factory.mktemp("redis-cluster"), node_timeout_ms=15_000)
    cluster.start()
    request.config.stash[_CLUSTER_DESCRIPTION] = cluster.description
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def fresh_cluster_url(redis_cluster: RedisClusterServers) -> str:
    """The cluster's URL after flushing every master (should a node have failed anyway, once its
    replica took over)."""
    redis_cluster.wait_until_ok()
    for node in redis_cluster.nodes:
        if not node.running:
            continue
        with redis.Redis(port=node.port) as client:
            if client.info("replication")["role"] == "master":
                client.flushall()
    return redis_cluster.url


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def store_url(request: pytest.FixtureRequest) -> str | None:
    """A test once per kind of store: None (in memory), then the URL of a flushed Redis, then
    that of a flushed Redis Cluster."""
    if request.param == "redis":
        return str(request.getfixturevalue("fresh_redis_url"))
    if request.param == "redis-cluster":
        return str(request.getfixturevalue("fresh_cluster_url"))
    return None


@pytest.fixture
def stores(store_url: str | None) -> tuple[str, str | None]:
    """`store_url` as the end-to-end harnesses take it: ("memory", None) or ("redis", URL)."""
    return ("memory", None) if store_url is None else ("redis", store_url)


@pytest.fixture
def persistent_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = start_private_redis(tmp_path / "redis-aof", appendonly=True)
    try:
        yield server
    finally:
        server.stop()


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    description = config.stash.get(_REDIS_DESCRIPTION, None)
    if description is not None:
        terminalreporter.write_line(f"redis: {description}")
    cluster = config.stash.get(_CLUSTER_DESCRIPTION, None)
    if cluster is not None:
        terminalreporter.write_line(f"redis cluster: {cluster}")
    rabbitmq = config.stash.get(_RABBITMQ_DESCRIPTION, None)
    if rabbitmq is not None:
        terminalreporter.write_line(f"rabbitmq: {rabbitmq}")
