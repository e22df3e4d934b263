"""Which Redis a URL names: a standalone server, or a Redis Cluster.

``REDIS_URL`` selects cluster mode by its scheme: ``redis+cluster://host:port`` (or
``rediss+cluster://`` with TLS) names any node of a cluster as the seed from which the client
learns the others; ``redis://``, ``rediss://`` and ``unix://`` name one standalone server.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import (
    ClusterDownError,
    MasterDownError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
REDIS_SCHEMES = ("redis://", "rediss://", "unix://", *CLUSTER_SCHEMES)

#: Connections one client keeps to a standalone Redis at most; a command beyond them waits for
#: one (up to `POOL_WAIT_S`) instead of failing, as redis-py's default pool would at 100.
MAX_CONNECTIONS = 100
#: How long a command waits for a free connection before it fails (ConnectionError: transient,
#: UNAVAILABLE at the edge).
POOL_WAIT_S = 10.0

AnyRedis = Redis | RedisCluster
"""A redis-py asyncio client on a standalone Redis or on a cluster: the commands the services
send (single-key, or several keys of one hash tag) work the same on both."""


class NoReplicasError(ResponseError):
    """``NOREPLICAS``: a master refused a write because fewer replicas than its
    ``min-replicas-to-write`` are in sync with it (nothing was written). redis-py raises it for
    that reply once :mod:`.wire` has registered it (redis-py itself has no class for it)."""


TRANSIENT_REDIS_ERRORS: tuple[type[Exception], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    TryAgainError,
    RedisClusterException,
    TimeoutError,
    NoReplicasError,
    MasterDownError,
    ReadOnlyError,
)
"""What to answer ``UNAVAILABLE`` (retry later) for: a server away, or a cluster failing over
(between a master's death and its replica's promotion) or without a node for a slot; a master
without the replicas it needs to take writes, a replica whose master is away, a node that is
no longer a master; and a call that ran out of time."""


def is_cluster_url(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def plain_url(url: str) -> str:
    """``url`` without the ``+cluster`` marker (what redis-py understands), and without a
    database number on a cluster, which has only database 0."""
    if not is_cluster_url(url):
        return url
    scheme, rest = url.split("://", 1)
    netloc, _, query = rest.partition("?")
    netloc = netloc.split("/", 1)[0]
    return f"{scheme.removesuffix('+cluster')}://{netloc}" + (f"?{query}" if query else "")


def redis_client(url: str, **options: Any) -> AnyRedis:
    """redis-py's asyncio client for ``url``: a :class:`RedisCluster` for ``redis+cluster://``,
    else a :class:`Redis` on a pool that waits for a free connection; ``options`` go to its
    ``from_url``."""
    if is_cluster_url(url):
        # Like redis.asyncio.Redis, no socket timeout unless asked: with one, redis-py reads
        # through asyncio.wait_for, which on Python 3.11 can swallow a task's cancellation.
        options.setdefault("socket_timeout", None)
        return RedisCluster.from_url(plain_url(url), **options)
    return standalone_client(url, **options)


def standalone_client(url: str, **options: Any) -> Redis:
    """redis-py's asyncio client for one standalone server (or one node of a cluster), on a pool
    that waits up to `POOL_WAIT_S` for a free connection when `MAX_CONNECTIONS` are in use;
    ``options`` go to the pool's ``from_url``."""
    options.setdefault("max_connections", MAX_CONNECTIONS)
    options.setdefault("timeout", POOL_WAIT_S)
    return Redis.from_pool(BlockingConnectionPool.from_url(url, **options))
