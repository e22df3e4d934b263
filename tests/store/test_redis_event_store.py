"""What only the Redis store must prove: stored format, shared live reader, replicas, outages."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

from services.eventstore import (
    GENESIS_HASH,
    EventStoreError,
    InMemoryEventStore,
    RedisEventStore,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
    open_store,
    verify_chain,
)
from services.eventstore.redis_streams import _HiredisPacking
from tests.support.redis_server import RedisServer
from tests.support.waiting import close_subscriptions, take, wait_until

GAME = "game-1"
StoreFactory = Callable[..., RedisEventStore]


@pytest.fixture
async def raw_redis(fresh_redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(fresh_redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def make_store(fresh_redis_url: str) -> AsyncIterator[StoreFactory]:
    """Stores on the test Redis, each with a unique client name, all closed after the test."""
    stores: list[RedisEventStore] = []

    def make(url: str = fresh_redis_url, **options: Any) -> RedisEventStore:
        options.setdefault("client_name", f"test-{uuid.uuid4().hex[:8]}")
        store = RedisEventStore.from_url(url, **options)
        stores.append(store)
        return store

    yield make
    for store in stores:
        await store.close()


async def test_each_game_is_one_hash_tagged_stream_whose_entry_ids_are_versions(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    events = await store.append(GAME, 0, [b"deal", b"bid"])

    entries = await raw_redis.xrange("verrater:{game-1}:events")

    assert entries == [
        (b"0-1", {b"p": b"deal", b"h": events[0].hash.encode(), b"ph": GENESIS_HASH.encode()}),
        (b"0-2", {b"p": b"bid", b"h": events[1].hash.encode(), b"ph": events[0].hash.encode()}),
    ]
    assert await raw_redis.keys("*") == [b"verrater:{game-1}:events"]


async def test_tampering_with_the_stored_stream_is_detected(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    await store.append(GAME, 0, [b"deal", b"bid", b"play", b"score"])
    key = "verrater:{game-1}:events"
    entries = await raw_redis.xrange(key)

    # Rewrite history with one payload changed, keeping ids and hashes.
    await raw_redis.delete(key)
    for entry_id, fields in entries:
        forged = dict(fields)
        if entry_id == b"0-2":
            forged[b"p"] = b"bid (forged)"
        await raw_redis.xadd(key, forged, id=entry_id)
    assert verify_chain(await store.read(GAME)) == 2

    # Drop an event: checked from a head an auditor kept, the tail is broken where it was.
    await raw_redis.xdel(key, "0-3")
    trusted_head = (2, entries[1][1][b"h"].decode())
    assert verify_chain(await store.read(GAME, after_version=2), after=trusted_head) == 3


async def test_entries_rewritten_in_another_field_order_read_the_same(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    written = await store.append(GAME, 0, [b"deal", b"bid", b"play"])
    key = "verrater:{game-1}:events"
    entries = await raw_redis.xrange(key)

    # A restore by other tools may write each entry's fields in any order.
    await raw_redis.delete(key)
    for entry_id, fields in entries:
        await raw_redis.xadd(key, dict(reversed(fields.items())), id=entry_id)

    assert await store.read(GAME) == written
    assert await make_store().head(GAME) == (3, written[-1].hash)


async def test_an_entry_lacking_a_field_is_refused_by_name(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    await store.append(GAME, 0, [b"deal"])
    await raw_redis.xadd("verrater:{game-1}:events", {"p": b"bid", "h": b"0" * 64}, id="0-2")

    with pytest.raises(EventStoreError, match="lacks field b'ph'"):
        await store.read(GAME)


async def test_an_append_with_a_warm_head_cache_is_one_round_trip(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    await store.append(GAME, 0, [b"deal"])
    sent: list[object] = []
    call = store._call
    execute = store.redis.execute_command

    async def counting_call(*args: Any) -> Any:
        sent.append(args[0])
        return await call(*args)

    async def counting_execute(*args: Any, **options: Any) -> Any:
        sent.append(args[0])
        return await execute(*args, **options)

    monkeypatch.setattr(store, "_call", counting_call)
    monkeypatch.setattr(store.redis, "execute_command", counting_execute)
    await store.append(GAME, 1, [b"bid", b"play"])

    assert sent == ["EVALSHA"]


def drop_connection_once(
    monkeypatch: pytest.MonkeyPatch, store: RedisEventStore, *, after_running: bool
) -> None:
    """Make the next append script call fail like a dropped connection, either before the
    script reached Redis or after it ran (the reply was lost)."""
    script = store._run_append_script
    dropped = False

    async def flaky(*args: Any, **options: Any) -> Any:
        nonlocal dropped
        if dropped:
            return await script(*args, **options)
        dropped = True
        if after_running:
            await script(*args, **options)
        raise RedisConnectionError("connection reset by peer")

    monkeypatch.setattr(store, "_run_append_script", flaky)


@pytest.mark.parametrize("after_running", [False, True], ids=["before-running", "reply-lost"])
async def test_an_append_retries_once_when_its_connection_drops(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch, after_running: bool
) -> None:
    store = make_store()
    await store.append(GAME, 0, [b"deal"])
    drop_connection_once(monkeypatch, store, after_running=after_running)

    written = await store.append(GAME, 1, [b"bid", b"play"])

    assert await store.read(GAME, after_version=1) == written
    assert verify_chain(await store.read(GAME)) is None


async def test_a_lost_reply_is_never_mistaken_for_someone_elses_write(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, rival = make_store(), make_store()
    await store.append(GAME, 0, [b"deal"])
    await rival.append(GAME, 1, [b"rival bid"])
    drop_connection_once(monkeypatch, store, after_running=True)

    with pytest.raises(VersionConflict):
        await store.append(GAME, 1, [b"bid"])


async def test_a_cold_process_reads_the_head_once_then_appends(make_store: StoreFactory) -> None:
    await make_store().append(GAME, 0, [b"deal"])
    cold = make_store()

    events = await cold.append(GAME, 1, [b"bid"])

    assert verify_chain(await cold.read(GAME)) is None
    assert events[0].version == 2


async def test_two_replicas_never_leave_a_gap_or_a_duplicate(make_store: StoreFactory) -> None:
    replicas = [make_store(), make_store()]
    commands_per_writer = 8

    async def writer(store: RedisEventStore, name: str) -> int:
        conflicts = 0
        for n in range(commands_per_writer):
            while True:
                version = await store.version(GAME)
                try:
                    await store.append(GAME, version, [f"{name} command {n}".encode()])
                    break
                except VersionConflict:
                    conflicts += 1
        return conflicts

    conflicts = await asyncio.gather(
        *(
            writer(store, f"replica {r} writer {w}")
            for r, store in enumerate(replicas)
            for w in range(6)
        )
    )

    log = await replicas[0].read(GAME)
    total = 2 * 6 * commands_per_writer
    assert [event.version for event in log] == list(range(1, total + 1))
    assert len({event.payload for event in log}) == total
    assert verify_chain(log) is None
    assert await replicas[1].read(GAME) == log
    assert sum(conflicts) > 0, "the replicas never actually raced"


async def test_a_stale_head_cache_causes_a_conflict_not_a_broken_chain(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    replica_a, replica_b = make_store(), make_store()
    await replica_a.append(GAME, 0, [b"deal"])  # replica A now caches (1, hash of "deal")
    # The game is recreated behind A's back (say, restored from another backup): same
    # version, different history. Only the hash tells A that its cache is stale.
    await raw_redis.delete("verrater:{game-1}:events")
    await replica_b.append(GAME, 0, [b"a different deal"])

    with pytest.raises(VersionConflict) as conflict:
        await replica_a.append(GAME, 1, [b"bid"])
    assert (conflict.value.expected, conflict.value.actual) == (1, 1)

    log = await replica_b.read(GAME)
    assert [event.payload for event in log] == [b"a different deal"]
    # A reloads and retries, as the game service does; the chain stays whole.
    await replica_a.append(GAME, 1, [b"bid"])
    assert verify_chain(await replica_b.read(GAME)) is None


async def test_a_replica_behind_gets_a_conflict_with_the_actual_version(
    make_store: StoreFactory,
) -> None:
    replica_a, replica_b = make_store(), make_store()
    await replica_a.append(GAME, 0, [b"deal"])
    await replica_b.append(GAME, 1, [b"bid", b"play"])

    with pytest.raises(VersionConflict) as conflict:
        await replica_a.append(GAME, 1, [b"stale bid"])

    assert conflict.value.actual == 3
    await replica_a.append(GAME, 3, [b"score"])
    assert verify_chain(await replica_a.read(GAME)) is None


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


async def wait_for_blocked_reader(admin: aioredis.Redis, store: RedisEventStore) -> None:
    """Wait until the store's hub connection is blocked inside ``XREAD`` on the server."""
    hub_name = f"{store.client_name}-hub"
    async with asyncio.timeout(10):
        while not any(
            client["name"] == hub_name and "b" in client["flags"]
            for client in await admin.client_list()
        ):
            await asyncio.sleep(0.01)


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
        await wait_for_blocked_reader(raw_redis, store)

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

    async def unblock_arrives_too_early() -> None:
        """The race this test pins down: CLIENT UNBLOCK reaching Redis before the XREAD."""

    monkeypatch.setattr(store._hub, "interrupt_block", unblock_arrives_too_early)
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
        await wait_for_blocked_reader(raw_redis, store)  # XREAD from 0-5, for a minute
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


