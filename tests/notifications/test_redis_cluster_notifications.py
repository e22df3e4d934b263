"""Notifications on a Redis Cluster: one master's outage holds up its own players only, each
player's notifications keep their order across it, and the outbound feed is sharded over the
masters by player.

The outage tests pause or kill a master of a cluster of their own (three masters, a replica
each), never one the other tests share.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import RedisServer
from services.notifications import (
    Notification,
    Notifications,
    NotificationsUnavailable,
    Publisher,
    Received,
    RedisNotifications,
    YourTurn,
)
from tests.support.waiting import wait_until, wait_until_true

SHARDS = 16
OUTAGE_TIMEOUT = 60.0


def turn(player_id: str, version: int) -> Notification:
    return Notification(
        player_id, f"your_turn:g-{player_id}:0:{version}", YourTurn(0, version), 1, "t1", "g1"
    )


def turns(player_id: str, versions: range) -> list[Notification]:
    return [turn(player_id, version) for version in versions]


def versions_of(received: list[Received]) -> list[int]:
    return [r.notification.kind.version for r in received]  # type: ignore[union-attr]


class SlotMap:
    """Which master serves each slot, read once (a paused node answers nothing)."""

    def __init__(self, cluster: RedisClusterServers) -> None:
        with redis.Redis(port=cluster.nodes[0].port) as client:
            slots: Any = client.execute_command("CLUSTER SLOTS")  # type: ignore[no-untyped-call]
        self._ranges = [(start, end, int(master[1])) for start, end, master, *_ in slots]

    def port_of(self, key: str) -> int:
        slot = key_slot(key.encode())
        return next(port for start, end, port in self._ranges if start <= slot <= end)


def inbox(player_id: str) -> str:
    return f"verrater:{{notify:{player_id}}}:inbox"


def shard_key(player_id: str) -> str:
    return f"verrater:{{notify-outbound:{key_slot(inbox(player_id).encode()) % SHARDS}}}:feed"


def a_player(
    slots: SlotMap, *, inbox_on: Any, feed_on: Any = None, avoid: tuple[str, ...] = ()
) -> str:
    """The first player id whose inbox's master, and feed shard's master, pass the tests."""
    for number in range(10_000):
        player = f"p{number}"
        if player in avoid:
            continue
        if inbox_on(slots.port_of(inbox(player))) and (
            feed_on is None or feed_on(slots.port_of(shard_key(player)))
        ):
            return player
    raise LookupError("no such player")


def replica_caught_up(master: RedisServer) -> bool:
    with redis.Redis(port=master.port) as client:
        info: Any = client.info("replication")
    replica = info.get("slave0")
    return replica is not None and int(replica["offset"]) == int(info["master_repl_offset"])


async def read_all(notifications: Notifications, player_id: str) -> list[Received]:
    return await notifications.read(player_id, "0-0", 1000)


async def feed_cursors(notifications: Notifications, player_id: str) -> list[str]:
    """The player's cursors on their shard of the outbound feed, each once, as first seen (a
    write retried after a lost reply may repeat an entry)."""
    shard = notifications.outbound_shard(player_id)
    entries = await notifications.outbound(shard=shard, limit=100_000)
    theirs = [e.cursor for e in entries if e.notification.player_id == player_id]
    return list(dict.fromkeys(theirs))


@pytest.fixture
def steady_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own, whose master a test pauses: a node timeout far longer than the
    pause, so that no replica takes over meanwhile (the pause is the whole outage)."""
    with RedisClusterServers(tmp_path / "cluster", node_timeout_ms=60_000) as cluster:
        yield cluster


