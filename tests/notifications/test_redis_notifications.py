"""The Redis adapter's own promises: one live reader per process whatever the number of
subscribers, a reader that survives losing its connection, and the keys operators read about."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis

from services.devtools.redis_server import RedisServer
from services.errors import Reason, ServiceError
from services.notifications import (
    Notification,
    NotificationsUnavailable,
    Publisher,
    RedisNotifications,
    TableFull,
)
from services.notifications.kinds import your_turn
from tests.support.waiting import close_subscriptions, take, wait_until


def full(player_id: str, version: int) -> Notification:
    return Notification(player_id, f"table_full:t1:{version}", TableFull(), 1, "t1")


@pytest.fixture
async def notifications(fresh_redis_url: str) -> AsyncIterator[RedisNotifications]:
    adapter = RedisNotifications.from_url(fresh_redis_url, client_name="notify-test")
    yield adapter
    await adapter.close()


def hub_connections(url: str) -> int:
    with redis.Redis.from_url(url) as client:
        return sum(1 for c in client.client_list() if c["name"] == "notify-test-hub")


async def test_many_subscribers_share_one_live_reader(
    notifications: RedisNotifications, fresh_redis_url: str
) -> None:
    players = [f"p{index}" for index in range(10)]
    subscriptions = [notifications.subscribe(p) for p in players for _ in range(2)]
    pending = [asyncio.ensure_future(anext(s)) for s in subscriptions]
    try:
        await wait_until(lambda: notifications.live_subscriptions == 20, "all are live")
        await notifications.publish([full(p, 1) for p in players])
        got = await asyncio.gather(*pending)
        assert [r.notification.player_id for r in got] == [p for p in players for _ in range(2)]
        assert hub_connections(fresh_redis_url) == 1
    finally:
        await close_subscriptions(subscriptions, pending)


async def test_the_live_reader_reconnects_after_losing_its_connection(
    notifications: RedisNotifications, fresh_redis_url: str
) -> None:
    subscription = notifications.subscribe("palice")
    pending = asyncio.ensure_future(anext(subscription))
    try:
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await wait_until(lambda: hub_connections(fresh_redis_url) == 1, "the reader reads")
        with redis.Redis.from_url(fresh_redis_url) as client:
            # Every connection of this adapter: the reader's, and the pooled one publishes use
            # (by name: the Redis may be shared).
            for connection in client.client_list():
                if connection["name"].startswith("notify-test"):
                    client.client_kill_filter(_id=connection["id"])
        await notifications.publish([full("palice", 1)])
        assert (await pending).notification == full("palice", 1)
        await notifications.publish([full("palice", 2)])
        assert [r.notification for r in await take(subscription, 1)] == [full("palice", 2)]
    finally:
        await close_subscriptions([subscription], [pending])


async def test_a_players_keys_share_one_hash_tag_and_expire(
    notifications: RedisNotifications, fresh_redis_url: str
) -> None:
    await notifications.publish([full("palice", 1)])
    with redis.Redis.from_url(fresh_redis_url) as client:
        inbox = notifications.inbox_key("palice")
        once = notifications.dedupe_key("palice", "table_full:t1:1")
        assert inbox == "verrater:{notify:palice}:inbox"
        assert client.type(inbox) == b"stream" and client.exists(once)
        assert 0 < client.pttl(inbox) <= 7 * 24 * 3600 * 1000
        assert 14 * 24 * 3600 * 1000 < client.pttl(once) <= 15 * 24 * 3600 * 1000
        assert once.startswith("verrater:{notify:palice}:")  # one hash tag: one cluster slot
        assert client.type("verrater:notify:outbound") == b"stream"


async def test_a_live_subscriber_never_skips_what_retention_dropped_before_the_reader_saw_it(
    fresh_redis_url: str,
) -> None:
    """Whatever the reader manages to read between the trims, the subscriber gets everything in
    order, or learns that its cursor expired: never a silent gap."""
    notifications = RedisNotifications.from_url(fresh_redis_url, keep=5)
    subscription = notifications.subscribe("palice")
    pending = asyncio.ensure_future(anext(subscription))
    try:
        await wait_until(lambda: notifications.live_subscriptions == 1, "the subscriber is live")
        await notifications.publish([full("palice", version) for version in range(1, 301)])
        got: list[Notification] = []
        try:
            got.append((await pending).notification)
            while got[-1] != full("palice", 300):
                got += [r.notification for r in await take(subscription, 1)]
        except ServiceError as ended:
            assert ended.reason is Reason.CURSOR_EXPIRED
        assert got == [full("palice", version) for version in range(1, len(got) + 1)]
    finally:
        await close_subscriptions([subscription], [pending])
        await notifications.close()


async def test_a_redis_refusing_writes_for_want_of_a_replica_delays_notifications(
    persistent_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """`min-replicas-to-write` without the replica: every write is refused (NOREPLICAS), which
    is a store away for a while, not a notification refused for good: it waits, and is stored
    once the master takes writes again."""
    with redis.Redis.from_url(persistent_redis.url) as client:
        client.config_set("min-replicas-to-write", 1)
    notifications = RedisNotifications.from_url(persistent_redis.url)
    publisher = Publisher(notifications)
    try:
        (refused,) = await notifications.publish_each([full("palice", 1)])
        assert isinstance(refused, NotificationsUnavailable)
        publisher.send([full("palice", 2)])
        await wait_until(lambda: "publishing 1 notifications failed" in caplog.text, "a retry")
        with redis.Redis.from_url(persistent_redis.url) as client:
            client.config_set("min-replicas-to-write", 0)
        await publisher.drain()
        assert [r.notification for r in await notifications.read("palice", "0-0", 10)] == [
            full("palice", 2)
        ]
    finally:
        await publisher.close()
        await notifications.close()


async def test_a_seats_turns_keep_one_dedupe_record_told_once_each_never_an_older_one(
    notifications: RedisNotifications, fresh_redis_url: str
) -> None:
    """A game's turns for one seat are told once each, in any order of reports, and keep one
    dedupe record (the newest version told) rather than one per decision for 15 days."""

    def turn(version: int, seat: int = 1) -> Notification:
        return your_turn("palice", "g1", seat, version, at_ms=1, table_id="t1")

    told = await notifications.publish([turn(version) for version in range(1, 51)])
    assert all(received is not None for received in told)
    again = await notifications.publish([turn(50), turn(49), turn(10), turn(1)])
    assert again == [None, None, None, None]  # each told before: none stored twice
    assert (await notifications.publish([turn(51)]))[0] is not None
    assert (await notifications.publish([turn(3, seat=2)]))[0] is not None  # another seat
    with redis.Redis.from_url(fresh_redis_url) as client:
        once = sorted(k.decode() for k in client.scan_iter("verrater:{notify:palice}:once:*"))
        assert once == [
            "verrater:{notify:palice}:once:your_turn:g1:1",
            "verrater:{notify:palice}:once:your_turn:g1:2",
        ]
        record = notifications.dedupe_key("palice", "your_turn:g1:1:51")
        assert record == once[0] and client.get(record) == b"51"
        assert 14 * 24 * 3600 * 1000 < client.pttl(record) <= 15 * 24 * 3600 * 1000
        # A turn told by a release that kept a record per fact counts as told.
        client.set(notifications.keys.dedupe("palice", "your_turn:g1:1:60"), "1")
    assert (await notifications.publish([turn(60)]))[0] is None
    assert (await notifications.publish([turn(61)]))[0] is not None
    with redis.Redis.from_url(fresh_redis_url) as client:
        # Stored once each: turns 1-51 and 61 of seat 1, turn 3 of seat 2.
        assert client.xlen(notifications.inbox_key("palice")) == 53


async def test_a_publish_is_one_round_trip_and_survives_a_script_flush(tmp_path: Path) -> None:
    """Publishing sends the script by its digest in the one pipeline (no `SCRIPT EXISTS` before
    each one, as redis-py's script objects in a pipeline do); a server that lost its scripts
    (restarted, or `SCRIPT FLUSH`) refuses them, and they go again once it is loaded."""

    def script_calls(client: redis.Redis) -> int:
        stats = client.info("commandstats")
        return sum(int(stats[name]["calls"]) for name in stats if name.startswith("cmdstat_script"))

    with RedisServer(tmp_path) as server, redis.Redis.from_url(server.url) as client:
        notifications = RedisNotifications.from_url(server.url)
        try:
            await notifications.publish([full("palice", 1)])
            before = script_calls(client)
            for version in range(2, 12):
                await notifications.publish([full("palice", version), full("pbob", version)])
            assert script_calls(client) == before  # no SCRIPT EXISTS, no SCRIPT LOAD
            client.script_flush()
            published = await notifications.publish_each(
                [full("palice", 12), full("pbob", 12), full("palice", 12)]
            )
            kinds = [type(each).__name__ for each in published]
            assert kinds == ["Received", "Received", "NoneType"]  # the repeat is a duplicate
            got = await notifications.read("palice", "0-0", 100)
            assert [r.notification for r in got] == [full("palice", v) for v in range(1, 13)]
            assert len(await notifications.read("pbob", "0-0", 100)) == 11
        finally:
            await notifications.close()
