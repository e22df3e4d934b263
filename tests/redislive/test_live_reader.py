"""The one Redis live reader (services/redislive) on a standalone Redis: subscriptions from a
cursor on many keys over one connection, a resync instead of unbounded queues, unsubscribing,
failures surfaced, and a Redis restart that loses nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from services.devtools.redis_server import RedisServer
from services.redislive import Batch, LiveReader, ReaderClosed, ReaderFailed, Resync
from tests.redislive.following import Follower
from tests.support.waiting import wait_until, wait_until_true

NAME = "live-test"


@pytest.fixture
async def client(fresh_redis_url: str) -> AsyncIterator[Redis]:
    redis = Redis.from_url(fresh_redis_url)
    yield redis
    await redis.aclose()


@pytest.fixture
async def reader(fresh_redis_url: str, client: Redis) -> AsyncIterator[LiveReader]:
    live = LiveReader.on_client(fresh_redis_url, client, client_name=NAME)
    yield live
    await live.close()


async def _reader_connections(client: Redis, name: str = NAME) -> list[dict[str, str]]:
    return [c for c in await client.client_list() if c["name"] == f"{name}-hub"]


async def _blocked(client: Redis) -> bool:
    return any("b" in c["flags"] for c in await _reader_connections(client))


async def test_a_subscription_from_a_cursor_hands_what_follows_it_once_in_order(
    reader: LiveReader, client: Redis
) -> None:
    first = await client.xadd("chat", {"v": b"1"})
    await client.xadd("chat", {"v": b"2"})
    subscription = await reader.subscribe("chat", first)
    follower = Follower(client, "chat", subscription, first)
    assert await follower.take(1) == [b"2"]  # what was already there after the cursor
    for value in (b"3", b"4", b"5"):
        await client.xadd("chat", {"v": value})
    assert await follower.take(4) == [b"2", b"3", b"4", b"5"]
    assert follower.resyncs == []
    subscription.close()
    await wait_until(lambda: reader.streams == 0, "the reader forgets the stream")


async def test_many_keys_and_subscribers_share_one_connection_and_one_task(
    reader: LiveReader, client: Redis
) -> None:
    keys = [f"room-{n}" for n in range(40)]
    followers = [
        Follower(client, key, await reader.subscribe(key, b"0-0"), b"0-0")
        for key in keys
        for _ in range(3)
    ]
    assert reader.subscriber_count == 120 and reader.streams == 40
    for key in keys:
        await client.xadd(key, {"v": key.encode()})
    for follower in followers:
        assert await follower.take(1) == [follower.key.encode()]
    assert len(await _reader_connections(client)) == 1
    tasks = [task for task in asyncio.all_tasks() if task.get_name() == f"{NAME}-hub"]
    assert tasks == [reader.task]
    for follower in followers:
        follower.subscription.close()
    assert reader.subscriber_count == 0 and reader.streams == 0


async def test_a_new_key_wakes_a_read_blocked_for_a_minute(
    fresh_redis_url: str, client: Redis
) -> None:
    reader = LiveReader.on_client(fresh_redis_url, client, client_name=NAME, block_ms=60_000)
    try:
        await reader.subscribe("first", b"0-0")
        await wait_until_true(lambda: _blocked(client), "the reader blocks on the first key")
        second = Follower(client, "second", await reader.subscribe("second", b"0-0"), b"0-0")
        await client.xadd("second", {"v": b"news"})
        assert await second.take(1, timeout=20) == [b"news"]
    finally:
        await reader.close()


async def test_a_slow_subscriber_is_told_to_resync_and_loses_nothing(
    fresh_redis_url: str, client: Redis
) -> None:
    reader = LiveReader.on_client(fresh_redis_url, client, client_name=NAME, limit=3)
    try:
        slow = Follower(client, "s", await reader.subscribe("s", b"0-0"), b"0-0")
        fast = Follower(client, "s", await reader.subscribe("s", b"0-0"), b"0-0")
        for n in range(1, 11):  # one by one, each taken by the fast one before the next
            await client.xadd("s", {"v": b"%d" % n})
            await fast.take(n)
        assert fast.resyncs == []
        assert slow.subscription.waiting <= 3, "the slow queue is bounded"
        assert await slow.take(10) == [b"%d" % n for n in range(1, 11)]
        assert slow.resyncs == ["overflow"]
    finally:
        await reader.close()


async def test_a_subscriber_joining_behind_the_reader_is_told_to_resync(
    reader: LiveReader, client: Redis
) -> None:
    first = Follower(client, "k", await reader.subscribe("k", b"0-0"), b"0-0")
    for value in (b"a", b"b"):
        await client.xadd("k", {"v": value})
    await first.take(2)
    late = Follower(client, "k", await reader.subscribe("k", b"0-0"), b"0-0")
    await client.xadd("k", {"v": b"c"})
    assert await late.take(3) == [b"a", b"b", b"c"]
    assert late.resyncs == ["behind"]


async def test_unsubscribing_stops_reading_the_key(reader: LiveReader, client: Redis) -> None:
    kept = Follower(client, "kept", await reader.subscribe("kept", b"0-0"), b"0-0")
    left = await reader.subscribe("left", b"0-0")
    await client.xadd("kept", {"v": b"1"})
    await kept.take(1)
    left.close()
    with pytest.raises(ReaderClosed):
        await left.next()
    assert reader.streams == 1
    async with client.monitor() as monitor:
        await client.xadd("kept", {"v": b"2"})  # the read returns, the next one is issued
        xreads: list[str] = []
        async with asyncio.timeout(30):
            while len(xreads) < 2:
                command = (await monitor.next_command())["command"]
                if command.upper().startswith("XREAD"):
                    xreads.append(command)
    await kept.take(2)
    assert all("kept" in command and "left" not in command for command in xreads), xreads


async def test_a_consumer_cut_off_by_its_user_ends_with_the_users_error(
    reader: LiveReader, client: Redis
) -> None:
    class TooSlow(Exception):
        pass

    arrived: list[int] = []

    def count(n: int) -> BaseException | None:
        arrived.append(n)
        return TooSlow() if sum(arrived) >= 3 else None

    cut = await reader.subscribe("c", b"0-0", on_arrival=count)
    for n in range(3):
        await client.xadd("c", {"v": b"%d" % n})
    await wait_until(lambda: reader.streams == 0, "the cut subscriber leaves the reader")
    with pytest.raises(TooSlow):
        while True:
            assert isinstance(await cut.next(), Batch)


async def test_a_key_of_another_type_fails_every_subscription_and_a_new_one_starts_afresh(
    fresh_redis_url: str, client: Redis
) -> None:
    reader = LiveReader.on_client(fresh_redis_url, client, client_name=NAME, block_ms=20)
    try:
        good = await reader.subscribe("good", b"0-0")
        await reader.subscribe("bad", b"0-0")
        await client.set("bad", b"not a stream")
        with pytest.raises(ReaderFailed, match="WRONGTYPE"):
            await good.next()
        assert reader.subscriber_count == 0
        await client.delete("bad")
        again = Follower(client, "good", await reader.subscribe("good", b"0-0"), b"0-0")
        await client.xadd("good", {"v": b"fine"})
        assert await again.take(1) == [b"fine"]
    finally:
        await reader.close()


async def test_a_redis_crash_and_restart_costs_latency_not_entries(
    persistent_redis: RedisServer,
) -> None:
    client = Redis.from_url(persistent_redis.url)
    reader = LiveReader.on_client(persistent_redis.url, client, client_name=NAME)
    told = LiveReader.on_client(persistent_redis.url, client, client_name="told")
    try:
        follower = Follower(client, "log", await reader.subscribe("log", b"0-0"), b"0-0")
        watcher = await told.subscribe("log", b"0-0", resync_on_reconnect=True)
        await client.xadd("log", {"v": b"before"})
        assert await follower.take(1) == [b"before"]
        assert isinstance(await watcher.next(), Batch)
        await client.execute_command("BGREWRITEAOF")  # the entry survives the crash
        await wait_until_true(
            lambda: _rewritten(client), "the append-only file holds the entry", timeout=30
        )
        await wait_until_true(lambda: _blocked(client), "the reader blocks again")

        persistent_redis.restart(crash=True)
        for value in (b"after 1", b"after 2"):
            await _retrying(lambda value=value: client.xadd("log", {"v": value}))
        assert await follower.take(3, timeout=60) == [b"before", b"after 1", b"after 2"]
        assert follower.resyncs == []
        async with asyncio.timeout(60):
            while not isinstance(item := await watcher.next(), Resync):
                pass
        assert item.why == "reconnected"
    finally:
        await reader.close()
        await told.close()
        await client.aclose()


async def _rewritten(client: Redis) -> bool:
    info = await client.info("persistence")
    return not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]


async def _retrying(call: object) -> None:
    """``call()`` until Redis takes it (it may still be loading)."""
    assert callable(call)
    async with asyncio.timeout(60):
        while True:
            try:
                await call()
                return
            except Exception:
                await asyncio.sleep(0.05)
