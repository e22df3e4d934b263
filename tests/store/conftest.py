"""Store fixtures: ``store`` runs each contract test once per implementation."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.eventstore import EventStore, open_store


@pytest.fixture(params=["memory", "redis"])
def store_url(request: pytest.FixtureRequest) -> str:
    """URL of the store under test; the Redis one is only started for the redis variant."""
    if request.param == "memory":
        return "memory://"
    url: str = request.getfixturevalue("fresh_redis_url")
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[EventStore]:
    async with open_store(store_url) as opened:
        yield opened
