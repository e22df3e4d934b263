"""Notification fixtures: `make_notifications` builds the adapter under test (once per
implementation) with the options a test needs; everything it built is closed afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from services.notifications import InMemoryNotifications, Notifications, RedisNotifications

MakeNotifications = Callable[..., Notifications]


@pytest.fixture
async def make_notifications(store_url: str | None) -> AsyncIterator[MakeNotifications]:
    built: list[Notifications] = []

    def make(**options: Any) -> Notifications:
        adapter: Notifications = (
            InMemoryNotifications(**options)
            if store_url is None
            else RedisNotifications.from_url(store_url, **options)
        )
        built.append(adapter)
        return adapter

    yield make
    for adapter in built:
        await adapter.close()


@pytest.fixture
def notifications(make_notifications: MakeNotifications) -> Notifications:
    return make_notifications()
