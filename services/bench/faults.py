"""`verrater bench faults`: the distributed stack keeps every game going through single faults.

Starts a private Redis with AOF, two game replicas, the lobby, the AI service and two workers (on
`--broker`: RabbitMQ by default), then, for each fault, plays a batch of games (one scripted seat
and three bots each, the scripted seat thinking like a person), injects the fault while they run,
and waits for them to end:

- `game-kill-9`, `game-sigterm`: one game replica dies (or shuts down), and is started again;
- `worker-kill-9`: one worker's processes die mid-move, and the worker is started again;
- `redis-restart`: Redis shuts down and starts again (AOF: nothing acknowledged is lost);
- `redis-pause-5s`: Redis stops answering for five seconds (SIGSTOP, then SIGCONT);
- `redis-rollback`: Redis is restored from a copy of its data taken seconds earlier (the games'
  latest events are lost; the games must still finish);
- `junk-3000`: 3,000 junk tasks land in the bot queue at once.

With `--redis-cluster N` the game data lives on a private Redis Cluster of N masters and a
replica each (appends acknowledged once a replica has them), Celery's broker (unless `--broker`
names one) on a private standalone Redis beside it, and the Redis faults are replaced by

- `cluster-master-kill-9`: the master serving a running game's slot dies (SIGKILL); its replica
  takes over, and the dead node, started again as Kubernetes would, rejoins as a replica.

For each fault it reports the games played, those stuck (not finished a minute after the fault),
what `services.audit` finds in every finished game's log, the longest a game waited for anyone
but its scripted seat (`max_stall_s`), and `acknowledged_events_lost`: events a player was shown
that the final log does not hold at their version. When a fault leaves a game stuck or an audit
finding, it keeps the stack's directory (every process's log, Redis's data) and says where on
stderr, with the stuck games' ids; else the directory is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import kombu
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, lobby_pb2_grpc
from services.audit.export import LogEntry
from services.audit.verify import audit
from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import RedisServer, start_private_redis
from services.eventstore import RedisEventStore

from .common import (
    CHANNEL_OPTIONS,
    free_port,
    patiently,
    private_queue,
    sit_down,
    stack_env,
    wait_until_serving,
)

SECRET = "faults-bench-secret-only-for-this-local-run"
DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672//"
FAULTS = (
    "game-kill-9",
    "game-sigterm",
    "worker-kill-9",
    "redis-restart",
    "redis-pause-5s",
    "redis-rollback",
    "junk-3000",
)
#: The faults on a Redis Cluster: the Redis faults of one server give way to a master's death.
CLUSTER_FAULTS = (
    "game-kill-9",
    "game-sigterm",
    "worker-kill-9",
    "cluster-master-kill-9",
    "junk-3000",
)
ALL_FAULTS = (*FAULTS, "cluster-master-kill-9")
#: A game not finished this long after its fault is stuck.
STUCK_AFTER_S = 60.0
RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)


class Child:
    """A `verrater` process of the stack, in its own process group, that can be hurt and
    started again with the same settings."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.cli", *self.args],
                env={**os.environ, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def signal(self, signum: signal.Signals, *, wait: float = 30.0) -> None:
        """Send `signum` to the whole process group and wait for the process to end."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        self.signal(signal.SIGTERM)


@dataclass
class GameRun:
    """What one scripted player saw of its game."""

    game_id: str = ""
    #: Every event shown at each version (more than one when the store lost what was shown).
    seen: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    #: The last version of the current Watch stream (0: read the game from its start).
    position: int = 0
    finished: bool = False
    max_stall_s: float = 0.0
    last_progress: float = field(default_factory=time.monotonic)
    rng: random.Random = field(default_factory=random.Random)

    def progressed(self) -> None:
        now = time.monotonic()
        self.max_stall_s = max(self.max_stall_s, now - self.last_progress)
        self.last_progress = now


def _event_key(event: Any) -> tuple[str, str]:
    """A `GameEvent`'s kind and command id: what tells a lost event from its replacement."""
    return event.WhichOneof("event") or "", event.command_id


async def _play(lobby: Any, game: Any, run: GameRun, think_ms: float, fault: _FaultTimes) -> None:
    """One game from the lobby to the final score, its seat played through any fault.

    A game that ended before the fault is over is looked at again after it: a Redis restored
    from an older copy may have taken its end back, and then it is played on to its new end.
    """

    def started(game_id: str) -> None:
        run.game_id = game_id

    try:
        _, seat, token = await sit_down(lobby, "Fault player", retryable=RETRYABLE, started=started)
    finally:
        fault.ready.set()  # (a game that could not start is counted as stuck)
    run.last_progress = time.monotonic()
    while True:
        await _play_on(game, run, seat, token, think_ms)
        await fault.over.wait()
        request = game_pb2.GetViewRequest(game_id=run.game_id)
        seen = await patiently(
            functools.partial(game.GetView, request, metadata=token), retryable=RETRYABLE
        )
        if seen.view.phase == events_pb2.PHASE_GAME_OVER:
            return
        run.finished, run.position, run.last_progress = False, 0, time.monotonic()


@dataclass
class _FaultTimes:
    """Set when a player's game has started, and when the fault is over."""

    ready: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)


