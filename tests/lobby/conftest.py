"""Fixtures of the lobby tests: each end-to-end test once in memory and once on a fresh Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.lobby.harness import Stack, running


@pytest.fixture(params=["memory", "redis"])
def stores(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Which stores to run on: ("memory", None) or ("redis", a flushed Redis's URL)."""
    url = request.getfixturevalue("fresh_redis_url") if request.param == "redis" else None
    return request.param, url


@pytest.fixture
async def stack(stores: tuple[str, str | None]) -> AsyncIterator[Stack]:
    """A backend with the default settings (but no command rate) on both stores."""
    async with running(*stores) as running_stack:
        yield running_stack
