"""The game event store: per-game, append-only, hash-chained logs of opaque event payloads.

Pick an implementation with :func:`open_store`; code against :class:`EventStore` only.
"""

from __future__ import annotations

from .base import (
    GENESIS_HASH,
    EventStore,
    EventStoreError,
    StoreClosed,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    chain_hash,
    verify_chain,
)
from .memory import InMemoryEventStore
from .redis import RedisEventStore
from .redis.urls import REDIS_SCHEMES, AnyRedis, is_cluster_url, redis_client

__all__ = [
    "GENESIS_HASH",
    "AnyRedis",
    "EventStore",
    "EventStoreError",
    "InMemoryEventStore",
    "RedisEventStore",
    "StoreClosed",
    "StoreUnavailable",
    "StoredEvent",
    "VersionConflict",
    "chain_hash",
    "is_cluster_url",
    "open_store",
    "redis_client",
    "verify_chain",
]


def open_store(url: str | None) -> EventStore:
    """The store named by ``url``: ``None`` or ``"memory://"`` is in-process (embedded mode),
    ``redis://``, ``rediss://`` or ``unix://`` is Redis Streams (distributed mode), and
    ``redis+cluster://host:port`` Redis Streams on the Redis Cluster that node belongs to.

    This is the one place that maps configuration (``REDIS_URL``) to an implementation.
    """
    if url is None or url == "memory://":
        return InMemoryEventStore()
    if url.startswith(REDIS_SCHEMES):
        return RedisEventStore.from_url(url)
    raise ValueError(
        f"unsupported event store url {url!r}: use memory://, redis://... or redis+cluster://..."
    )
