"""Store fixtures: ``store`` runs each contract test once per implementation; ``make_store`` and
``raw_redis`` are the Redis store tests' own."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.eventstore import EventStore, RedisEventStore, open_store
from tests.store.redis_stores import StoreFactory


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def store_url(request: pytest.FixtureRequest) -> str:
    """URL of the store under test; a Redis (or the cluster) is only started for its variant."""
    if request.param == "memory":
        return "memory://"
    fixture = "fresh_cluster_url" if request.param == "redis-cluster" else "fresh_redis_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[EventStore]:
    async with open_store(store_url) as opened:
        yield opened


@pytest.fixture
async def raw_redis(fresh_redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(fresh_redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def make_store(fresh_redis_url: str) -> AsyncIterator[StoreFactory]:
    """Stores on the test Redis, each with a unique client name, all closed after the test."""
    stores: list[RedisEventStore] = []

    def make(url: str = fresh_redis_url, **options: Any) -> RedisEventStore:
        options.setdefault("client_name", f"test-{uuid.uuid4().hex[:8]}")
        store = RedisEventStore.from_url(url, **options)
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()
