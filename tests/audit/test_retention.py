"""`verrater retention`: finished games old enough leave Redis for export files that audit as
clean as the stored game did; running games, recent ones and the rest stay."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.audit import audit, read_log
from services.audit.retention import retain
from services.codec import encode_record
from services.engine import Phase, legal_commands, to_act
from services.eventstore import RedisEventStore
from services.game.service import GameApplication
from services.game.values import NewGame
from tests.stats.games import humans, played_game

TABLE = humans("Anna", "Bert", "Cleo", "Dirk")
DAY_MS = 86_400_000


@pytest.fixture(params=["redis", "redis-cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RedisEventStore]:
    fixture = "fresh_cluster_url" if request.param == "redis-cluster" else "fresh_redis_url"
    async with RedisEventStore.from_url(request.getfixturevalue(fixture)) as opened:
        yield opened


async def test_a_finished_game_is_exported_auditable_and_removed_while_the_rest_stay(
    store: RedisEventStore, tmp_path: Path
) -> None:
    now = int(time.time() * 1000)
    old = played_game(TABLE, seed=1)
    old[-1] = old[-1]._replace(recorded_at_ms=now - 40 * DAY_MS)
    recent = played_game(TABLE, seed=2)
    recent[-1] = recent[-1]._replace(recorded_at_ms=now - DAY_MS)
    running = played_game(TABLE, seed=3)[:12]
    for game_id, records in (("old", old), ("recent", recent), ("running", running)):
        await store.append(game_id, 0, [encode_record(record) for record in records])
    stored_old = await store.read("old")

    report = await retain(store, tmp_path, min_age_days=30, now_ms=now)

    assert (report.exported, report.removed, report.running, report.too_recent) == (1, 1, 1, 1)
    assert await store.read("old") == []
    assert len(await store.read("recent")) == len(recent)
    assert len(await store.read("running")) == 12
    with (tmp_path / "old.jsonl").open(encoding="utf-8") as file:
        exported = read_log(file)
    assert exported.game_id == "old"
    assert [entry.payload for entry in exported.entries] == [e.payload for e in stored_old]
    assert audit(exported.entries).ok


async def test_keeping_exports_and_leaves_the_game_in_redis(
    store: RedisEventStore, tmp_path: Path
) -> None:
    records = played_game(TABLE, seed=4)
    await store.append("done", 0, [encode_record(record) for record in records])

    report = await retain(store, tmp_path, min_age_days=0, remove=False)

    assert (report.exported, report.removed) == (1, 0)
    assert (tmp_path / "done.jsonl").exists()
    assert len(await store.read("done")) == len(records)


async def test_a_game_that_moved_on_since_its_export_is_not_removed(
    store: RedisEventStore,
) -> None:
    records = played_game(TABLE, seed=5)
    await store.append("g", 0, [encode_record(record) for record in records[:-1]])
    assert not await store.remove_game("g", len(records))  # the stream ends elsewhere
    assert len(await store.read("g")) == len(records) - 1


async def test_a_game_played_through_the_service_is_as_old_as_its_last_batch(
    store: RedisEventStore, tmp_path: Path
) -> None:
    """The service times only a batch's first record (the decision), so the log's last
    event, the game's end, carries no time of its own: a game that ended a day ago is recent."""
    clock = [1_900_000_000.0]
    app = GameApplication(store, clock=lambda: clock[0])
    game_id, state = await app.start_game(NewGame(players=4, game_id="served", seats=TABLE))
    rng = random.Random(9)
    while state.phase is not Phase.GAME_OVER:
        clock[0] += 5
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        await app.submit(game_id, seat, command, expected_version=state.version, command_id="")
        state = await app.state(game_id)
    ended = int(clock[0] * 1000)

    report = await retain(store, tmp_path, min_age_days=30, now_ms=ended + DAY_MS)
    assert (report.exported, report.removed, report.too_recent) == (0, 0, 1)
    assert len(await store.read(game_id)) == state.version

    report = await retain(store, tmp_path, min_age_days=30, now_ms=ended + 31 * DAY_MS)
    assert (report.exported, report.removed, report.too_recent) == (1, 1, 0)
    assert await store.read(game_id) == []
