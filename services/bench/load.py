"""`verrater bench load`: the whole distributed stack under many concurrent games.

Starts Redis (REDIS_URL, or a private redis-server), `verrater serve lobby`, N `verrater serve
game` replicas (two by default, each advertising its own address: the lobby balances over them
round robin, the workers submit a bot's move to the replica that announced the turn),
`verrater serve ai` and two `verrater worker` processes on a broker (`--broker`: a RabbitMQ URL,
or by default the same Redis), then plays G games, C at a time, from the lobby to the final
score: one scripted seat per game (thinking an exponentially distributed time of mean T ms
before each decision; each game's client keeps to one replica, the replicas taking turns) and
three bot seats played by the Celery workers.

It reports commands per second in the steady state (all seats' decisions while every slot has
a game in play: the ramp while the stack comes up and the games are set up, and the tail where
the last games finish one by one, are left out) and over the whole run, games finished per
minute, the scripted seat's SubmitCommand latency, bot-move latency (from the state where a bot
must act to the bot's decision arriving on the Watch stream), each process's peak memory and
its CPU per command.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import re
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc import aio

from services.api.verrater.v1 import (
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2_grpc,
)
from services.devtools.redis_cluster import local_redis_cluster
from services.devtools.redis_server import local_redis
from services.engine import DECISION_EVENTS

from .common import (
    cpu_seconds,
    free_port,
    patiently,
    percentile,
    private_queue,
    sit_down,
    stack_env,
    verrater_process,
    wait_until_serving,
)

SECRET = "load-bench-secret-only-for-this-local-run"
#: Tries of a setup call or of the scripted seat's decision while a starved machine answers
#: UNAVAILABLE or DEADLINE_EXCEEDED (about 7 s of waiting in all).
SETUP_ATTEMPTS = 8


@dataclass
class _Tally:
    submit_ms: list[float] = field(default_factory=list)
    bot_move_ms: list[float] = field(default_factory=list)
    commands: int = 0
    games: int = 0
    errors: int = 0
    #: The steady state: from the first decision seen to the first slot left without a game.
    first_command: float | None = None
    steady_until: float | None = None
    steady_commands: int = 0

    def command(self) -> None:
        now = time.perf_counter()
        if self.first_command is None:
            self.first_command = now
        self.commands += 1
        if self.steady_until is None:
            self.steady_commands += 1

    def steady_rate(self) -> float:
        if self.first_command is None:
            return 0.0
        until = self.steady_until or time.perf_counter()
        return self.steady_commands / max(until - self.first_command, 1e-9)


def _cpu_of_tree(pid: int) -> float:
    """CPU seconds of a process and its children so far (0 when gone)."""
    total = cpu_seconds(pid) or 0.0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(_cpu_of_tree(int(child)) for child in children)


def _peak_memory_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM) in MiB, 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0


async def _one_game(
    lobby: Any, game: Any, think_ms: float, rng: random.Random, tally: _Tally
) -> None:
    game_id, seat, token = await sit_down(
        lobby, f"Load {rng.randrange(10**6)}", attempts=SETUP_ATTEMPTS
    )
    bot_waiting_since: float | None = None
    updates = game.Watch(
        game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_EVENTS, grouped=True),
        metadata=token,
    )
    async for response in updates:  # one response per batch appended together
        for update in response.updates:
            if update.event.WhichOneof("event") in _DECISIONS:
                if bot_waiting_since is not None:
                    tally.bot_move_ms.append((time.perf_counter() - bot_waiting_since) * 1000)
                    bot_waiting_since = None
                tally.command()
        update = response.updates[-1]
        if not update.HasField("view"):
            continue
        view = update.view
        if view.phase == events_pb2.PHASE_GAME_OVER:
            tally.games += 1
            return
        if seat not in view.turn.seats:
            bot_waiting_since = time.perf_counter()
            continue
        await asyncio.sleep(rng.expovariate(1000.0 / think_ms) if think_ms > 0 else 0)
        started = time.perf_counter()
        decision = game_pb2.SubmitCommandRequest(
            game_id=game_id,
            expected_version=view.version,
            command_id=uuid.uuid4().hex,
            command=rng.choice(list(view.legal)),
            version_only=True,  # the stream brings the events and the view
        )
        try:
            await patiently(
                functools.partial(game.SubmitCommand, decision, metadata=token),
                attempts=SETUP_ATTEMPTS,
            )
            tally.submit_ms.append((time.perf_counter() - started) * 1000)
        except grpc.aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.ABORTED:  # a bot discarding at the same time
                raise
            tally.errors += 1


#: The GameEvent oneof names of decision events (proto names are the engine's, snake_cased).
_DECISIONS = frozenset(
    re.sub(r"(?<!^)(?=[A-Z])", "_", event.__name__).lower() for event in DECISION_EVENTS
)


async def _drive(
    lobby_port: int,
    game_addresses: list[str],
    *,
    games: int,
    concurrency: int,
    think_ms: float,
    deadline: float,
) -> _Tally:
    """Play the games. Each game's client keeps to one game replica (they take turns), as a
    client on one long-lived connection through a layer-4 balancer does."""
    tally = _Tally()
    async with (
        aio.insecure_channel(f"127.0.0.1:{lobby_port}") as lobby_channel,
        contextlib.AsyncExitStack() as channels,
    ):
        replicas = []
        for address in game_addresses:
            channel = await channels.enter_async_context(aio.insecure_channel(address))
            await wait_until_serving(channel)
            replicas.append(game_pb2_grpc.GameServiceStub(channel))
        await wait_until_serving(lobby_channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        started = 0
        lock = asyncio.Lock()

        async def slot(index: int) -> None:
            nonlocal started
            rng = random.Random(index)
            while time.monotonic() < deadline:
                async with lock:
                    if started >= games:
                        break
                    started += 1
                    game = replicas[started % len(replicas)]
                await _one_game(lobby, game, think_ms, rng, tally)
            if tally.steady_until is None:
                tally.steady_until = time.perf_counter()

        await asyncio.gather(*[slot(i) for i in range(concurrency)])
    return tally


def run_load_bench(
    games: int,
    concurrency: int,
    duration: float,
    think_ms: float,
    redis_url: str | None,
    *,
    broker_url: str | None = None,
    replicas: int = 2,
    redis_cluster: int = 0,
    logs: Path | None = None,
) -> dict[str, Any]:
    """Run the whole stack and drive it; the figures as one JSON-ready dict.

    With ``logs`` (a directory), each process's output is kept there as `<process>.log`
    (`game-1.log`, `worker-2.log`, ...): what to read when a run goes slow.

    With ``redis_cluster`` masters (and a replica each) the game data lives on a private
    Redis Cluster, and Celery's broker (unless ``broker_url`` names one) on a private
    standalone Redis beside it: a cluster cannot be a broker.
    """
    with ExitStack() as stack:
        redis_nodes = 1
        if redis_cluster:
            cluster = stack.enter_context(local_redis_cluster(redis_cluster))
            url, redis_nodes = cluster.url, len(cluster.nodes)
            broker = broker_url or stack.enter_context(local_redis())
        else:
            url = redis_url or stack.enter_context(local_redis())
            broker = broker_url or url
        queue = stack.enter_context(private_queue(broker))
        lobby_port, ai_port = free_port(), free_port()
        game_ports = [free_port() for _ in range(replicas)]
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="verrater-load-")))
        env = stack_env(url, broker, queue, SECRET, game_ports, scratch=scratch)
        processes = {}

        def start(name: str, args: list[str], more: dict[str, str] | None = None) -> None:
            log = logs / f"{name}.log" if logs is not None else None
            processes[name] = stack.enter_context(
                verrater_process(args, {**env, **(more or {})}, log)
            )

        for index, port in enumerate(game_ports, start=1):
            address = f"127.0.0.1:{port}"
            own = {"VERRATER_BIND": address, "VERRATER_ADVERTISE_ADDR": address}
            start("game" if replicas == 1 else f"game-{index}", ["serve", "game"], own)
        start("lobby", ["serve", "lobby"], {"VERRATER_BIND": f"127.0.0.1:{lobby_port}"})
        start("ai", ["serve", "ai"], {"VERRATER_BIND": f"127.0.0.1:{ai_port}"})
        for index in (1, 2):
            start(f"worker-{index}", ["worker", "--concurrency", "2"])
        started = time.monotonic()
        client_cpu = cpu_seconds(os.getpid()) or 0.0
        tally = asyncio.run(
            _drive(
                lobby_port,
                [f"127.0.0.1:{port}" for port in game_ports],
                games=games,
                concurrency=concurrency,
                think_ms=think_ms,
                deadline=started + duration,
            )
        )
        elapsed = time.monotonic() - started
        memory = {name: round(_peak_memory_mb(p.pid), 1) for name, p in processes.items()}
        cpu = {
            name: round(_cpu_of_tree(p.pid) * 1000 / max(tally.commands, 1), 3)
            for name, p in processes.items()
        }
        cpu["load-generator"] = round(
            ((cpu_seconds(os.getpid()) or 0.0) - client_cpu) * 1000 / max(tally.commands, 1), 3
        )
    return {
        "games": tally.games,
        "concurrency": concurrency,
        "think_ms": think_ms,
        "broker": broker.split("://", 1)[0],
        "game_replicas": replicas,
        "redis_nodes": redis_nodes,
        "seconds": round(elapsed, 1),
        "games_per_min": round(tally.games / elapsed * 60, 1),
        "commands_per_s": round(tally.steady_rate(), 1),
        "overall_commands_per_s": round(tally.commands / elapsed, 1),
        "p50_ms": round(percentile(tally.submit_ms, 0.50), 2),
        "p95_ms": round(percentile(tally.submit_ms, 0.95), 2),
        "p99_ms": round(percentile(tally.submit_ms, 0.99), 2),
        "bot_move_p50_ms": round(percentile(tally.bot_move_ms, 0.50), 2),
        "bot_move_p99_ms": round(percentile(tally.bot_move_ms, 0.99), 2),
        "stale_retries": tally.errors,
        "peak_memory_mb": memory,
        "cpu_ms_per_command": cpu,
    }
