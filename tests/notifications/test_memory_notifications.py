"""The in-memory adapter on an injected clock: retention by age, and dedupe keys that expire."""

from __future__ import annotations

import pytest

from services.errors import Reason, ServiceError
from services.notifications import InMemoryNotifications, Notification, TableFull

DAY = 24 * 3600.0


def full(version: int) -> Notification:
    return Notification("palice", f"table_full:t1:{version}", TableFull(), 1, "t1")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_notifications_older_than_the_retention_are_gone_and_their_cursors_expired() -> None:
    clock = Clock()
    notifications = InMemoryNotifications(keep_seconds=7 * DAY, clock=clock)
    old = await notifications.publish([full(1)])
    clock.now += 6 * DAY
    recent = await notifications.publish([full(2)])
    clock.now += 2 * DAY

    for cursor in (old[0].cursor, "0-0"):  # type: ignore[union-attr]
        with pytest.raises(ServiceError) as expired:
            await notifications.read("palice", cursor, 10)
        assert expired.value.reason is Reason.CURSOR_EXPIRED
    assert await notifications.read("palice", recent[0].cursor, 10) == []  # type: ignore[union-attr]


async def test_a_fact_is_told_again_once_its_dedupe_key_is_forgotten() -> None:
    clock = Clock()
    notifications = InMemoryNotifications(dedupe_seconds=15 * DAY, clock=clock)
    assert (await notifications.publish([full(1)]))[0] is not None
    clock.now += 14 * DAY
    assert (await notifications.publish([full(1)]))[0] is None
    clock.now += 2 * DAY
    assert (await notifications.publish([full(1)]))[0] is not None


async def test_cursors_increase_within_one_millisecond() -> None:
    notifications = InMemoryNotifications(clock=Clock())
    stored = await notifications.publish([full(v) for v in range(1, 4)])
    assert [r.cursor for r in stored if r] == [
        "1800000000000-0",
        "1800000000000-1",
        "1800000000000-2",
    ]
