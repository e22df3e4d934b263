"""On a Redis Cluster nothing is acknowledged, or built on, before it is on a replica: the
sequence of issue 34 (a master's replica dies, a command lands on the master alone, the master
dies, the lagging replica takes over) loses no acknowledged command, and a master that refuses
writes for want of a replica (`min-replicas-to-write`) applies nothing."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis

from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import RedisServer
from services.engine import GameState, PlayerCommand, SeatAssignment, legal_commands, to_act
from services.eventstore import RedisEventStore, ReplicationUnconfirmed, StoreUnavailable
from services.game.service import GameApplication
from services.game.values import NewGame
from services.rpc import classified
from tests.support.waiting import wait_until

SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own (this test kills its nodes), with AOF on every node: a replica that
    died comes back with what it had, behind its master."""
    with RedisClusterServers(tmp_path / "cluster", appendonly=True) as servers:
        yield servers


@pytest.fixture
async def store(cluster: RedisClusterServers) -> AsyncIterator[RedisEventStore]:
    events = RedisEventStore.from_url(cluster.url, wait_replicas=1, wait_timeout_ms=2000)
    yield events
    await events.close()


def _next_move(state: GameState, rng: random.Random) -> tuple[int, PlayerCommand]:
    seat = to_act(state)[0]
    return seat, rng.choice(legal_commands(state, seat))


async def _play(app: GameApplication, game_id: str, moves: int, rng: random.Random) -> int:
    for _ in range(moves):
        state = await app.state(game_id, fresh=False)
        seat, command = _next_move(state, rng)
        await app.submit(
            game_id, seat, command, expected_version=state.version, command_id=f"m{state.version}"
        )
    return (await app.state(game_id, fresh=False)).version


def _replicated(master: RedisServer) -> bool:
    """Whether ``master`` has a replica in sync with it."""
    with redis.Redis(port=master.port) as client:
        info = client.info("replication")
    return bool(
        info.get("role") == "master"
        and info.get("connected_slaves", 0) > 0
        and info["slave0"].get("state") == "online"
    )


async def test_a_command_written_to_a_master_without_its_replica_is_never_acknowledged(
    cluster: RedisClusterServers, store: RedisEventStore
) -> None:
    rng = random.Random(34)
    app = GameApplication(store)
    game_id, _ = await app.start_game(NewGame(players=4, game_id="durable", seats=SEATS))
    acknowledged = await _play(app, game_id, 6, rng)
    master = cluster.master_of(store.stream_key(game_id))
    replica = cluster.replica_of(master)
    replica.kill()

    state = await app.state(game_id, fresh=False)
    seat, command = _next_move(state, rng)

    async def attempt() -> int:
        result = await app.submit(
            game_id, seat, command, expected_version=state.version, command_id="master-alone"
        )
        return result.version

    with pytest.raises(ReplicationUnconfirmed) as first:
        await attempt()
    refusal = classified(first.value)
    assert refusal is not None and refusal.reason == "REPLICATION_UNCONFIRMED"
    # The retry answers as the first attempt did: not OK from what the master alone holds...
    with pytest.raises(ReplicationUnconfirmed):
        await attempt()
    # ...and no other replica builds on it or shows it.
    other = GameApplication(store)
    with pytest.raises(ReplicationUnconfirmed):
        await other.view(game_id, 0)
    assert await store.version(game_id) == acknowledged + 1  # it is on the master all the same

    # The master dies; its replica comes back behind it and takes over.
    master.kill()
    replica.start()
    await asyncio.to_thread(cluster.wait_until_ok)
    assert cluster.master_of(store.stream_key(game_id)) is replica
    master.start()  # back as the new master's replica: appends can be confirmed again
    await wait_until(lambda: _replicated(replica), "the old master replicates again", 60)

    # What the client was never told is gone; everything it was told is there, and the retry
    # of its command applies it now, on the history that survived.
    async def retried() -> int:
        while True:
            try:
                return await attempt()
            except StoreUnavailable:
                await asyncio.sleep(0.1)  # the store's one connection to the dead master

    assert await asyncio.wait_for(retried(), 60) == acknowledged + 1
    events = await store.read(game_id)
    assert len(events) == acknowledged + 1
    assert (await other.state(game_id)).version == acknowledged + 1


async def test_a_master_without_replicas_refuses_writes_and_nothing_is_applied(
    tmp_path: Path,
) -> None:
    with RedisClusterServers(tmp_path / "cluster", min_replicas_to_write=1) as cluster:
        store = RedisEventStore.from_url(cluster.url, wait_replicas=1, wait_timeout_ms=2000)
        try:
            app = GameApplication(store)
            game_id, _ = await app.start_game(NewGame(players=4, game_id="refused", seats=SEATS))
            acknowledged = await _play(app, game_id, 3, random.Random(35))
            master = cluster.master_of(store.stream_key(game_id))
            cluster.replica_of(master).kill()
            await wait_until(lambda: not _replicated(master), "the master misses its replica")
            state = await app.state(game_id, fresh=False)
            seat, command = _next_move(state, random.Random(36))
            with pytest.raises(StoreUnavailable) as refused:
                await app.submit(
                    game_id, seat, command, expected_version=state.version, command_id="refused"
                )
            assert not isinstance(refused.value, ReplicationUnconfirmed)
            refusal = classified(refused.value)
            assert refusal is not None and refusal.reason == "STORE_UNAVAILABLE"
            assert await store.version(game_id) == acknowledged  # nothing applied
        finally:
            await store.close()
