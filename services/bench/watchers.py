"""`verrater bench watchers`: what players who hold `WatchNotifications` open cost a lobby
replica while nothing happens, and how soon a notification then reaches one of them.

A lobby follows each watching player's inbox on its one live reader (services/redislive). On a
standalone Redis that is one blocking ``XREAD`` naming every inbox, which costs nothing while
nothing comes. On a Redis Cluster one command names keys of one slot only, so each master's
inboxes are polled (services/redislive/reader.py), backing off to a poll every 200 ms when
nothing comes: a cost that grows with the watchers even when every game waits.

This opens `--watchers` subscriptions through the lobby's own notifications adapter
(services/notifications/redis) on a private Redis Cluster (`--redis-cluster 0`: one private
Redis), lets them settle, then measures `--seconds` with nothing published: the CPU of this
process (where only the subscriptions and their reader run) and of the Redis masters. Then it
publishes one notification to each of `DELIVERIES` watched players, one at a time, a second
apart, and times each from its publish to its subscriber: what a player waits for when their
turn comes in a quiet moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import redis

from services.devtools.redis_cluster import local_redis_cluster
from services.devtools.redis_server import local_redis
from services.notifications import Notification, Received, RedisNotifications, YourTurn

#: Notifications timed after the idle measurement, one a second.
DELIVERIES = 10
#: How long the subscriptions settle before the idle measurement (the reader backs off).
_SETTLE_S = 3.0
#: Subscriptions opened at once.
_OPENING = 64


@contextlib.contextmanager
def _redis(masters: int) -> Iterator[tuple[str, list[int]]]:
    """The URL, and the ports of the servers whose CPU counts (a cluster's masters)."""
    if masters:
        with local_redis_cluster(masters) as cluster:
            # A cluster just formed: its first nodes are its masters (as `bench scale` reads it).
            yield cluster.url, [node.port for node in cluster.nodes[:masters]]
    else:
        with local_redis() as url:
            port = urlsplit(url).port
            assert port is not None  # a private server on a TCP port
            yield url, [port]


def _servers_cpu(ports: list[int]) -> float:
    total = 0.0
    for port in ports:
        with redis.Redis(port=port) as client:
            info = client.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


async def _measure(url: str, ports: list[int], watchers: int, seconds: float) -> dict[str, Any]:
    notifications = RedisNotifications.from_url(url)
    arrived: dict[str, asyncio.Queue[Received]] = {}
    tasks: list[asyncio.Task[None]] = []

    async def watch(player_id: str) -> None:
        async for received in notifications.subscribe(player_id):
            arrived[player_id].put_nowait(received)

    try:
        gate = asyncio.Semaphore(_OPENING)

        async def open_one(index: int) -> None:
            player_id = f"bench-watcher-{index}"
            arrived[player_id] = asyncio.Queue()
            async with gate:
                tasks.append(asyncio.create_task(watch(player_id)))
                while notifications.live_subscriptions < index + 1 - _OPENING:
                    await asyncio.sleep(0.01)

        await asyncio.gather(*(open_one(index) for index in range(watchers)))
        async with asyncio.timeout(60):
            while notifications.live_subscriptions < watchers:
                await asyncio.sleep(0.05)
        await asyncio.sleep(_SETTLE_S)

        cpu_before, servers_before = time.process_time(), _servers_cpu(ports)
        started = time.monotonic()
        await asyncio.sleep(seconds)
        elapsed = time.monotonic() - started
        follower_cpu = 1000 * (time.process_time() - cpu_before) / elapsed
        servers_cpu = 1000 * (_servers_cpu(ports) - servers_before) / elapsed

        delivery_ms: list[float] = []
        step = max(1, watchers // DELIVERIES)
        for index in range(0, watchers, step)[:DELIVERIES]:
            await asyncio.sleep(1.0)
            player_id = f"bench-watcher-{index}"
            game_id = f"bench-game-{index}"
            now_ms = int(time.time() * 1000)
            key = f"your_turn:{game_id}:0:1"
            note = Notification(player_id, key, YourTurn(0, 1, None), now_ms, "", game_id)
            sent = time.perf_counter()
            await notifications.publish([note])
            async with asyncio.timeout(30):
                await arrived[player_id].get()
            delivery_ms.append(1000 * (time.perf_counter() - sent))
        return {
            "watchers": watchers,
            "idle_seconds": round(elapsed, 1),
            "follower_cpu_ms_per_s": round(follower_cpu, 1),
            "redis_cpu_ms_per_s": round(servers_cpu, 1),
            "follower_cpu_us_per_watcher_s": round(1000 * follower_cpu / watchers, 2),
            "delivery_p50_ms": round(statistics.median(delivery_ms), 1),
            "delivery_max_ms": round(max(delivery_ms), 1),
        }
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await notifications.close()


def run_watchers_bench(watchers: int, seconds: float, redis_cluster: int) -> dict[str, Any]:
    """Open the subscriptions, measure them idle, time a few deliveries (see the module
    docstring)."""
    with _redis(redis_cluster) as (url, ports):
        figures = asyncio.run(_measure(url, ports, watchers, seconds))
    return {"redis_cluster": redis_cluster, **figures}
