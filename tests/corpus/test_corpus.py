"""Logs that replay forever: the stored games of every release (tests/corpus/) are read by
today's code as they were stored.

Each game's stream is written into a real Redis stream entry by entry, as the event store of
its release wrote it, and read with today's RedisEventStore; its exported log is appended to
the in-memory store too. From each store, the game service rebuilds the game (over, with the
recorded score), the audit finds it CLEAN (the rules replay every decision), `verrater audit`
and `verrater replay` read the export, and the stats project it as recorded. A change that
cannot read them fails here: a test corrupts a game, or reads it from elsewhere, and the same
check fails.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from services.audit import LogEntry, audit, read_log, tell_story
from services.cli import main as verrater
from services.engine import Phase
from services.eventstore import (
    EventStore,
    EventStoreError,
    InMemoryEventStore,
    RedisEventStore,
    redis_client,
    verify_chain,
)
from services.game.service import GameApplication
from services.stats import InMemoryStats, RedisStats, StatsProjection, StatsProjector

from .corpus import (
    COVERS,
    REQUIRED_COVERS,
    CorpusGame,
    StoredStream,
    StreamEntry,
    all_games,
    games_of,
    read_stream,
    releases,
)

ROOT = Path(__file__).resolve().parents[2]
GAMES = list(all_games())
Drain = Callable[[], Awaitable[None]]


def _game_id(game: CorpusGame) -> str:
    return game.id


def exported(game: CorpusGame) -> list[LogEntry]:
    with game.export.open(encoding="utf-8") as file:
        log = read_log(file)
    assert log.game_id == game.game_id
    return log.entries


def stored(game: CorpusGame) -> StoredStream:
    with game.stream.open(encoding="utf-8") as file:
        return read_stream(file)


async def write_to_redis(url: str, stream: StoredStream) -> None:
    """The entries into a Redis stream at the key and ids they had, fields in their order."""
    async with redis_client(url) as client, client.pipeline(transaction=False) as pipe:
        for entry in stream.entries:
            pipe.xadd(stream.key, dict(entry.fields), id=entry.id)
        await pipe.execute()


async def append_in_memory(store: EventStore, game_id: str, entries: list[LogEntry]) -> None:
    """The log appended as the game service appended it: batch by batch, each from a decision
    (the first batch: the setup) to the next."""
    batch: list[bytes] = []
    version = 0
    for entry in entries:
        if entry.record().seat >= 0 and batch:
            await store.append(game_id, version, batch)
            version, batch = version + len(batch), []
        batch.append(entry.payload)
    await store.append(game_id, version, batch)


async def check_game(
    game: CorpusGame, store: EventStore, stats: StatsProjection, drain: Drain
) -> None:
    """Read `game` from `store` and check it is what was recorded: the log, the rebuilt game,
    the audit, the replay and the stats' result."""
    expected = game.expected
    log = exported(game)
    read = await store.read(game.game_id)
    assert read, f"{game.id}: the store holds no game {game.game_id}"
    assert verify_chain(read) is None, f"{game.id}: the chain breaks at {verify_chain(read)}"
    entries = [LogEntry.from_stored(item) for item in read]
    assert entries == log, f"{game.id}: the store reads another log than the one exported"
    assert (len(entries), entries[-1].hash) == (expected["events"], expected["head"])
    assert await store.head(game.game_id) == (expected["events"], expected["head"])
    records = [entry.record() for entry in entries]
    for case in game.covers:
        assert COVERS[case](records), f"{game.id} shows no {case}"

    # Rebuilt by the game service, as a replica loads a game cold.
    app = GameApplication(store)
    state = await app.state(game.game_id)
    assert state.phase is Phase.GAME_OVER
    assert state.version == expected["events"]
    assert (list(state.vp), list(state.winners)) == (expected["final_vp"], expected["winners"])
    assert [item.payload for item, _ in await app.log(game.game_id)] == [e.payload for e in log]

    # Audited: the chain, the format, the fairness of every shuffle, the rules' replay of every
    # decision, the result.
    report = audit(entries)
    assert report.ok, f"{game.id}: {report.summary()}"
    assert "CLEAN" in report.summary() and report.replayed
    assert report.decisions == expected["decisions"]
    assert list(report.final_vp) == expected["final_vp"]
    assert list(report.explicit) == expected["explicit"]
    # Told round by round (`verrater replay`).
    assert tell_story(entries)
    for round_number in range(1, expected["rounds"] + 1):
        assert tell_story(entries, round_number)

    # Projected into the stats: each person's list of games holds it, with its result.
    await stats.record_finished(game.game_id)
    await drain()
    people = [player for player, _, bot in expected["seats"] if not bot]
    for player in people:
        [finished] = await stats.finished_games(player)
        result = finished.result
        assert result.game_id == game.game_id
        seats = [
            [seat.player_id, seat.name, seat.bot_level.value if seat.bot_level else ""]
            for seat in result.seats
        ]
        assert seats == expected["seats"]
        assert [seat.final_vp for seat in result.seats] == expected["final_vp"]
        assert list(result.winners) == expected["winners"]
        assert result.early == expected["early"]
        assert result.unranked_reason.value == expected["unranked_reason"]
        replaced = [seat.seat for seat in result.seats if seat.replaced_by_bot]
        assert replaced == expected["replaced_by_bot"]
        rated = (await stats.rating(player)).rating.rated_games
        assert rated == (1 if result.ranked else 0)


