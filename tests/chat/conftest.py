"""Fixtures of the chat's end-to-end tests: a backend on loopback, in memory, on a fresh Redis
and on a fresh Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.chat.harness import ChatStack, running


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def stores(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Which stores to run on: ("memory", None), or ("redis", the URL of a flushed Redis or of
    a flushed Redis Cluster)."""
    if request.param == "redis":
        return "redis", request.getfixturevalue("fresh_redis_url")
    if request.param == "redis-cluster":
        return "redis", request.getfixturevalue("fresh_cluster_url")
    return "memory", None


@pytest.fixture
async def stack(stores: tuple[str, str | None]) -> AsyncIterator[ChatStack]:
    async with running(*stores) as running_stack:
        yield running_stack
