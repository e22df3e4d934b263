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
replica each, every node configured as docs/OPERATING.md's recipe says (AOF, `cluster-node-timeout`
`--node-timeout-ms`, `cluster-require-full-coverage no`, `min-replicas-to-write 1`; appends
acknowledged once a replica has them), Celery's broker (unless `--broker` names one) on a
private standalone Redis beside it, and the Redis faults are replaced by

- `cluster-master-kill-9`: the master serving a running game's slot dies (SIGKILL); its replica
  takes over, and the dead node, started again as Kubernetes would, rejoins as a replica;
- `cluster-replica-kill`: the replica of the master of the most games dies, and is started
  again `REPLICA_AWAY_S` later;
- `cluster-replica-then-master-kill`: the replica of the master of the most games dies; a few
  seconds later the master dies too, and the replica comes back, behind it, and takes over (by
  itself, or with `CLUSTER FAILOVER TAKEOVER`); then the old master comes back as its replica;
- `cluster-shared-master-pause-5s`: the master of the most games stops answering for five
  seconds (SIGSTOP, SIGCONT): no key every game uses is left to pause (docs/OPERATING.md).

For each fault it reports the games played, those stuck (not finished a minute after the fault),
what `services.audit` finds in every finished game's log, the longest a game waited for anyone
but its scripted seat (`max_stall_s`), the longest of those of games none of whose keys live on
the failed node (`other_shards_max_stall_s`: the games of the other masters; every game when
no Redis failed, none on a standalone Redis), the same two counted from the fault's injection on
(`max_stall_after_fault_s`, `other_shards_max_stall_after_fault_s`: a wait under way then counts
from then, one over before it not at all; the whole-run figures also hold the ordinary waits of
a busy machine's first turns), and `acknowledged_events_lost`: events a player
was shown, or commands a player was answered OK for, that the final log does not hold; for a
master's death, `redis_failover_s`, how long the cluster took to serve every slot again (from
the death to its replica's promotion: Redis's own part of the stall). When a
fault leaves a game stuck or an audit finding, it keeps the stack's directory (every process's
log, Redis's data) and says where on stderr, with the stuck games' ids; else the directory is
removed.
"""

from __future__ import annotations

import asyncio
import functools
import random
import shutil
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, lobby_pb2_grpc
from services.audit.export import LogEntry
from services.audit.verify import audit
from services.devtools.redis_server import RedisServer
from services.eventstore import RedisEventStore

from .common import CHANNEL_OPTIONS, patiently, sit_down, wait_until_serving
from .injuries import ALL_FAULTS, CLUSTER_FAULTS, FAULTS, Rollback, inject
from .stack import DEFAULT_NODE_TIMEOUT_MS, Stack, distributed_stack

__all__ = [
    "ALL_FAULTS",
    "CLUSTER_FAULTS",
    "DEFAULT_BROKER",
    "DEFAULT_NODE_TIMEOUT_MS",
    "FAULTS",
    "run_faults_bench",
]

DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672//"
#: The longest the scripted player waits between two tries of a command (what it adds to a
#: stall is the system's, not a client's long backoff).
RETRY_MAX_DELAY_S = 0.5
#: Stalls longer than this are reported on stderr, game by game, with when they began.
STALL_REPORTED_S = 2.0
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


@dataclass
class GameRun:
    """What one scripted player saw of its game."""

    game_id: str = ""
    #: Every event shown at each version (more than one when the store lost what was shown).
    seen: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    #: The commands the player was answered OK for.
    acknowledged: set[str] = field(default_factory=set)
    #: The last version of the current Watch stream (0: read the game from its start).
    position: int = 0
    finished: bool = False
    max_stall_s: float = 0.0
    #: When the longest stall began (wall clock, for reading it beside the stack's logs).
    max_stall_from: float = 0.0
    last_progress: float = field(default_factory=time.monotonic)
    #: When the fault was injected (monotonic; None before), and the longest wait since then: a
    #: stall under way at the fault counts from the fault on, one over before it not at all.
    fault_at: float | None = None
    max_stall_after_fault_s: float = 0.0
    rng: random.Random = field(default_factory=random.Random)

    def progressed(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if now - self.last_progress > self.max_stall_s:
            self.max_stall_s = now - self.last_progress
            self.max_stall_from = time.time() - self.max_stall_s
        if self.fault_at is not None and now > self.fault_at:
            since = now - max(self.last_progress, self.fault_at)
            self.max_stall_after_fault_s = max(self.max_stall_after_fault_s, since)
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
                attempts=120,
                max_delay=RETRY_MAX_DELAY_S,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.ABORTED:
                raise  # a bot got in first (ABORTED): the stream brings the next view
        else:
            run.acknowledged.add(request.command_id)
        run.progressed()


async def _one_fault(
    fault: str, stack: Stack, games: int, think_ms: float, seed: int
) -> dict[str, Any]:
    rollback = Rollback(stack.redis) if stack.redis is not None else None
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
        homes = await asyncio.to_thread(_homes, stack, runs)
        victim = _victim(fault, stack, runs, homes)
        fault_at = time.monotonic()
        for run in runs:
            run.fault_at = fault_at
        failover_s = await asyncio.to_thread(inject, fault, stack, rollback, victim)
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
            lost += len(run.acknowledged - {command_id for _, command_id in held.values()})
    finally:
        await store.close()
    failed = _failed_node(fault, stack, victim)
    others = [run for run in runs if failed is None or homes.get(run.game_id) != failed]
    for run in runs:
        if run.max_stall_s > STALL_REPORTED_S:
            began = time.strftime("%H:%M:%S", time.gmtime(run.max_stall_from))
            where = "its store failed" if run not in others else "its store did not fail"
            print(
                f"{fault}: game {run.game_id} ({where}) stalled {run.max_stall_s:.2f} s "
                f"from {began} UTC",
                file=sys.stderr,
            )
    return {
        "fault": fault,
        "games": games,
        "games_stuck": sum(1 for run in runs if not run.finished),
        "audit_findings": findings,
        "max_stall_s": round(max((run.max_stall_s for run in runs), default=0.0), 2),
        "other_shards_max_stall_s": round(max((run.max_stall_s for run in others), default=0.0), 2),
        "max_stall_after_fault_s": round(
            max((run.max_stall_after_fault_s for run in runs), default=0.0), 2
        ),
        "other_shards_max_stall_after_fault_s": round(
            max((run.max_stall_after_fault_s for run in others), default=0.0), 2
        ),
        "acknowledged_events_lost": lost,
        "client_errors": len(failures),
        **({"redis_failover_s": round(failover_s, 2)} if failover_s is not None else {}),
    }


def _homes(stack: Stack, runs: list[GameRun]) -> dict[str, int]:
    """Where each game's keys live: the port of its slot's master (0 on a standalone Redis).
    Every key of a game shares its hash tag, its wake-up included (services/game/timers)."""
    if stack.cluster is None:
        return {run.game_id: 0 for run in runs}
    return {
        run.game_id: stack.cluster.master_of(f"{{{run.game_id}}}").port
        for run in runs
        if run.game_id
    }


def _victim(
    fault: str, stack: Stack, runs: list[GameRun], homes: dict[str, int]
) -> RedisServer | None:
    """The master a cluster fault hurts: the first game's (a master kill), else the master of
    the most games."""
    if stack.cluster is None or not fault.startswith("cluster-") or not homes:
        return None
    if fault == "cluster-master-kill-9":
        return stack.cluster.node_at(homes[runs[0].game_id])
    busiest = max(set(homes.values()), key=list(homes.values()).count)
    return stack.cluster.node_at(busiest)


def _failed_node(fault: str, stack: Stack, victim: RedisServer | None) -> int | None:
    """The home (see `_homes`) of the games whose keys the fault hurt; None: no Redis failed."""
    if fault.startswith("redis-"):
        return 0
    return victim.port if victim is not None else None


def _kind_of(payload: bytes) -> tuple[str, str]:
    return _event_key(events_pb2.GameEvent.FromString(payload))


def run_faults_bench(
    faults: tuple[str, ...] = FAULTS,
    games: int = 8,
    think_ms: float = 300.0,
    broker: str | None = DEFAULT_BROKER,
    *,
    redis_cluster: int = 0,
    node_timeout_ms: int = DEFAULT_NODE_TIMEOUT_MS,
) -> dict[str, Any]:
    """Start the stack (on a private Redis Cluster of `redis_cluster` masters when not 0, its
    `cluster-node-timeout` `node_timeout_ms`), inject each fault in turn; the figures as one
    JSON-ready dict."""
    results: list[dict[str, Any]] = []
    # `timeout` and CI stop with SIGTERM: unwind, so that the stack's processes are stopped.
    signal.signal(signal.SIGTERM, _interrupted)
    workdir = Path(tempfile.mkdtemp(prefix="verrater-faults-"))
    try:
        with distributed_stack(broker, workdir, redis_cluster, node_timeout_ms) as stack:
            asyncio.run(_until_serving(stack))
            for number, fault in enumerate(faults):
                results.append(asyncio.run(_one_fault(fault, stack, games, think_ms, number)))
                asyncio.run(_until_serving(stack))
    finally:
        _keep_if_failed(workdir, results)
    return {
        "broker": (broker or "redis://").split("://", 1)[0],
        "redis_nodes": 2 * redis_cluster if redis_cluster else 1,
        **({"node_timeout_ms": node_timeout_ms} if redis_cluster else {}),
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
