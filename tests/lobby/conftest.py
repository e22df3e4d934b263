"""Fixtures of the lobby tests: each end-to-end test in memory, on a fresh Redis and on a fresh
Redis Cluster (tests/conftest.py's `stores`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.lobby.harness import Stack, running


@pytest.fixture
async def stack(stores: tuple[str, str | None]) -> AsyncIterator[Stack]:
    """A backend with the default settings (but no command rate) on both stores."""
    async with running(*stores) as running_stack:
        yield running_stack
