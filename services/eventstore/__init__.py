"""The game event store: per-game, append-only, hash-chained logs of opaque event payloads.

Pick an implementation with :func:`open_store`; code against :class:`EventStore` only.
"""

from __future__ import annotations

from .base import (
    GENESIS_HASH,
    EventStore,
    EventStoreError,
    ReplicationUnconfirmed,
    StoreClosed,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    chain_hash,
    verify_chain,
)
from .memory import InMemoryEventStore
from .redis import RedisEventStore
from .redis.urls import (
    REDIS_SCHEMES,
    TRANSIENT_REDIS_ERRORS,
    AnyRedis,
    is_cluster_url,
    redis_client,
    standalone_client,
)
from .redis.wire import primaries_of, read_many, slots_by_primary

__all__ = [
    "GENESIS_HASH",
    "TRANSIENT_REDIS_ERRORS",
    "AnyRedis",
    "EventStore",
    "EventStoreError",
    "InMemoryEventStore",
    "RedisEventStore",
    "ReplicationUnconfirmed",
    "StoreClosed",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "chain_hash",
    "is_cluster_url",
    "open_store",
    "primaries_of",
    "read_many",
    "redis_client",
    "slots_by_primary",
    "standalone_client",
    "verify_chain",
]


def open_store(url: str | None, *, wait_replicas: int = 0, wait_ms: int = 1000) -> EventStore:
    """The store named by ``url``: ``None`` or ``"memory://"`` is in-process (embedded mode),
    ``redis://``, ``rediss://`` or ``unix://`` is Redis Streams (distributed mode), and
    ``redis+cluster://host:port`` Redis Streams on the Redis Cluster that node belongs to.

    This is the one place that maps configuration (``REDIS_URL``) to an implementation. On
    Redis, appends are acknowledged once ``wait_replicas`` replicas hold them (waiting up to
    ``wait_ms``; see :class:`RedisEventStore`).
    """
    if url is None or url == "memory://":
        return InMemoryEventStore()
    if url.startswith(REDIS_SCHEMES):
        return RedisEventStore.from_url(url, wait_replicas=wait_replicas, wait_timeout_ms=wait_ms)
    raise ValueError(
        f"unsupported event store url {url!r}: use memory://, redis://... or redis+cluster://..."
    )
