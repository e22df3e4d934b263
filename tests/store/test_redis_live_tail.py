"""The Redis store's live reader: one connection and one task for every subscriber of a store,
woken for new games, spacing its reads under load, surviving bad keys and Redis restarts."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from services.eventstore import (
    EventStoreError,
    RedisEventStore,
    StoredEvent,
    verify_chain,
)
from tests.store.redis_stores import GAME, StoreFactory, wait_for_blocked_reader
from tests.support.redis_server import RedisServer
from tests.support.waiting import close_subscriptions, take, wait_until


async def test_many_subscribers_share_one_reader_connection(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    games = [f"table-{n}" for n in range(8)]
    subscriptions = [store.subscribe(game) for game in games for _ in range(5)]
    pending = [asyncio.ensure_future(take(subscription, 1)) for subscription in subscriptions]
    try:
        await wait_until(lambda: store.live_subscriptions == 40, "all 40 subscribers are live")
        for game in games:
            await store.append(game, 0, [f"{game} setup".encode()])
        received = await asyncio.gather(*pending)
        assert [events[0].game_id for events in received] == [g for g in games for _ in range(5)]

        hub_name = f"{store.client_name}-hub"
        ours = [c for c in await raw_redis.client_list() if c["name"].startswith(store.client_name)]
        assert [c["name"] for c in ours].count(hub_name) == 1
        assert [c["name"] for c in ours if c["cmd"] == "xread"] == [hub_name]
        hub_tasks = [task for task in asyncio.all_tasks() if task.get_name() == hub_name]
        assert hub_tasks == [store.hub_task]
    finally:
        await close_subscriptions(subscriptions, pending)
    assert store.live_subscriptions == 0


async def test_a_new_game_wakes_the_blocked_reader_at_once(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    # With a one-minute block, only CLIENT UNBLOCK can deliver the second game's event in time.
    store = make_store(block_ms=60_000)
    first, second = store.subscribe("table-1"), store.subscribe("table-2")
    waiting_first = asyncio.ensure_future(take(first, 1, timeout=30))
    waiting = [waiting_first]
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the first subscriber is live")
        await wait_for_blocked_reader(raw_redis, store.client_name)

        waiting_second = asyncio.ensure_future(take(second, 1, timeout=10))
        waiting.append(waiting_second)
        await wait_until(lambda: store.live_subscriptions == 2, "the second subscriber is live")
        await store.append("table-2", 0, [b"setup"])

        assert (await waiting_second)[0].game_id == "table-2"
        await store.append("table-1", 0, [b"setup"])
        assert (await waiting_first)[0].game_id == "table-1"
    finally:
        await close_subscriptions([first, second], waiting)


async def test_a_rejoin_answered_by_a_stale_pending_read_leaves_no_gap(
    make_store: StoreFactory, raw_redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(block_ms=60_000)

    async def unblock_arrives_too_early(key: bytes | None = None) -> None:
        """The race this test pins down: CLIENT UNBLOCK reaching Redis before the XREAD."""

    monkeypatch.setattr(store._reader, "interrupt", unblock_arrives_too_early)
    await store.append(GAME, 0, [b"1", b"2", b"3"])
    late = store.subscribe(GAME)
    assert [event.version for event in await take(late, 3)] == [1, 2, 3]

    watcher = store.subscribe(GAME, after_version=3)
    watching = asyncio.ensure_future(take(watcher, 2))
    late_sees: list[asyncio.Future[list[StoredEvent]]] = []
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the watcher is live")
        await store.append(GAME, 3, [b"4", b"5"])
        assert [event.version for event in await watching] == [4, 5]
        await wait_for_blocked_reader(raw_redis, store.client_name)  # XREAD from 0-5, for a minute
        await close_subscriptions([watcher], [watching])  # the game leaves the hub

        late_sees.append(asyncio.ensure_future(take(late, 3)))  # rejoins at version 3
        await wait_until(lambda: store.live_subscriptions == 1, "the late subscriber is live")
        await store.append(GAME, 5, [b"6"])  # answers the stale XREAD from 0-5 with 6 only

        assert [event.version for event in await late_sees[0]] == [4, 5, 6]
    finally:
        await close_subscriptions([late, watcher], late_sees)


async def test_a_slow_subscriber_resyncs_instead_of_buffering_without_bound(
    make_store: StoreFactory,
) -> None:
    # Reads not spaced out, so the fast subscriber gets each event before the next arrives.
    store = make_store(inbox_limit=2, tail_interval_ms=0)
    slow, fast = store.subscribe(GAME), store.subscribe(GAME)
    waiting = asyncio.ensure_future(take(slow, 1))
    fast_sees = asyncio.ensure_future(take(fast, 11))
    try:
        await wait_until(lambda: store.live_subscriptions == 2, "both subscribers are live")
        await store.append(GAME, 0, [b"event 1"])
        assert [event.version for event in await waiting] == [1]

        # The slow consumer stops iterating while ten more events arrive one by one.
        for version in range(1, 11):
            await store.append(GAME, version, [f"event {version + 1}".encode()])
        assert [event.version for event in await fast_sees] == list(range(1, 12))

        caught_up = await take(slow, 10)
        assert [event.version for event in caught_up] == list(range(2, 12))
        assert store.resyncs == 1, "the slow inbox should have overflowed, not grown"
    finally:
        await close_subscriptions([slow, fast], [waiting, fast_sees])


async def test_a_subscriber_that_leaves_while_the_reader_connects_breaks_nothing(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    # Hold the reader's first request (it asks Redis for its connection's id) in flight.
    connecting = asyncio.Event()
    release = asyncio.Event()
    ask_id = store._wire.reader.client_id

    async def slow_client_id() -> int:
        connecting.set()
        await release.wait()
        return await ask_id()

    monkeypatch.setattr(store._wire.reader, "client_id", slow_client_id)
    early = store.subscribe(GAME)
    pending = asyncio.ensure_future(anext(early))
    await asyncio.wait_for(connecting.wait(), timeout=10)
    pending.cancel()
    await close_subscriptions([early], [pending])  # the reader is left with nothing to read
    hub = store.hub_task
    assert hub is not None
    release.set()
    # The reader finishes the round it was connecting in, with nobody left to read for: it
    # either counts that round or fails (it used to, sending an XREAD with no streams).
    await wait_until(
        lambda: store._reader.rounds >= 1 or hub.done(), "the reader has finished its first round"
    )
    assert not hub.done(), "the reader failed on an empty read"
    late = store.subscribe(GAME)
    seen = asyncio.ensure_future(take(late, 1))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the late subscriber is live")
        await store.append(GAME, 0, [b"event 1"])
        assert [event.version for event in await seen] == [1]
    finally:
        await close_subscriptions([late], [seen])


async def test_under_load_the_live_reader_spaces_its_reads_and_loses_nothing(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store(tail_interval_ms=1000)
    watcher = store.subscribe(GAME)
    seen = asyncio.ensure_future(take(watcher, 30))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the watcher is live")
        await store.append(GAME, 0, [b"event 1"])  # its read returns: the next waits 1 s
        reads_before = await _xread_calls(raw_redis)
        for version in range(1, 30):
            await store.append(GAME, version, [f"event {version + 1}".encode()])
        assert [event.version for event in await seen] == list(range(1, 31))
        # 29 appends within one spacing interval reach the watcher in one or two reads, not
        # one read each.
        assert await _xread_calls(raw_redis) - reads_before <= 3
    finally:
        await close_subscriptions([watcher], [seen])


async def _xread_calls(redis: aioredis.Redis) -> int:
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_xread", {}).get("calls", 0))


async def test_a_broken_stream_fails_live_subscribers_instead_of_hanging_them(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    watcher = store.subscribe("table-1")
    watching = asyncio.ensure_future(take(watcher, 1))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the watcher is live")
        await raw_redis.set("verrater:{table-2}:events", b"not a stream")
        newcomer = store.subscribe("table-2", after_version=0)
        with pytest.raises(EventStoreError, match="WRONGTYPE"):  # its catch-up read fails
            await take(newcomer, 1)
    finally:
        await close_subscriptions([watcher], [watching])
    await raw_redis.delete("verrater:{table-2}:events")

    # A bad key that appears while the hub is reading it fails every live subscriber (the
    # short block makes the reader re-issue its XREAD, which then fails, promptly).
    store = make_store(block_ms=20)
    subscriptions = [store.subscribe("table-3"), store.subscribe("table-4")]
    waiting = [asyncio.ensure_future(take(subscription, 1)) for subscription in subscriptions]
    try:
        await wait_until(lambda: store.live_subscriptions == 2, "both subscribers are live")
        await raw_redis.set("verrater:{table-4}:events", b"not a stream")
        for failed in waiting:
            with pytest.raises(EventStoreError, match="live event reader failed"):
                await failed
        assert store.live_subscriptions == 0
    finally:
        await close_subscriptions(subscriptions, waiting)

    # Once the key is repaired, subscribing starts a fresh reader.
    await raw_redis.delete("verrater:{table-4}:events")
    again = store.subscribe("table-4")
    pending = asyncio.ensure_future(take(again, 1))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the new subscriber is live")
        await store.append("table-4", 0, [b"setup"])
        assert [event.version for event in await pending] == [1]
    finally:
        await close_subscriptions([again], [pending])


async def test_a_subscriber_survives_a_redis_crash_and_restart(
    persistent_redis: RedisServer,
) -> None:
    store = RedisEventStore.from_url(persistent_redis.url, client_name="survivor")
    admin = aioredis.Redis.from_url(persistent_redis.url)
    subscription = store.subscribe(GAME)
    await store.append(GAME, 0, [b"deal", b"bid"])
    pending = asyncio.ensure_future(take(subscription, 4, timeout=30))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is live")
        await wait_for_blocked_reader(admin, store.client_name)

        persistent_redis.restart(crash=True)
        await store.append(GAME, 2, [b"play"])
        await store.append(GAME, 3, [b"score"])

        log = await store.read(GAME)
        assert await pending == log
        assert [event.version for event in log] == [1, 2, 3, 4]
        assert verify_chain(log) is None
    finally:
        await close_subscriptions([subscription], [pending])
        await store.close()
        await admin.aclose()
