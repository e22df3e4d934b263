"""Fixtures of the lobby tests: each end-to-end test in memory, on a fresh Redis and on a fresh
Redis Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.lobby.harness import Stack, running


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
async def stack(stores: tuple[str, str | None]) -> AsyncIterator[Stack]:
    """A backend with the default settings (but no command rate) on both stores."""
    async with running(*stores) as running_stack:
        yield running_stack
