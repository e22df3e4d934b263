"""The notifications contract: both adapters pass every test here unchanged."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from services.errors import Reason, ServiceError
from services.notifications import (
    GameOver,
    InvalidCursor,
    Notification,
    Notifications,
    Received,
    SlowReader,
    YourTurn,
    format_cursor,
)
from tests.notifications.conftest import MakeNotifications
from tests.support.waiting import take, wait_until

ALICE = "palice"
BOB = "pbob"


def turn(version: int, player: str = ALICE, game: str = "g1", seat: int = 0) -> Notification:
    return Notification(
        player,
        f"your_turn:{game}:{seat}:{version}",
        YourTurn(seat, version),
        1_700_000_000_000 + version,
        "t1",
        game,
    )


def versions(received: list[Received]) -> list[int]:
    return [r.notification.kind.version for r in received]  # type: ignore[union-attr]


async def test_published_notifications_read_back_in_order_with_increasing_cursors(
    notifications: Notifications,
) -> None:
    stored = await notifications.publish([turn(1), turn(2), turn(3, player=BOB)])

    assert all(item is not None for item in stored)
    mine = await notifications.read(ALICE, "0-0", 10)
    assert mine == stored[:2]
    assert [r.notification for r in mine] == [turn(1), turn(2)]
    assert mine[0].position < mine[1].position
    assert await notifications.read(BOB, "0-0", 10) == stored[2:]


async def test_the_same_fact_published_twice_is_stored_once(notifications: Notifications) -> None:
    first = await notifications.publish([turn(1)])
    again = await notifications.publish([turn(1), turn(2), turn(1)])

    assert first[0] is not None
    assert again[0] is None and again[2] is None and again[1] is not None
    assert versions(await notifications.read(ALICE, "0-0", 10)) == [1, 2]
    feed = await notifications.outbound(shard=notifications.outbound_shard(ALICE))
    assert [entry.notification for entry in feed] == [turn(1), turn(2)]


async def test_a_read_after_a_cursor_returns_exactly_what_followed(
    notifications: Notifications,
) -> None:
    stored = await notifications.publish([turn(v) for v in range(1, 6)])
    cursor = stored[1].cursor  # type: ignore[union-attr]

    assert versions(await notifications.read(ALICE, cursor, 10)) == [3, 4, 5]
    assert versions(await notifications.read(ALICE, cursor, 2)) == [3, 4]
    assert await notifications.read(ALICE, stored[4].cursor, 10) == []  # type: ignore[union-attr]


async def test_every_kind_survives_the_store(notifications: Notifications) -> None:
    over = Notification(ALICE, "game_over:g1:2", GameOver(2, 11, 1, (0, 2)), 5, "t1", "g1")
    timed = Notification(ALICE, "your_turn:g1:2:9", YourTurn(2, 9, 1_800_000_000_123), 6)
    await notifications.publish([over, timed])

    assert [r.notification for r in await notifications.read(ALICE, "0-0", 10)] == [over, timed]


@pytest.mark.parametrize("cursor", ["", "abc", "12", "1-2-3", "-1-0", "1-x", "9" * 21 + "-0"])
async def test_a_malformed_cursor_is_refused_as_invalid(
    notifications: Notifications, cursor: str
) -> None:
    with pytest.raises(InvalidCursor) as refused:
        await notifications.read(ALICE, cursor, 10)
    assert refused.value.reason is Reason.MALFORMED_REQUEST
    assert refused.value.metadata == {"field": "cursor"}


async def test_a_cursor_beyond_the_last_notification_is_refused_as_invalid(
    notifications: Notifications,
) -> None:
    stored = await notifications.publish([turn(1)])
    position = stored[0].position  # type: ignore[union-attr]

    with pytest.raises(InvalidCursor):
        await notifications.read(ALICE, format_cursor((position[0] + 1, 0)), 10)


@pytest.mark.parametrize("player", [ALICE, "pnobody"])
async def test_a_cursor_dated_in_the_future_is_refused_as_invalid(
    notifications: Notifications, player: str
) -> None:
    """Whether the player has notifications or none: no cursor from the future was handed out."""
    await notifications.publish([turn(1)])
    with pytest.raises(InvalidCursor):
        await notifications.read(player, "99999999999999-0", 10)  # the year 5138


async def test_a_cursor_whose_successors_were_trimmed_has_expired(
    make_notifications: MakeNotifications,
) -> None:
    notifications = make_notifications(keep=5)
    # Redis trims whole stream nodes (100 entries): publish enough that whole nodes go.
    stored = [r for r in await notifications.publish([turn(v) for v in range(1, 251)]) if r]

    assert versions(await notifications.read(ALICE, stored[-2].cursor, 10)) == [250]
    for cursor in (stored[0].cursor, "0-0"):
        with pytest.raises(ServiceError) as expired:
            await notifications.read(ALICE, cursor, 10)
        assert expired.value.reason is Reason.CURSOR_EXPIRED


async def test_a_cursor_older_than_the_retention_has_expired(
    notifications: Notifications,
) -> None:
    stored = await notifications.publish([turn(1)])
    assert stored[0] is not None

    with pytest.raises(ServiceError) as expired:
        await notifications.read(ALICE, "1500000000000-0", 10)  # 2017
    assert expired.value.reason is Reason.CURSOR_EXPIRED


async def test_a_cursor_of_a_player_with_nothing_kept_has_expired(
    make_notifications: MakeNotifications,
) -> None:
    elsewhere = make_notifications()
    stored = await elsewhere.publish([turn(1, player=BOB)])
    recent = stored[0].cursor  # type: ignore[union-attr]
    notifications = make_notifications()

    assert await notifications.read(ALICE, "0-0", 10) == []
    with pytest.raises(ServiceError) as expired:
        await notifications.read(ALICE, recent, 10)
    assert expired.value.reason is Reason.CURSOR_EXPIRED


async def test_a_subscription_catches_up_from_its_cursor_then_follows_live(
    notifications: Notifications,
) -> None:
    stored = await notifications.publish([turn(1), turn(2), turn(3)])
    subscription = notifications.subscribe(ALICE, stored[0].cursor)  # type: ignore[union-attr]
    try:
        assert versions(await take(subscription, 2)) == [2, 3]
        pending = asyncio.ensure_future(anext(subscription))
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([turn(4), turn(3, player=BOB), turn(5)])
        assert versions([await pending]) == [4]
        assert versions(await take(subscription, 1)) == [5]
    finally:
        await subscription.aclose()
    assert notifications.live_subscriptions == 0


async def test_a_subscription_without_cursor_starts_from_now(notifications: Notifications) -> None:
    await notifications.publish([turn(1), turn(2)])
    subscription = notifications.subscribe(ALICE)
    try:
        pending = asyncio.ensure_future(anext(subscription))
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([turn(3)])
        assert versions([await pending]) == [3]
    finally:
        await subscription.aclose()


async def test_subscribers_of_one_player_each_get_everything_once(
    notifications: Notifications,
) -> None:
    subscriptions = [notifications.subscribe(ALICE) for _ in range(3)]
    pending = [asyncio.ensure_future(anext(s)) for s in subscriptions]
    try:
        await wait_until(lambda: notifications.live_subscriptions == 3, "all three are live")
        await notifications.publish([turn(1), turn(2)])
        firsts = await asyncio.gather(*pending)
        assert versions(list(firsts)) == [1, 1, 1]
        for subscription in subscriptions:
            assert versions(await take(subscription, 1)) == [2]
    finally:
        for subscription in subscriptions:
            await subscription.aclose()


async def test_an_overflowing_subscriber_rereads_and_misses_nothing(
    make_notifications: MakeNotifications,
) -> None:
    notifications = make_notifications(inbox_limit=2)
    subscription = notifications.subscribe(ALICE)
    try:
        pending = asyncio.ensure_future(anext(subscription))
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([turn(v) for v in range(1, 11)])
        got = [await pending, *await take(subscription, 9)]
        assert versions(got) == list(range(1, 11))
    finally:
        await subscription.aclose()


async def test_a_subscriber_that_stopped_taking_notifications_is_cut_off_as_a_slow_reader(
    notifications: Notifications,
) -> None:
    subscription = notifications.subscribe(ALICE, max_waiting=3, stall_limit=0.0)
    try:
        pending = asyncio.ensure_future(anext(subscription))
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([turn(1)])
        assert versions([await pending]) == [1]
        # Not pulling now: the consumer holds notification 1 (as a stream blocked in gRPC).
        for version in range(2, 6):
            await notifications.publish([turn(version)])
        await wait_until(lambda: notifications.live_subscriptions == 0, "it is cut off")
        got: list[Received] = []
        with pytest.raises(SlowReader):
            async for received in subscription:
                got.append(received)
        assert got == []  # what waited was dropped; the client resumes from its cursor
    finally:
        await subscription.aclose()


async def test_a_burst_is_no_sign_of_a_slow_reader(notifications: Notifications) -> None:
    """Neither for a subscriber waiting for news, nor for one still handing on the previous
    notification when the burst comes (it took one within the stall limit)."""
    subscription = notifications.subscribe(ALICE, max_waiting=3, stall_limit=60.0)
    try:
        pending = asyncio.ensure_future(anext(subscription))
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([turn(v) for v in range(1, 9)])
        got = [await pending]
        await notifications.publish([turn(v) for v in range(9, 21)])
        got += await take(subscription, 19)
        assert versions(got) == list(range(1, 21))
    finally:
        await subscription.aclose()


async def test_closing_ends_live_subscriptions_as_unavailable(
    make_notifications: MakeNotifications,
) -> None:
    notifications = make_notifications()
    subscription = notifications.subscribe(ALICE)
    pending = asyncio.ensure_future(anext(subscription))
    await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
    await notifications.close()
    with pytest.raises(ServiceError) as ended:
        await pending
    assert ended.value.reason is Reason.STORE_UNAVAILABLE
    with contextlib.suppress(ServiceError):
        await subscription.aclose()


async def test_the_outbound_feed_has_each_new_notification_with_its_cursor(
    notifications: Notifications,
) -> None:
    """Every stored notification, on its player's shard of the feed (the one shard but on a
    Redis Cluster), in its player's order, with its cursor; each shard read from a cursor of
    its own."""
    stored = await notifications.publish([turn(1), turn(1, player=BOB), turn(2), turn(3)])

    feed = {
        shard: await notifications.outbound(shard=shard)
        for shard in range(notifications.outbound_shards)
    }
    for player in (ALICE, BOB):
        theirs = feed[notifications.outbound_shard(player)]
        assert [
            (e.cursor, e.notification) for e in theirs if e.notification.player_id == player
        ] == [
            (r.cursor, r.notification)
            for r in stored
            if r is not None and r.notification.player_id == player  # (all are stored)
        ]
    assert sum(len(entries) for entries in feed.values()) == 4
    mine = feed[notifications.outbound_shard(ALICE)]
    positions = [entry.feed_position for entry in mine]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    second = format_cursor(positions[1])
    after = await notifications.outbound(second, shard=notifications.outbound_shard(ALICE))
    assert after == mine[2:]