@asynccontextmanager
async def redis_parts(url: str, *, key_prefix: str = "verrater") -> AsyncIterator[Any]:
    store = RedisEventStore.from_url(url, key_prefix=key_prefix)
    stats = RedisStats.from_url(url)
    projector = StatsProjector(stats, store, consumer="corpus", block_ms=20)

    async def drain() -> None:
        while await projector.step():
            pass

    try:
        yield store, stats, drain
    finally:
        await stats.close()
        await store.close()


async def _nothing() -> None:
    pass


def test_there_is_a_corpus_and_every_release_covers_every_case() -> None:
    folders = releases()
    assert [folder.name for folder in folders][:1] == ["v1.0.0"]
    for folder in folders:
        # A corpus belongs to a released contract: its image is what `buf breaking` compares.
        assert (ROOT / "proto" / "releases" / f"{folder.name}.json").is_file(), folder.name
        games = games_of(folder)
        covered = {case for game in games for case in game.covers}
        assert covered >= REQUIRED_COVERS, f"{folder.name} lacks {REQUIRED_COVERS - covered}"
        for game in games:
            assert game.export.is_file() and game.stream.is_file(), game.id
            assert set(game.covers) <= set(COVERS), game.id


@pytest.mark.parametrize("game", GAMES, ids=_game_id)
async def test_a_stored_game_read_from_redis_is_rebuilt_audited_replayed_and_projected(
    game: CorpusGame, fresh_redis_url: str
) -> None:
    await write_to_redis(fresh_redis_url, stored(game))
    async with redis_parts(fresh_redis_url) as (store, stats, drain):
        await check_game(game, store, stats, drain)


@pytest.mark.parametrize("game", GAMES, ids=_game_id)
async def test_a_stored_game_in_memory_is_rebuilt_audited_replayed_and_projected(
    game: CorpusGame,
) -> None:
    store = InMemoryEventStore()
    await append_in_memory(store, game.game_id, exported(game))
    await check_game(game, store, InMemoryStats(store), _nothing)


@pytest.mark.parametrize("game", GAMES, ids=_game_id)
def test_verrater_audit_and_replay_read_the_export(
    game: CorpusGame, capsys: pytest.CaptureFixture[str]
) -> None:
    assert verrater(["audit", "--file", str(game.export)]) == 0
    assert "CLEAN" in capsys.readouterr().out
    assert verrater(["replay", "--file", str(game.export)]) == 0
    assert capsys.readouterr().out.strip()


# --- a change that cannot read them fails -----------------------------------------------------


def _with_entry(stream: StoredStream, index: int, entry: StreamEntry | None) -> StoredStream:
    entries = list(stream.entries)
    if entry is None:
        del entries[index]
    else:
        entries[index] = entry
    return dataclasses.replace(stream, entries=tuple(entries))


def _payload_edited(stream: StoredStream) -> StoredStream:
    entry = stream.entries[40]
    fields = tuple(
        (name, value[:-1] + bytes([value[-1] ^ 1]) if name == b"p" else value)
        for name, value in entry.fields
    )
    return _with_entry(stream, 40, StreamEntry(entry.id, fields))


def _field_renamed(stream: StoredStream) -> StoredStream:
    entry = stream.entries[40]
    fields = tuple((b"payload" if name == b"p" else name, value) for name, value in entry.fields)
    return _with_entry(stream, 40, StreamEntry(entry.id, fields))


def _entry_lost(stream: StoredStream) -> StoredStream:
    return _with_entry(stream, 40, None)


@pytest.mark.parametrize(
    ("corrupt", "failure"),
    [
        (_payload_edited, "the chain breaks at 41"),
        (_field_renamed, "stream entry lacks field b'p'"),
        (_entry_lost, "the chain breaks at 41"),
    ],
    ids=["a payload edited", "a field renamed", "an entry lost"],
)
async def test_a_corrupted_corpus_game_fails_the_check(
    corrupt: Callable[[StoredStream], StoredStream], failure: str, fresh_redis_url: str
) -> None:
    game = GAMES[0]
    await write_to_redis(fresh_redis_url, corrupt(stored(game)))
    async with redis_parts(fresh_redis_url) as (store, stats, drain):
        with pytest.raises((AssertionError, EventStoreError), match=re.escape(failure)):
            await check_game(game, store, stats, drain)


async def test_a_store_that_looks_for_games_elsewhere_fails_the_check(fresh_redis_url: str) -> None:
    """Today's code moving the streams (another key layout) without reading the old ones."""
    game = GAMES[0]
    await write_to_redis(fresh_redis_url, stored(game))
    async with redis_parts(fresh_redis_url, key_prefix="verrater2") as (store, stats, drain):
        with pytest.raises(AssertionError, match="holds no game"):
            await check_game(game, store, stats, drain)


async def test_a_game_read_to_another_result_fails_the_check() -> None:
    """Today's code folding or projecting an old log to another score than it had."""
    game = GAMES[0]
    final_vp = [vp + 1 for vp in game.expected["final_vp"]]
    changed = dataclasses.replace(game, expected={**game.expected, "final_vp": final_vp})
    store = InMemoryEventStore()
    await append_in_memory(store, game.game_id, exported(game))
    with pytest.raises(AssertionError):
        await check_game(changed, store, InMemoryStats(store), _nothing)
