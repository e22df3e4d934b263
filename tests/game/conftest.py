"""Fixtures of the game-service tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.eventstore import EventStore, InMemoryEventStore, RedisEventStore


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    """Each test once on the in-memory store and once on a fresh Redis."""
    if request.param == "memory":
        yield InMemoryEventStore()
    else:
        yield RedisEventStore.from_url(request.getfixturevalue("fresh_redis_url"))