async def test_commands_are_packed_by_hiredis_byte_for_byte_as_redis_py_packs_them(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    packing = store.redis.connection_pool.connection_class
    assert issubclass(packing, _HiredisPacking)
    assert issubclass(store._reader.connection_pool.connection_class, _HiredisPacking)
    command = ("EVALSHA", "ab12", 1, "verrater:{g-1}:events", 7, b"\x00\xffpayload", "0" * 64)
    assert b"".join(packing().pack_command(*command)) == b"".join(
        Connection().pack_command(*command)
    )


async def test_concurrent_racing_appends_each_get_their_own_answer(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    games = [f"game-{n}" for n in range(40)]
    await asyncio.gather(*[store.append(game, 0, [b"deal"]) for game in games])
    await raw_redis.script_flush()  # every racer finds the script forgotten and reloads it
    # Two writers race on every game: one wins, one conflicts.
    results = await asyncio.gather(
        *[store.append(game, 1, [f"{who} bid".encode()]) for game in games for who in "ab"],
        return_exceptions=True,
    )
    for game, pair in zip(games, zip(results[::2], results[1::2], strict=True), strict=True):
        winners = [r for r in pair if isinstance(r, list)]
        assert len(winners) == 1, pair
        assert sum(isinstance(r, VersionConflict) for r in pair) == 1, pair
        stored = await store.read(game)
        assert [event.version for event in stored] == [1, 2]
        assert stored[1].payload == winners[0][0].payload
        assert verify_chain(stored) is None


async def test_more_appends_at_once_than_connections_wait_for_one_instead_of_failing(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    # redis-py's asyncio pool raises MaxConnectionsError when every connection is in use: a
    # burst of commands across many games must queue for a connection, not fail.
    store = make_store(max_connections=2)
    games = [f"game-{n}" for n in range(40)]
    await asyncio.gather(*[store.append(game, 0, [b"deal", b"first turn"]) for game in games])
    for game in games:
        assert [event.version for event in await store.read(game)] == [1, 2]
    names = [c["name"] for c in await raw_redis.client_list() if c["name"] == store.client_name]
    assert 1 <= len(names) <= 2


async def test_an_append_reloads_its_script_after_redis_forgot_it(
    make_store: StoreFactory, raw_redis: aioredis.Redis
) -> None:
    store = make_store()
    await store.append(GAME, 0, [b"event 1"])
    await raw_redis.script_flush()  # what a restart or a failover does to the script cache
    await store.append(GAME, 1, [b"event 2", b"event 3"])
    stored = await store.read(GAME)
    assert [event.payload for event in stored] == [b"event 1", b"event 2", b"event 3"]
    assert verify_chain(stored) is None


async def test_a_subscriber_that_leaves_while_the_reader_connects_breaks_nothing(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    # Hold the reader's first request (it asks Redis for its connection's id) in flight.
    connecting = asyncio.Event()
    release = asyncio.Event()
    ask_id = store._reader.client_id

    async def slow_client_id() -> int:
        connecting.set()
        await release.wait()
        return await ask_id()

    monkeypatch.setattr(store._reader, "client_id", slow_client_id)
    early = store.subscribe(GAME)
    pending = asyncio.ensure_future(anext(early))
    await asyncio.wait_for(connecting.wait(), timeout=10)
    pending.cancel()
    await close_subscriptions([early], [pending])  # the reader is left with nothing to read
    release.set()
    await asyncio.sleep(0.2)
    hub = store.hub_task
    assert hub is not None and not hub.done(), "the reader failed on an empty read"
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
        await wait_for_blocked_reader(admin, store)

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


async def test_an_append_while_redis_is_down_is_retryable(persistent_redis: RedisServer) -> None:
    store = RedisEventStore.from_url(persistent_redis.url)
    try:
        await store.append(GAME, 0, [b"deal"])
        persistent_redis.stop()

        with pytest.raises(StoreUnavailable):
            await store.append(GAME, 1, [b"bid"])
        with pytest.raises(StoreUnavailable):
            await store.read(GAME)

        persistent_redis.start()
        await store.append(GAME, 1, [b"bid"])
        assert [event.payload for event in await store.read(GAME)] == [b"deal", b"bid"]
    finally:
        await store.close()


async def test_open_store_picks_the_implementation_from_the_url(fresh_redis_url: str) -> None:
    assert isinstance(open_store(None), InMemoryEventStore)
    assert isinstance(open_store("memory://"), InMemoryEventStore)
    async with open_store(fresh_redis_url) as store:
        assert isinstance(store, RedisEventStore)
    with pytest.raises(ValueError, match="unsupported"):
        open_store("postgres://localhost/games")


def test_a_decoding_client_is_refused(fresh_redis_url: str) -> None:
    with pytest.raises(ValueError, match="decode_responses"):
        RedisEventStore.from_url(f"{fresh_redis_url}?decode_responses=true")
