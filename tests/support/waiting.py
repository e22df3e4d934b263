"""Waiting on conditions, never on the clock: every wait has a deadline and a reason."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0


async def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
) -> None:
    """Return as soon as ``condition()`` holds; fail with ``what`` after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not condition():
                await asyncio.sleep(0.005)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout}s waiting until {what}") from None


async def wait_until_true(
    check: Callable[[], Awaitable[bool]], what: str, timeout: float = DEFAULT_TIMEOUT
) -> None:
    """:func:`wait_until` for a condition that must be awaited (a read from a store): asked
    again every 10 ms until it holds; fails with ``what`` after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not await check():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout}s waiting until {what}") from None


async def take(events: AsyncIterator[T], count: int, timeout: float = DEFAULT_TIMEOUT) -> list[T]:
    """The next ``count`` items of ``events``, failing if they do not all arrive in time."""
    async with asyncio.timeout(timeout):
        return [await anext(events) for _ in range(count)]


async def close_subscriptions(
    subscriptions: Iterable[AsyncGenerator[object, None]],
    consumers: Iterable[asyncio.Future[Any]] = (),
) -> None:
    """Test teardown: stop the consumer tasks first (an async generator cannot be closed while
    a task is inside its ``__anext__``), then close every subscription."""
    pending = list(consumers)
    for consumer in pending:
        consumer.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for subscription in subscriptions:
        await subscription.aclose()
