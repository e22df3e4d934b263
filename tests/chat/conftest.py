"""Fixtures of the chat's end-to-end tests: a backend on loopback, in memory, on a fresh Redis
and on a fresh Redis Cluster (tests/conftest.py's `stores`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.chat.harness import ChatStack, running


@pytest.fixture
async def stack(stores: tuple[str, str | None]) -> AsyncIterator[ChatStack]:
    async with running(*stores) as running_stack:
        yield running_stack
