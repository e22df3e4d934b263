"""One exchange with Redis, bounded in time: how the adapter and its live reader call Redis."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from redis.exceptions import ConnectionError as RedisConnectionError

from services.eventstore import TRANSIENT_REDIS_ERRORS

from ..port import NotificationsUnavailable

T = TypeVar("T")


@contextlib.asynccontextmanager
async def reaching_redis(timeout: float) -> AsyncIterator[None]:
    """Bound one exchange with Redis in time; transport errors become UNAVAILABLE."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except TRANSIENT_REDIS_ERRORS as exc:
        raise NotificationsUnavailable(f"redis unreachable: {exc!r}") from exc


async def once_more_if_dropped(timeout: float, command: Callable[[], Awaitable[T]]) -> T:
    """Run `command`, and once more if its connection dropped: after a Redis restart every
    pooled connection is dead and only its first use finds out. Every command here may run
    twice (reads, and publishes, which the dedupe keys make idempotent)."""
    async with reaching_redis(timeout):
        try:
            return await command()
        except RedisConnectionError:
            return await command()
