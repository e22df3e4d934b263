"""The replica's cache keeps running games and only the most recently finished ones.

A finished game is read again only for its log or a late view; every cached event is an object
the garbage collector walks for as long as it stays. So beyond `finished_cache_size` the oldest
finished games leave the cache (unless someone still watches them) and are rebuilt from the
store, identical, when asked for again.
"""

from __future__ import annotations

import random

from services.codec import Record, decode_record, encode_record
from services.engine import CreateGame, Ruleset, fold
from services.engine.simulate import play_random_game
from services.eventstore import InMemoryEventStore
from services.game.service import GameApplication
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