@pytest.fixture
def failover_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A cluster of its own, whose master a test kills (its replica takes over in seconds)."""
    with RedisClusterServers(tmp_path / "cluster") as cluster:
        yield cluster


@pytest.fixture
async def closing() -> AsyncIterator[list[Notifications | Publisher]]:
    """What a test opened, closed afterwards (publishers first)."""
    opened: list[Notifications | Publisher] = []
    yield opened
    for each in sorted(opened, key=lambda item: not isinstance(item, Publisher)):
        await each.close()


async def test_a_paused_master_holds_up_only_its_own_players_and_their_order_survives(
    steady_cluster: RedisClusterServers, closing: list[Notifications | Publisher]
) -> None:
    cluster = steady_cluster
    # Not the node the URL names: a process started during the pause learns the map from it.
    paused: RedisServer = cluster.nodes[1]
    slots = SlotMap(cluster)
    on_paused = paused.port.__eq__
    elsewhere = paused.port.__ne__
    stuck = a_player(slots, inbox_on=on_paused)
    also_stuck = a_player(slots, inbox_on=on_paused, avoid=(stuck,))
    free = a_player(slots, inbox_on=elsewhere, feed_on=elsewhere)
    # Stored on a master that answers, pushed through a feed shard on the paused one.
    pushed_late = a_player(slots, inbox_on=elsewhere, feed_on=on_paused)
    crowded = a_player(slots, inbox_on=elsewhere, feed_on=on_paused, avoid=(pushed_late,))

    before = RedisNotifications.from_url(cluster.url)
    closing.append(before)
    await before.publish([turn(player, 1) for player in (stuck, free, pushed_late)])

    paused.pause()
    try:
        # A process started now: its first batch holds the paused master's backlog (more than
        # a batch) ahead of everyone else's.
        during = RedisNotifications.from_url(cluster.url, command_timeout=2.0)
        publisher = Publisher(during)
        closing += [during, publisher]
        publisher.send(turns(stuck, range(2, 252)))
        publisher.send(turns(pushed_late, range(2, 5)))
        publisher.send([turn(free, 2)])

        async def free_told() -> bool:
            return versions_of(await read_all(before, free)) == [1, 2]

        async def pushed_late_stored() -> bool:
            return versions_of(await read_all(before, pushed_late)) == [1, 2, 3, 4]

        async def free_pushed() -> bool:
            return len(await feed_cursors(before, free)) == 2

        await wait_until_true(free_told, "the other master's player is told", OUTAGE_TIMEOUT)
        await wait_until_true(pushed_late_stored, "a player whose feed shard is paused is told")
        await wait_until_true(free_pushed, "the other master's player is pushed")
        await wait_until(lambda: publisher.queued == 250, "only the paused master's wait")
        # One call with a player of each: it ends (bounded), each player's outcome their own.
        outcomes = await during.publish_each([turn(also_stuck, 1), turn(free, 3)])
        assert isinstance(outcomes[0], NotificationsUnavailable)
        assert isinstance(outcomes[1], Received)
        # A process whose feed shards keep 2 entries each (32 in all): what waits for the
        # paused shard beyond that goes, the oldest first.
        small = RedisNotifications.from_url(cluster.url, command_timeout=2.0, outbound_maxlen=32)
        closing.append(small)
        crowded_stored = await small.publish_each(turns(crowded, range(1, 6)))
    finally:
        paused.resume()

    await wait_until_true(
        lambda: _drained(publisher), "the paused master's players are told", OUTAGE_TIMEOUT
    )
    stored = await read_all(before, stuck)
    assert versions_of(stored) == list(range(1, 252))
    assert versions_of(await read_all(before, pushed_late)) == [1, 2, 3, 4]

    async def all_pushed() -> bool:
        return (
            len(await feed_cursors(before, stuck)) == 251
            and len(await feed_cursors(before, pushed_late)) == 4
        )

    await wait_until_true(all_pushed, "the paused feed shard is written", OUTAGE_TIMEOUT)
    assert await feed_cursors(before, stuck) == [r.cursor for r in stored]
    late_cursors = [r.cursor for r in await read_all(before, pushed_late)]
    assert await feed_cursors(before, pushed_late) == late_cursors

    async def crowded_pushed() -> bool:
        return len(await feed_cursors(before, crowded)) == 2

    await wait_until_true(crowded_pushed, "the crowded shard is written", OUTAGE_TIMEOUT)
    newest = [r.cursor for r in crowded_stored[-2:] if isinstance(r, Received)]
    assert await feed_cursors(before, crowded) == newest


async def _drained(publisher: Publisher) -> bool:
    return publisher.queued == 0


async def test_a_killed_masters_players_are_told_in_order_once_its_replica_took_over(
    failover_cluster: RedisClusterServers, closing: list[Notifications | Publisher]
) -> None:
    cluster = failover_cluster
    killed = cluster.nodes[1]
    slots = SlotMap(cluster)
    stuck = a_player(slots, inbox_on=killed.port.__eq__, feed_on=killed.port.__eq__)
    free = a_player(slots, inbox_on=killed.port.__ne__, feed_on=killed.port.__ne__)
    notifications = RedisNotifications.from_url(cluster.url, command_timeout=2.0)
    publisher = Publisher(notifications)
    closing += [notifications, publisher]
    publisher.send([turn(stuck, 1), turn(free, 1)])
    await publisher.drain()
    # Replication is asynchronous (notifications do not wait for it): a master killed before
    # its replica has a write loses it. Here the replica has everything before the kill.
    await wait_until(lambda: replica_caught_up(killed), "the replica has every write")

    killed.kill()
    publisher.send(turns(stuck, range(2, 22)))
    publisher.send([turn(free, 2)])

    async def free_told() -> bool:
        return versions_of(await read_all(notifications, free)) == [1, 2]

    await wait_until_true(free_told, "the other master's player is told", OUTAGE_TIMEOUT)
    # Nothing restarts the killed node: its replica takes over, the map is read again, and
    # what waited goes there.
    await wait_until_true(
        lambda: _drained(publisher), "the killed master's players are told", OUTAGE_TIMEOUT
    )
    stored = await read_all(notifications, stuck)
    assert versions_of(stored) == list(range(1, 22))
    assert SlotMap(cluster).port_of(inbox(stuck)) != killed.port

    async def pushed() -> bool:
        return len(await feed_cursors(notifications, stuck)) == 21

    # Its feed shard was on the killed master too: the entries waited, and follow in order.
    await wait_until_true(pushed, "the killed master's feed shard is written", OUTAGE_TIMEOUT)
    assert await feed_cursors(notifications, stuck) == [r.cursor for r in stored]


async def test_the_outbound_feed_is_sharded_by_player_over_every_master(
    fresh_cluster_url: str, redis_cluster: RedisClusterServers
) -> None:
    notifications = RedisNotifications.from_url(fresh_cluster_url)
    try:
        players = [f"pfeed{number}" for number in range(48)]
        stored = await notifications.publish(
            [turn(player, version) for version in (1, 2, 3) for player in players]
        )
        assert notifications.outbound_shards == SHARDS
        keys = [notifications.outbound_key_of(shard) for shard in range(SHARDS)]
        assert keys == [f"verrater:{{notify-outbound:{shard}}}:feed" for shard in range(SHARDS)]
        assert len({redis_cluster.master_of(key).port for key in keys}) == 3
        for player in players:
            shard = notifications.outbound_shard(player)
            assert shard == key_slot(inbox(player).encode()) % SHARDS
            cursors = [r.cursor for r in stored if r and r.notification.player_id == player]
            assert await feed_cursors(notifications, player) == cursors
        # Nothing goes to the standalone layout's one key any more.
        old = "verrater:notify:outbound"
        with redis.Redis(port=redis_cluster.master_of(old).port) as client:
            assert not client.exists(old)

        # A push gateway: a consumer group on every shard, each read with XREADGROUP.
        cluster = notifications.redis
        handed: list[tuple[str, str]] = []
        for key in keys:
            await cluster.xgroup_create(key, "push", id="0", mkstream=True)
            reply = await cluster.xreadgroup("push", "gateway-1", {key: ">"}, count=1000)
            for _stream, entries in reply:
                for entry_id, fields in entries:
                    handed.append((fields[b"player_id"].decode(), fields[b"cursor"].decode()))
                    assert await cluster.xack(key, "push", entry_id) == 1
        assert sorted(handed) == sorted(
            (r.notification.player_id, r.cursor) for r in stored if r is not None
        )
    finally:
        await notifications.close()
