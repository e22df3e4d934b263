"""When the store is behind a replica's cache (Redis restored from an older copy, or a crash
that lost its last writes), the replica goes on from what the store holds, without a restart;
while the store cannot be used, the game service reports NOT_SERVING."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
import redis
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.audit.export import LogEntry
from services.audit.verify import audit
from services.bootstrap import start_backend
from services.config import Config
from services.engine import Phase, SeatAssignment, legal_commands, to_act
from services.eventstore import RedisEventStore
from services.game.errors import HistoryChanged, StaleVersion
from services.game.service import GameApplication
from services.game.storewatch import StoreWatch
from services.game.values import NewGame
from tests.support.redis_server import RedisServer

SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(3))
SECRET = "store-behind-cache-secret-at-least-32-bytes"


async def move(app: GameApplication, game_id: str, rng: random.Random) -> int:
    """One decision by the first seat to act; the version it leads to."""
    state = await app.state(game_id, fresh=False)
    seat = to_act(state)[0]
    result = await app.submit(
        game_id,
        seat,
        rng.choice(legal_commands(state, seat)),
        expected_version=state.version,
        command_id=f"c{state.version}-{seat}",
    )
    return result.version


@pytest.fixture
async def app(persistent_redis: RedisServer) -> AsyncIterator[GameApplication]:
    store = RedisEventStore.from_url(persistent_redis.url)
    yield GameApplication(store)
    await store.close()


async def test_a_replica_whose_store_went_back_in_time_goes_on_from_what_it_holds(
    app: GameApplication, persistent_redis: RedisServer
) -> None:
    rng = random.Random(7)
    game_id, _ = await app.start_game(NewGame(players=3, game_id="rolled", seats=SEATS))
    for _ in range(3):
        await move(app, game_id, rng)
    client = redis.Redis.from_url(persistent_redis.url)
    key = f"verrater:{{{game_id}}}:events"
    older = client.dump(key)
    kept = (await app.state(game_id)).version
    for _ in range(4):
        acted_on = await move(app, game_id, rng)
    client.restore(key, 0, older, replace=True)  # the restore of an older copy
    # A client that acted on a lost version is told to read again (ABORTED)...
    state = await app.state(game_id, fresh=False)
    seat = to_act(state)[0]
    with pytest.raises(StaleVersion):
        await app.submit(
            game_id,
            seat,
            legal_commands(state, seat)[0],
            expected_version=acted_on,
            command_id="on-a-lost-version",
        )
    # ...and reads what the store holds; the game goes on from there to its end, its log intact.
    assert (await app.state(game_id)).version == kept
    while (await app.state(game_id, fresh=False)).phase is not Phase.GAME_OVER:
        await move(app, game_id, rng)
    stored = await app.store.read(game_id)
    assert [item.version for item in stored] == list(range(1, len(stored) + 1))
    report = audit([LogEntry.from_stored(item) for item in stored])
    assert report.ok, report.summary()
    client.close()


async def test_a_replica_whose_store_went_back_and_on_elsewhere_reads_it_again(
    app: GameApplication, persistent_redis: RedisServer
) -> None:
    """The store went back in time, then another replica played on past this one's version:
    this one's next read sees that the store no longer holds its last event."""
    rng = random.Random(9)
    game_id, _ = await app.start_game(NewGame(players=3, game_id="diverged", seats=SEATS))
    client = redis.Redis.from_url(persistent_redis.url)
    older = client.dump(f"verrater:{{{game_id}}}:events")
    for _ in range(3):
        await move(app, game_id, rng)
    client.restore(f"verrater:{{{game_id}}}:events", 0, older, replace=True)
    client.close()
    other_store = RedisEventStore.from_url(persistent_redis.url)
    other = GameApplication(other_store)
    other_rng = random.Random(10)
    for _ in range(5):
        ahead = await move(other, game_id, other_rng)
    with pytest.raises(HistoryChanged):
        await app.state(game_id)
    assert await app.state(game_id) == await other.state(game_id)
    assert (await app.state(game_id)).version == ahead
    await other_store.close()


async def test_a_restarted_store_is_compared_with_the_cache(
    app: GameApplication, persistent_redis: RedisServer
) -> None:
    rng = random.Random(8)
    game_id, _ = await app.start_game(NewGame(players=3, game_id="restarted", seats=SEATS))
    other_id, _ = await app.start_game(NewGame(players=3, game_id="untouched", seats=SEATS))
    client = redis.Redis.from_url(persistent_redis.url)
    older = client.dump(f"verrater:{{{game_id}}}:events")
    kept = (await app.state(game_id)).version
    await move(app, game_id, rng)
    untouched = await move(app, other_id, rng)
    client.restore(f"verrater:{{{game_id}}}:events", 0, older, replace=True)
    client.close()
    changes: list[bool] = []

    async def serving(usable: bool) -> None:
        changes.append(usable)

    watch = StoreWatch(app.store, app, serving)
    assert await watch.probe()
    persistent_redis.restart()  # a new run of the server: the watch compares every cached game
    assert await watch.probe()
    assert (await app.state(game_id, fresh=False)).version == kept
    assert (await app.state(other_id, fresh=False)).version == untouched
    assert changes == []


async def test_the_game_service_is_not_serving_while_its_store_cannot_be_used(
    persistent_redis: RedisServer,
) -> None:
    config = Config(
        bind="127.0.0.1:0", token_secret=SECRET, redis_url=persistent_redis.url, bots="off"
    )
    backend = await start_backend(config, frozenset({"game"}))
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    health = health_pb2_grpc.HealthStub(channel)

    async def status() -> int:
        reply = await health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        return int(reply.status)

    async def until(wanted: int) -> None:
        async with asyncio.timeout(30):
            while await status() != wanted:
                await asyncio.sleep(0.1)

    try:
        await until(health_pb2.HealthCheckResponse.SERVING)
        persistent_redis.pause()
        await until(health_pb2.HealthCheckResponse.NOT_SERVING)
        persistent_redis.resume()
        await until(health_pb2.HealthCheckResponse.SERVING)
        persistent_redis.stop()
        await until(health_pb2.HealthCheckResponse.NOT_SERVING)
        persistent_redis.start()
        await until(health_pb2.HealthCheckResponse.SERVING)
    finally:
        persistent_redis.resume()
        await channel.close()
        await backend.stop(None)
