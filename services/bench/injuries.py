"""The faults `verrater bench faults` injects into its stack (see services/bench/faults.py)."""

from __future__ import annotations

import shutil
import signal
import time
import uuid

import kombu

from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import RedisServer

from .stack import Stack

FAULTS = (
    "game-kill-9",
    "game-sigterm",
    "worker-kill-9",
    "redis-restart",
    "redis-pause-5s",
    "redis-rollback",
    "junk-3000",
)
#: The faults on a Redis Cluster: the Redis faults of one server give way to a cluster's.
CLUSTER_FAULTS = (
    "game-kill-9",
    "game-sigterm",
    "worker-kill-9",
    "cluster-master-kill-9",
    "cluster-replica-kill",
    "cluster-replica-then-master-kill",
    "cluster-shared-master-pause-5s",
    "junk-3000",
)
ALL_FAULTS = (*FAULTS, *(fault for fault in CLUSTER_FAULTS if fault.startswith("cluster-")))
#: How long `cluster-replica-kill` keeps the replica away.
REPLICA_AWAY_S = 20.0


class Rollback:
    """A copy of Redis's data taken now, put back later in place of what Redis holds then."""

    def __init__(self, redis: RedisServer) -> None:
        self._redis = redis
        self._copy = redis.workdir / "older-copy"

    def take(self) -> None:
        import redis as redis_py

        with redis_py.Redis.from_url(self._redis.url) as client:
            client.bgrewriteaof()
            while client.info("persistence")["aof_rewrite_in_progress"] or client.info(
                "persistence"
            ).get("aof_rewrite_scheduled"):
                time.sleep(0.05)
        shutil.rmtree(self._copy, ignore_errors=True)
        self._copy.mkdir()
        for name in ("appendonlydir", "appendonly.aof"):
            source = self._redis.workdir / name
            if source.is_dir():
                shutil.copytree(source, self._copy / name)
            elif source.exists():
                shutil.copy2(source, self._copy / name)

    def restore(self) -> None:
        self._redis.stop()
        for name in ("appendonlydir", "appendonly.aof"):
            target = self._redis.workdir / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
            source = self._copy / name
            if source.is_dir():
                shutil.copytree(source, target)
            elif source.exists():
                shutil.copy2(source, target)
        self._redis.start()


def junk(stack: Stack, count: int) -> None:
    """`count` tasks no bot can play: unknown games, undecodable views, unknown tasks."""
    with kombu.Connection(stack.broker) as connection:
        producer = connection.Producer(serializer="json")
        for number in range(count):
            kind = number % 3
            task = "verrater.no_such_task" if kind == 2 else "verrater.bot_turn"
            kwargs = {
                "game_id": f"junk-{uuid.uuid4().hex[:8]}",
                "seat": 0,
                "version": number + 1,
                "level": "normal",
                "view": "bm90IGEgdmlldw==" if kind == 1 else "",
            }
            task_id = str(uuid.uuid4())
            producer.publish(
                [[], kwargs, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}],
                exchange="",
                routing_key=stack.queue,
                headers={"lang": "py", "task": task, "id": task_id, "root_id": task_id},
                correlation_id=task_id,
            )


def kill_master(cluster: RedisClusterServers, victim: RedisServer) -> float:
    """SIGKILL the master `victim`; once its replica took over, start it again (it rejoins as
    that replica's replica). How long the cluster took to serve every slot again."""
    victim.kill()
    died = time.monotonic()
    cluster.wait_until_ok()
    failover = time.monotonic() - died
    victim.start()
    return failover


def kill_replica_then_master(cluster: RedisClusterServers, master: RedisServer) -> float:
    """The sequence of issue 34: the master's replica dies; a few seconds later (the games of
    that master meanwhile: refused, or written and not confirmed) the master dies too; the
    replica comes back, behind what the master had, and takes over: by itself (it asks the
    other masters for their votes), or, if it has not within a few node timeouts, with
    `CLUSTER FAILOVER TAKEOVER`. Then the old master comes back, as the new one's replica."""
    replica = cluster.replica_of(master)
    replica.kill()
    time.sleep(3.0)
    master.kill()
    died = time.monotonic()
    replica.start()
    try:
        cluster.wait_until_ok(timeout=4 * cluster.node_timeout_ms / 1000 + 5)
    except TimeoutError:
        import redis as redis_py

        with redis_py.Redis(port=replica.port) as client:
            client.execute_command("CLUSTER", "FAILOVER", "TAKEOVER")
        cluster.wait_until_ok()
    failover = time.monotonic() - died
    master.start()
    return failover


def inject(
    fault: str, stack: Stack, rollback: Rollback | None, victim: RedisServer | None
) -> float | None:
    """Hurt the stack; for a master's death, how long the cluster took to promote its replica
    and serve every slot again (what no client of it can shorten)."""
    if fault.startswith("redis-") and (stack.redis is None or rollback is None):
        raise ValueError(f"{fault} needs a standalone Redis: on a cluster, use {CLUSTER_FAULTS}")
    match fault:
        case "game-kill-9" | "game-sigterm":
            replica = stack.games[0]
            replica.signal(signal.SIGKILL if fault == "game-kill-9" else signal.SIGTERM)
            time.sleep(1.0)
            replica.start()
        case "worker-kill-9":
            stack.workers[0].signal(signal.SIGKILL)
            stack.workers[0].start()
        case "redis-restart" if stack.redis is not None:
            stack.redis.restart()
        case "redis-pause-5s" if stack.redis is not None:
            stack.redis.pause()
            time.sleep(5.0)
            stack.redis.resume()
        case "redis-rollback" if rollback is not None:
            rollback.restore()
        case "cluster-master-kill-9" if stack.cluster is not None and victim is not None:
            return kill_master(stack.cluster, victim)
        case "cluster-replica-kill" if stack.cluster is not None and victim is not None:
            follower = stack.cluster.replica_of(victim)
            follower.kill()
            time.sleep(REPLICA_AWAY_S)
            follower.start()
        case "cluster-replica-then-master-kill" if stack.cluster is not None and victim is not None:
            return kill_replica_then_master(stack.cluster, victim)
        case "cluster-shared-master-pause-5s" if stack.cluster is not None and victim is not None:
            victim.pause()
            time.sleep(5.0)
            victim.resume()
        case _ if fault.startswith("cluster-"):
            raise ValueError(f"{fault} needs --redis-cluster")
        case "junk-3000":
            junk(stack, 3000)
        case _:
            raise ValueError(f"unknown fault {fault!r}")
    return None
