"""`verrater bench timers`: what one claim of a game replica's timer sweeper costs it.

A sweeper claims what is due several times a second (services/game/timers/sweeper.py). On a
Redis Cluster each game's wake-up sits in its slot's bucket and the sweeper remembers each
bucket's earliest wake-up (services/game/timers/redis_timers.py), so what a claim costs the
replica may grow with the buckets it knows, that is with the games, served or not. This puts
`--games` wake-ups two weeks ahead (a turn-based table's timer) in a private Redis Cluster
(`--redis-cluster 0`: one private Redis), lets the sweeper learn every bucket, then makes
`--claims` claims, each with one game fallen due since the last, as under load, and reports the
replica's CPU per claim (the calling thread's CPU time around the call: the client's work, not
the servers').
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Iterator
from typing import Any

from services.devtools.redis_cluster import local_redis_cluster
from services.devtools.redis_server import local_redis
from services.game.timers import RedisTurnTimers

#: A turn-based table's timer: the wake-ups the games wait on.
_FAR_MS = 14 * 86_400_000
#: Claims before the measured ones (connections, scripts loaded, the first full sweep).
_WARM_UP = 50
#: Wake-ups set at once while filling the buckets.
_SETTING = 64


@contextlib.contextmanager
def _redis(masters: int) -> Iterator[str]:
    if masters:
        with local_redis_cluster(masters) as cluster:
            yield cluster.url
    else:
        with local_redis() as url:
            yield url


async def _measure(url: str, games: int, claims: int) -> dict[str, Any]:
    timers = RedisTurnTimers.from_url(url)
    try:
        now = int(time.time() * 1000)
        gate = asyncio.Semaphore(_SETTING)

        async def set_far(index: int) -> None:
            async with gate:
                await timers.set(f"bench-timers-{index}", 1, now + _FAR_MS + index)

        await asyncio.gather(*(set_far(index) for index in range(games)))
        cpu: list[float] = []
        for claim in range(_WARM_UP + claims):
            due = now + 1 + claim
            await timers.set(f"bench-timers-due-{claim}", 1, due)
            started = time.thread_time()
            found = await timers.claim_due(due, 60_000, 100)
            spent = time.thread_time() - started
            if claim >= _WARM_UP:
                cpu.append(spent)
            if found.games != [f"bench-timers-due-{claim}"]:
                raise RuntimeError(f"claim {claim} found {found.games}, not the game due")
        return {
            "games": games,
            "claims": claims,
            "cpu_ms_per_claim": round(1000 * statistics.median(cpu), 3),
            "mean_cpu_ms_per_claim": round(1000 * statistics.fmean(cpu), 3),
        }
    finally:
        await timers.close()


def run_timers_bench(games: int, claims: int, redis_cluster: int) -> dict[str, Any]:
    """Fill the buckets, claim, and report the CPU a claim costs (see the module docstring)."""
    with _redis(redis_cluster) as url:
        figures = asyncio.run(_measure(url, games, claims))
    return {"redis_cluster": redis_cluster, **figures}
