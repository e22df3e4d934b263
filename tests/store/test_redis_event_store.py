"""What only the Redis store must prove: stored format, appends, replicas, outages.

Its live reader has tests of its own (test_redis_live_tail.py), and so has its wire
(test_redis_wire.py).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from services.eventstore import (
    GENESIS_HASH,
    EventStoreError,
    InMemoryEventStore,
    RedisEventStore,
    StoreUnavailable,
    VersionConflict,
    open_store,
    verify_chain,
)
from services.eventstore.redis.store import APPEND_SCRIPT
from tests.store.redis_stores import GAME, StoreFactory
from tests.support.redis_server import RedisServer


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
    call = store._wire.call
    execute = store.redis.execute_command

    async def counting_call(*args: Any) -> Any:
        sent.append(args[0])
        return await call(*args)

    async def counting_execute(*args: Any, **options: Any) -> Any:
        sent.append(args[0])
        return await execute(*args, **options)

    monkeypatch.setattr(store._wire, "call", counting_call)
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


def test_the_append_script_chains_a_new_game_onto_the_genesis_hash() -> None:
    # Lua cannot import GENESIS_HASH: the script spells it out, and must spell it the same.
    literal = re.search(rb"local GENESIS_HASH = '([0-9a-f]*)'", APPEND_SCRIPT)
    assert literal is not None, "append.lua no longer names GENESIS_HASH as a literal"
    assert literal[1].decode() == GENESIS_HASH