async def _play_on(game: Any, run: GameRun, seat: int, token: Any, think_ms: float) -> None:
    """Play the seat until the game ends (as far as the player can tell)."""
    while not run.finished:
        try:
            await _follow(game, run, seat, token, think_ms)
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.OUT_OF_RANGE:
                # The store lost what we saw (a rollback): read the game again from its start.
                run.position = 0
            elif error.code() not in RETRYABLE | {grpc.StatusCode.ABORTED}:
                raise
            await asyncio.sleep(0.2)


async def _follow(
    game: Any,
    run: GameRun,
    seat: int,
    token: Any,
    think_ms: float,
) -> None:
    rng = run.rng
    updates = game.Watch(
        game_pb2.WatchRequest(
            game_id=run.game_id,
            from_version=run.position,
            mode=game_pb2.WATCH_MODE_EVENTS,
            grouped=True,
        ),
        metadata=token,
    )
    async for response in updates:  # one response per batch appended together
        for update in response.updates:
            shown = run.seen.setdefault(update.version, set())
            key = _event_key(update.event)
            if key not in shown:  # news (a replay after a reconnect is not)
                run.progressed()
                shown.add(key)
            run.position = update.version
        update = response.updates[-1]
        if not update.HasField("view"):
            continue
        view = update.view
        if view.phase == events_pb2.PHASE_GAME_OVER:
            run.finished = True
            return
        if seat not in view.turn.seats or not view.legal:
            continue
        await asyncio.sleep(rng.expovariate(1000.0 / think_ms) if think_ms > 0 else 0)
        run.last_progress = time.monotonic()  # thinking is not waiting for the system
        request = game_pb2.SubmitCommandRequest(
            game_id=run.game_id,
            expected_version=view.version,
            command_id=uuid.uuid4().hex,
            command=rng.choice(list(view.legal)),
            version_only=True,
        )
        try:
            await patiently(
                functools.partial(game.SubmitCommand, request, metadata=token, timeout=10),
                retryable=RETRYABLE,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.ABORTED:
                raise  # a bot got in first (ABORTED): the stream brings the next view
        run.progressed()


@dataclass
class Stack:
    """The running processes and what the faults need to reach them."""

    redis: RedisServer | None
    cluster: RedisClusterServers | None
    store_url: str
    broker: str
    queue: str
    games: list[Child]
    workers: list[Child]
    others: list[Child]
    lobby_address: str
    game_address: str


@contextlib.contextmanager
def _stack(broker: str | None, workdir: Path, redis_cluster: int = 0) -> Iterator[Stack]:
    cluster: RedisClusterServers | None = None
    if redis_cluster:
        cluster = RedisClusterServers(workdir / "cluster", masters=redis_cluster)
        cluster.start()
        # Celery's broker, unless one is named: a cluster cannot be one.
        redis = None if broker else start_private_redis(workdir / "broker")
        store_url = cluster.url
    else:
        redis = start_private_redis(workdir / "redis", appendonly=True)
        store_url = redis.url
    try:
        broker_url = broker or (redis.url if redis is not None else "")
        with private_queue(broker_url) as queue:
            children: list[Child] = []
            try:
                game_ports = [free_port(), free_port()]
                lobby_port, ai_port = free_port(), free_port()
                env = {
                    **stack_env(store_url, broker_url, queue, SECRET, game_ports),
                    "VERRATER_GRACE_SECONDS": "3",
                }
                game_address = env["VERRATER_GAME_ADDR"]

                def child(name: str, args: list[str], **more: str) -> Child:
                    made = Child(args, {**env, **more}, workdir / f"{name}.log")
                    made.start()
                    children.append(made)
                    return made

                # Each replica advertises its address: bot moves go back to the replica that
                # announced them, and through the balanced address while it is down.
                games = [
                    child(
                        f"game-{n}",
                        ["serve", "game"],
                        VERRATER_BIND=f"127.0.0.1:{port}",
                        VERRATER_ADVERTISE_ADDR=f"127.0.0.1:{port}",
                    )
                    for n, port in enumerate(game_ports, start=1)
                ]
                others = [
                    child("lobby", ["serve", "lobby"], VERRATER_BIND=f"127.0.0.1:{lobby_port}"),
                    child("ai", ["serve", "ai"], VERRATER_BIND=f"127.0.0.1:{ai_port}"),
                ]
                workers = [child(f"worker-{n}", ["worker", "--concurrency", "2"]) for n in (1, 2)]
                yield Stack(
                    None if cluster else redis,
                    cluster,
                    store_url,
                    broker_url,
                    queue,
                    games,
                    workers,
                    others,
                    f"127.0.0.1:{lobby_port}",
                    game_address,
                )
            finally:
                # Inside the queue's block: a worker or replica still running when the queue
                # is deleted declares it again, and it would stay on the shared RabbitMQ.
                for made in reversed(children):
                    made.stop()
    finally:
        if redis is not None:
            redis.resume()
            redis.stop()
        if cluster is not None:
            cluster.stop()


class _Rollback:
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


def _junk(stack: Stack, count: int) -> None:
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


def _kill_master(cluster: RedisClusterServers, key: str) -> None:
    """SIGKILL the master serving `key`; once its replica took over, start it again (it
    rejoins as that replica's replica)."""
    victim = cluster.master_of(key)
    victim.kill()
    cluster.wait_until_ok()
    victim.start()


def _inject(fault: str, stack: Stack, rollback: _Rollback | None, victim_key: str) -> None:
    if fault.startswith("redis-") and (stack.redis is None or rollback is None):
        raise ValueError(f"{fault} needs a standalone Redis: on a cluster, use {CLUSTER_FAULTS}")
    match fault:
        case "game-kill-9" | "game-sigterm":
            victim = stack.games[0]
            victim.signal(signal.SIGKILL if fault == "game-kill-9" else signal.SIGTERM)
            time.sleep(1.0)
            victim.start()
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
        case "cluster-master-kill-9":
            if stack.cluster is None:
                raise ValueError(f"{fault} needs --redis-cluster")
            _kill_master(stack.cluster, victim_key)
        case "junk-3000":
            _junk(stack, 3000)
        case _:
            raise ValueError(f"unknown fault {fault!r}")


async def _one_fault(
    fault: str, stack: Stack, games: int, think_ms: float, seed: int
) -> dict[str, Any]:
    rollback = _Rollback(stack.redis) if stack.redis is not None else None
    runs = [GameRun(rng=random.Random(seed * 1000 + n)) for n in range(games)]
    async with (
        aio.insecure_channel(stack.lobby_address) as lobby_channel,
        aio.insecure_channel(stack.game_address, options=CHANNEL_OPTIONS) as game_channel,
    ):
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        game = game_pb2_grpc.GameServiceStub(game_channel)
        times = [_FaultTimes() for _ in runs]
        tasks = [
            asyncio.create_task(_play(lobby, game, run, think_ms, times[n]))
            for n, run in enumerate(runs)
        ]
        await asyncio.gather(*(each.ready.wait() for each in times))
        if fault == "redis-rollback" and rollback is not None:
            await asyncio.to_thread(rollback.take)
        await asyncio.sleep(3.0)  # the games are under way: hurt the stack
        victim_key = f"{{{runs[0].game_id}}}"  # a game's hash tag: the slot of all its keys
        await asyncio.to_thread(_inject, fault, stack, rollback, victim_key)
        await asyncio.sleep(2.0)  # the probes and clients have seen the fault
        for each in times:
            each.over.set()
        done, pending = await asyncio.wait(tasks, timeout=STUCK_AFTER_S)
        for run in runs:
            if not run.finished:  # stalled since its last progress, up to now
                run.progressed()
                print(f"{fault}: game {run.game_id or '(not started)'} is stuck", file=sys.stderr)
        for task in pending:
            task.cancel()
        failures = [task.exception() for task in done if task.exception() is not None]
        for failure in failures:
            print(f"{fault}: a player gave up: {failure!r}", file=sys.stderr)
    store = RedisEventStore.from_url(stack.store_url)
    findings, lost = 0, 0
    try:
        for run in runs:
            stored = await store.read(run.game_id) if run.game_id else []
            if run.finished:
                report = audit([LogEntry.from_stored(item) for item in stored])
                findings += len(report.findings)
            held = {item.version: _kind_of(item.payload) for item in stored}
            for version, shown in run.seen.items():
                lost += len(shown - {held.get(version)})
    finally:
        await store.close()
    return {
        "fault": fault,
        "games": games,
        "games_stuck": sum(1 for run in runs if not run.finished),
        "audit_findings": findings,
        "max_stall_s": round(max((run.max_stall_s for run in runs), default=0.0), 2),
        "acknowledged_events_lost": lost,
        "client_errors": len(failures),
    }


def _kind_of(payload: bytes) -> tuple[str, str]:
    return _event_key(events_pb2.GameEvent.FromString(payload))


def run_faults_bench(
    faults: tuple[str, ...] = FAULTS,
    games: int = 8,
    think_ms: float = 300.0,
    broker: str | None = DEFAULT_BROKER,
    redis_cluster: int = 0,
) -> dict[str, Any]:
    """Start the stack (on a private Redis Cluster of `redis_cluster` masters when not 0),
    inject each fault in turn; the figures as one JSON-ready dict."""
    results: list[dict[str, Any]] = []
    # `timeout` and CI stop with SIGTERM: unwind, so that the stack's processes are stopped.
    signal.signal(signal.SIGTERM, _interrupted)
    workdir = Path(tempfile.mkdtemp(prefix="verrater-faults-"))
    try:
        with _stack(broker, workdir, redis_cluster) as stack:
            asyncio.run(_until_serving(stack))
            for number, fault in enumerate(faults):
                results.append(asyncio.run(_one_fault(fault, stack, games, think_ms, number)))
                asyncio.run(_until_serving(stack))
    finally:
        _keep_if_failed(workdir, results)
    return {
        "broker": (broker or "redis://").split("://", 1)[0],
        "redis_nodes": 2 * redis_cluster if redis_cluster else 1,
        "faults": results,
    }


def _keep_if_failed(workdir: Path, results: list[dict[str, Any]]) -> bool:
    """Remove the stack's directory (its processes' logs, Redis's data), unless a fault left a
    game stuck or an audit finding: then keep it, say where on stderr, and return True."""
    failed = [row["fault"] for row in results if row["games_stuck"] or row["audit_findings"]]
    if failed:
        print(f"{', '.join(failed)}: kept the stack's logs and data in {workdir}", file=sys.stderr)
        return True
    shutil.rmtree(workdir, ignore_errors=True)
    return False


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


async def _until_serving(stack: Stack) -> None:
    for address in [stack.lobby_address, *stack.game_address.removeprefix("ipv4:").split(",")]:
        async with aio.insecure_channel(address) as channel:
            await wait_until_serving(channel, timeout=60)
