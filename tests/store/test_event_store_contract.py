"""The event store contract: every implementation must pass every test here unchanged."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import (
    GENESIS_HASH,
    EventStore,
    StoreClosed,
    StoredEvent,
    VersionConflict,
    chain_hash,
    verify_chain,
)
from tests.support.waiting import close_subscriptions, take, wait_until

GAME = "game-1"


def payloads(*names: str) -> list[bytes]:
    return [name.encode() for name in names]


def versions(events: list[StoredEvent]) -> list[int]:
    return [event.version for event in events]


async def test_appended_events_read_back_in_order(store: EventStore) -> None:
    written = await store.append(GAME, 0, payloads("deal", "bid"))
    written += await store.append(GAME, 2, payloads("play"))

    stored = await store.read(GAME)

    assert stored == written
    assert [event.payload for event in stored] == payloads("deal", "bid", "play")
    assert versions(stored) == [1, 2, 3]
    assert all(event.game_id == GAME for event in stored)


async def test_unknown_game_reads_as_empty_at_version_zero(store: EventStore) -> None:
    assert await store.read("nobody-played-this") == []
    assert await store.version("nobody-played-this") == 0
    assert await store.head("nobody-played-this") == (0, GENESIS_HASH)


async def test_version_and_head_follow_the_last_event(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal"))
    last = (await store.append(GAME, 1, payloads("bid", "pass")))[-1]

    assert await store.version(GAME) == 3
    assert await store.head(GAME) == (3, last.hash)


async def test_games_are_independent_logs(store: EventStore) -> None:
    await store.append("game-a", 0, payloads("a1"))
    await store.append("game-b", 0, payloads("b1", "b2"))

    assert versions(await store.read("game-a")) == [1]
    assert versions(await store.read("game-b")) == [1, 2]


@pytest.mark.parametrize("stale_version", [0, 1, 3, 7])
async def test_wrong_expected_version_conflicts_and_writes_nothing(
    store: EventStore, stale_version: int
) -> None:
    before = await store.append(GAME, 0, payloads("deal", "bid"))

    with pytest.raises(VersionConflict) as conflict:
        await store.append(GAME, stale_version, payloads("intruder"))

    assert (conflict.value.game_id, conflict.value.expected, conflict.value.actual) == (
        GAME,
        stale_version,
        2,
    )
    assert await store.read(GAME) == before


async def test_creating_a_game_that_exists_conflicts(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("setup"))

    with pytest.raises(VersionConflict):
        await store.append(GAME, 0, payloads("second setup"))

    assert versions(await store.read(GAME)) == [1]


async def test_repeating_an_append_that_succeeded_conflicts(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal", "bid"))

    with pytest.raises(VersionConflict):
        await store.append(GAME, 0, payloads("deal", "bid"))

    assert versions(await store.read(GAME)) == [1, 2]


async def test_of_concurrent_appenders_at_one_version_exactly_one_wins(store: EventStore) -> None:
    for round_version in range(5):
        attempts = [
            store.append(GAME, round_version, [f"round {round_version} writer {writer}".encode()])
            for writer in range(20)
        ]
        outcomes = await asyncio.gather(*attempts, return_exceptions=True)

        winners = [outcome for outcome in outcomes if isinstance(outcome, list)]
        assert len(winners) == 1
        assert all(isinstance(o, VersionConflict) for o in outcomes if o is not winners[0])

    log = await store.read(GAME)
    assert versions(log) == [1, 2, 3, 4, 5]
    assert verify_chain(log) is None


async def test_concurrent_multi_event_appends_never_interleave(store: EventStore) -> None:
    attempts = [
        store.append(GAME, 0, [f"writer {writer} event {n}".encode() for n in range(3)])
        for writer in range(20)
    ]
    outcomes = await asyncio.gather(*attempts, return_exceptions=True)

    winners = [outcome for outcome in outcomes if isinstance(outcome, list)]
    assert len(winners) == 1
    assert await store.read(GAME) == winners[0]


async def test_a_rejected_multi_event_append_writes_none_of_its_events(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal"))

    with pytest.raises(VersionConflict):
        await store.append(GAME, 0, payloads("a", "b", "c"))

    assert versions(await store.read(GAME)) == [1]
    assert versions(await store.append(GAME, 1, payloads("a", "b", "c"))) == [2, 3, 4]


async def test_every_event_links_to_its_predecessor(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal"))
    await store.append(GAME, 1, payloads("bid", "play"))

    log = await store.read(GAME)

    assert log[0].prev_hash == GENESIS_HASH
    for previous, event in zip([None, *log], log, strict=False):
        expected_prev = GENESIS_HASH if previous is None else previous.hash
        assert event.prev_hash == expected_prev
        assert event.hash == chain_hash(expected_prev, event.payload)
    assert verify_chain(log) is None


async def test_verify_chain_detects_an_edited_payload(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal", "bid", "play", "score"))
    log = await store.read(GAME)

    log[2] = log[2]._replace(payload=b"play (edited)")

    assert verify_chain(log) == 3


async def test_verify_chain_detects_a_removed_event(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal", "bid", "play", "score"))
    log = await store.read(GAME)

    del log[1]

    assert verify_chain(log) == 2


async def test_read_returns_events_after_a_version_up_to_a_limit(store: EventStore) -> None:
    await store.append(GAME, 0, [f"event {n}".encode() for n in range(1, 8)])

    assert versions(await store.read(GAME, after_version=4)) == [5, 6, 7]
    assert versions(await store.read(GAME, after_version=2, limit=3)) == [3, 4, 5]
    assert versions(await store.read(GAME, after_version=6, limit=10)) == [7]
    assert await store.read(GAME, after_version=7) == []
    assert await store.read(GAME, after_version=50) == []


async def test_a_tail_read_verifies_against_the_trusted_head(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal", "bid"))
    trusted = await store.head(GAME)
    await store.append(GAME, 2, payloads("play", "score"))

    tail = await store.read(GAME, after_version=trusted[0])

    assert verify_chain(tail, after=trusted) is None
    assert verify_chain(tail) == 1


async def test_subscribe_catches_up_then_receives_live_events(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal", "bid"))
    subscription = store.subscribe(GAME)
    pending: list[asyncio.Future[list[StoredEvent]]] = []
    try:
        assert versions(await take(subscription, 2)) == [1, 2]

        pending.append(asyncio.ensure_future(take(subscription, 3)))
        await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is live")
        await store.append(GAME, 2, payloads("play"))
        await store.append(GAME, 3, payloads("trick", "score"))

        live = await pending[0]
        assert versions(live) == [3, 4, 5]
        assert live == await store.read(GAME, after_version=2)
    finally:
        await close_subscriptions([subscription], pending)


@pytest.mark.parametrize("after", [0, 1, 3, 5])
async def test_subscribe_resumes_after_version_n(store: EventStore, after: int) -> None:
    await store.append(GAME, 0, [f"event {n}".encode() for n in range(1, 6)])
    subscription = store.subscribe(GAME, after_version=after)
    pending: list[asyncio.Future[list[StoredEvent]]] = []
    try:
        caught_up = await take(subscription, 5 - after)
        pending.append(asyncio.ensure_future(take(subscription, 1)))
        await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is live")
        await store.append(GAME, 5, payloads("event 6"))

        assert versions(caught_up + await pending[0]) == list(range(after + 1, 7))
    finally:
        await close_subscriptions([subscription], pending)


async def test_a_subscription_waits_for_a_game_that_does_not_exist_yet(
    store: EventStore,
) -> None:
    subscription = store.subscribe("future-game")
    pending = asyncio.ensure_future(take(subscription, 2))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is live")
        await store.append("future-game", 0, payloads("setup", "deal"))

        assert versions(await pending) == [1, 2]
    finally:
        await close_subscriptions([subscription], [pending])


async def test_many_subscribers_each_receive_every_event_exactly_once(store: EventStore) -> None:
    games = [f"table-{n}" for n in range(3)]
    for game in games:
        await store.append(game, 0, payloads("setup"))
    starts = [0, 1]
    subscriptions = {
        (game, start, copy): store.subscribe(game, after_version=start)
        for game in games
        for start in starts
        for copy in range(4)
    }

    async def collect(key: tuple[str, int, int]) -> list[int]:
        _game, start, _copy = key
        return versions(await take(subscriptions[key], 20 - start))

    async def play(game: str) -> None:
        for version in range(1, 20):
            await store.append(game, version, [f"{game} move {version}".encode()])

    collectors = [asyncio.ensure_future(collect(key)) for key in subscriptions]
    try:
        await asyncio.gather(*(play(game) for game in games))
        received = await asyncio.gather(*collectors)
    finally:
        await close_subscriptions(subscriptions.values(), collectors)

    for (_game, start, _copy), got in zip(subscriptions, received, strict=True):
        assert got == list(range(start + 1, 21))


async def test_a_subscriber_that_paused_during_catch_up_misses_nothing(store: EventStore) -> None:
    # The pause lets the shared live reader (Redis) move past the subscriber's catch-up read.
    watcher, late = store.subscribe(GAME), store.subscribe(GAME)
    watching = asyncio.ensure_future(take(watcher, 5))
    try:
        await wait_until(lambda: store.live_subscriptions == 1, "the watcher is live")
        await store.append(GAME, 0, payloads("deal", "bid", "play"))
        assert versions(await take(late, 3)) == [1, 2, 3]

        await store.append(GAME, 3, payloads("trick", "score"))
        assert versions(await watching) == [1, 2, 3, 4, 5]

        assert versions(await take(late, 2)) == [4, 5]
    finally:
        await close_subscriptions([watcher, late], [watching])


async def test_breaking_out_of_a_subscription_releases_it(store: EventStore) -> None:
    await store.append(GAME, 0, payloads("deal"))
    live = asyncio.Event()

    async def watch_one_live_event() -> int:
        async for event in store.subscribe(GAME):
            if event.version == 2:
                return event.version
            live.set()
        raise AssertionError("subscriptions never end on their own")

    watcher = asyncio.ensure_future(watch_one_live_event())
    await live.wait()
    await wait_until(lambda: store.live_subscriptions == 1, "the watcher is live")
    await store.append(GAME, 1, payloads("bid"))

    assert await asyncio.wait_for(watcher, 10) == 2
    # Leaving ``async for`` early closes the generator through the loop's async-generator
    # finalizer, one scheduling step later (``contextlib.aclosing`` makes it immediate).
    await wait_until(lambda: store.live_subscriptions == 0, "the subscription is released")


async def test_cancelling_a_waiting_subscriber_releases_it(store: EventStore) -> None:
    subscription = store.subscribe(GAME)
    waiting = asyncio.ensure_future(anext(subscription))
    await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is waiting")

    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await subscription.aclose()

    assert store.live_subscriptions == 0
    await store.append(GAME, 0, payloads("nobody is listening"))
    assert store.live_subscriptions == 0


async def test_closing_the_store_ends_live_subscriptions(store: EventStore) -> None:
    subscription = store.subscribe(GAME)
    waiting = asyncio.ensure_future(anext(subscription))
    await wait_until(lambda: store.live_subscriptions == 1, "the subscriber is waiting")

    await store.close()

    with pytest.raises(StoreClosed):
        await asyncio.wait_for(waiting, 10)
    with pytest.raises(StoreClosed):
        await store.append(GAME, 0, payloads("too late"))
    await store.close()


@pytest.mark.parametrize(
    ("game_id", "expected_version", "batch", "error"),
    [
        (GAME, 0, [], ValueError),
        (GAME, -1, [b"x"], ValueError),
        ("", 0, [b"x"], ValueError),
        (GAME, 0, ["not bytes"], TypeError),
    ],
)
async def test_appends_no_store_could_honour_are_rejected(
    store: EventStore,
    game_id: str,
    expected_version: int,
    batch: list[bytes],
    error: type[Exception],
) -> None:
    with pytest.raises(error):
        await store.append(game_id, expected_version, batch)
    assert await store.version(GAME) == 0
