"""Fixtures of the game-service tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.eventstore import EventStore, InMemoryEventStore, RedisEventStore


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    """Each test once on the in-memory store, once on a fresh Redis and once on a fresh Redis
    Cluster (three masters, a replica each)."""
    if request.param == "memory":
        yield InMemoryEventStore()
    elif request.param == "redis":
        yield RedisEventStore.from_url(request.getfixturevalue("fresh_redis_url"))
    else:
        yield RedisEventStore.from_url(request.getfixturevalue("fresh_cluster_url"))
