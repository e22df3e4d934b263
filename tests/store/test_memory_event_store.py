"""What only the in-memory store must prove: abandoned subscribers leave nothing behind."""

from __future__ import annotations

import asyncio

from services.eventstore import InMemoryEventStore
from tests.support.waiting import close_subscriptions, wait_until


async def test_cancelled_subscribers_leave_no_parked_waiters() -> None:
    store = InMemoryEventStore()
    subscriptions = [store.subscribe(f"table-{n % 3}") for n in range(9)]
    waiting = [asyncio.ensure_future(anext(subscription)) for subscription in subscriptions]
    await wait_until(lambda: store.parked_waiters == 9, "all nine subscribers are parked")

    await close_subscriptions(subscriptions, waiting)

    assert store.parked_waiters == 0
    assert store.live_subscriptions == 0
