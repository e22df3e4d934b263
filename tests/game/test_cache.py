"""The replica's cache keeps running games and only the most recently finished ones.

A finished game is read again only for its log or a late view; every cached event is an object
the garbage collector walks for as long as it stays. So beyond `finished_cache_size` the oldest
finished games leave the cache (unless someone still watches them) and are rebuilt from the
store, identical, when asked for again.
"""

from __future__ import annotations

import asyncio
import random

from services.codec import Record, decode_record, encode_record
from services.engine import CreateGame, Ruleset, fold
from services.engine.simulate import play_random_game
from services.eventstore import InMemoryEventStore, StoredEvent
from services.game.service import GameApplication
from services.game.timers import InMemoryTurnTimers
from services.game.values import WatchMode


async def _store_finished_games(store: InMemoryEventStore, count: int) -> list[str]:
    ids = []
    for n in range(count):
        played = play_random_game(Ruleset.standard(4), random.Random(n))
        game_id = f"finished-{n}"
        await store.append(game_id, 0, [encode_record(Record(event)) for event in played.events])
        ids.append(game_id)
    return ids


async def test_only_the_most_recently_finished_games_stay_cached() -> None:
    store = InMemoryEventStore()
    finished = await _store_finished_games(store, 4)
    app = GameApplication(store, finished_cache_size=2)
    await app.create_game("running", CreateGame(Ruleset.standard(4), bytes(32)))
    for game_id in finished:
        await app.state(game_id)
    assert app.cached_games == 3  # the running game and the last two finished ones
    # A finished game that left the cache is rebuilt from its stream, identical.
    stored = await store.read(finished[0])
    assert await app.state(finished[0]) == fold(decode_record(s.payload).event for s in stored)
    assert app.cached_games == 3


async def test_a_watched_finished_game_stays_cached_until_its_last_watcher_leaves() -> None:
    store = InMemoryEventStore()
    finished = await _store_finished_games(store, 3)
    app = GameApplication(store, finished_cache_size=1)
    replay = app.updates(finished[0], None, 0, WatchMode.EVENTS)
    first = await anext(replay)  # a spectator is replaying the first game, event by event
    assert first.version == 1
    for game_id in finished[1:]:
        await app.state(game_id)
    assert app.cached_games == 2  # the watched game, and the most recently finished one
    await replay.aclose()
    assert app.cached_games == 1


class CountingStore(InMemoryEventStore):
    """Counts the reads of each game's stream."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[str, int] = {}

    async def read(self, game_id: str, after_version: int = 0) -> list[StoredEvent]:
        self.reads[game_id] = self.reads.get(game_id, 0) + 1
        return await super().read(game_id, after_version)


async def test_a_view_of_a_game_not_cached_reads_its_stream_once() -> None:
    store = CountingStore()
    finished = await _store_finished_games(store, 1)
    app = GameApplication(store)
    await app.view(finished[0], 0)  # loaded cold: the load is the read
    assert store.reads == {finished[0]: 1}
    await app.view(finished[0], 0)  # cached: what other replicas appended since, one read
    assert store.reads == {finished[0]: 2}


class YieldingTimers(InMemoryTurnTimers):
    """Turn timers whose writes let other tasks run, as a Redis round trip does."""

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        await asyncio.sleep(0)
        await super().set(game_id, version, wake_ms)


async def test_games_loaded_at_once_beyond_the_cache_size_are_all_answered() -> None:
    """Each load sets its game's wake-up while the others load (and evict it)."""
    store = InMemoryEventStore()
    finished = await _store_finished_games(store, 4)
    app = GameApplication(store, timers=YieldingTimers(), cache_size=1, finished_cache_size=1)
    states = await asyncio.gather(*(app.state(game_id) for game_id in finished))
    assert [state.version for state in states] == [
        len(await store.read(game_id)) for game_id in finished
    ]
