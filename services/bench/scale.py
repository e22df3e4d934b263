"""`verrater bench scale`: many concurrent games, most of them idle, on the distributed stack.

Starts a private Redis (or, with `--redis-cluster N`, a private Redis Cluster of N masters and
a replica each, with a private Redis beside it as Celery's broker), `verrater serve lobby`,
`--replicas` game replicas, `verrater serve ai` and two `verrater worker` processes, each with
the operator path's settings (docs/OPERATING.md, "Setting up many games at once"). Then:

1. Setup: players register and open, join and start `--games` tables through the lobby
   (services/bench/scale_setup.py); the games wait for a person's decision with a 14-day turn
   timer (one in twenty has three bots, who play until the host must decide). `INFO memory`
   before and after gives Redis's bytes per game; `MEMORY USAGE` sampled per key kind
   (services/bench/scale_memory.py) says where they go.
2. `--timer-games` more tables of four people with turn timers of 5 to 9 seconds, who never
   decide: the stand-ins' decisions are the timers firing.
3. The measured phase (services/bench/scale_measure.py) for `--seconds`: people's commands on
   games nobody touched since setup, `--rate` a second over `--active` games at a time;
   ListMyGames; "your turn" notifications; the turn timers. Each process's CPU meanwhile
   (Redis's and the bench's own included) gives `cpu_ms_per_command`: what one person's
   command costs the machine, all in.
4. With `--sweep RATE,...`, one more measured phase at each of those rates, each on games
   nobody touched yet (`sweep`: the latencies and CPU at each rate: where the machine stops
   meeting the targets).

Everything runs in a temporary directory removed at the end, Redis included: nothing is left
behind. Prints one JSON object (the contract's keys, see docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from grpc import aio

from services.api.verrater.v1 import game_pb2_grpc, lobby_pb2_grpc
from services.devtools.redis_cluster import RedisClusterServers
from services.devtools.redis_server import start_private_redis

from .common import CHANNEL_OPTIONS, cpu_seconds, free_port, percentile, stack_env, verrater_process
from .common import wait_until_serving as serving
from .load import _cpu_of_tree, _peak_memory_mb
from .scale_measure import Figures, measure
from .scale_memory import key_count, memory_by_kind, used_memory
from .scale_setup import IDLE_TURN_SECONDS, Players, SetUpGame, open_tables, register

SECRET = "scale-bench-secret-only-for-this-local-run"
#: The operator path for setting up many games at once (docs/OPERATING.md): the lobby's rates
#: off (common.UNLIMITED) and player tokens that outlast the setup.
OPERATOR_PATH = {"VERRATER_TOKEN_TTL": "86400"}
#: Seconds with every game idle, each process's CPU measured (no per-game work in any loop
#: that runs all the time: the same at any number of games).
IDLE_SECONDS = 5.0
#: The timer games' turn timers: 5 to 9 seconds.
TIMER_SECONDS = (5, 6, 7, 8, 9)


def _say(line: str) -> None:
    print(f"bench scale: {line}", file=sys.stderr, flush=True)


async def _drive(
    lobby_addresses: list[str],
    game_addresses: list[str],
    masters: list[str],
    options: argparse.Namespace,
    *,
    say: Callable[[str], None],
    cpu: Callable[[], dict[str, float]],
) -> dict[str, Any]:
    async with (
        aio.insecure_channel(
            "ipv4:" + ",".join(lobby_addresses), options=CHANNEL_OPTIONS
        ) as lobby_channel,
        aio.insecure_channel(
            "ipv4:" + ",".join(game_addresses), options=CHANNEL_OPTIONS
        ) as game_channel,
    ):
        for address in game_addresses + lobby_addresses:
            async with aio.insecure_channel(address) as channel:
                await serving(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        game = game_pb2_grpc.GameServiceStub(game_channel)
        baseline = used_memory(masters)
        started = time.monotonic()
        cpu_before = cpu()
        count = max(4, options.setup_concurrency, -(-options.games * 4 // options.per_player))
        players: Players = await register(lobby, count, options.setup_concurrency)
        failed: list[str] = []
        say(f"{count} players registered; setting up {options.games} games")
        idle: list[SetUpGame] = await open_tables(
            lobby,
            players,
            range(options.games),
            turn_seconds=lambda _: IDLE_TURN_SECONDS,
            concurrency=options.setup_concurrency,
            progress=lambda done: say(f"{done} games set up"),
            failed=failed,
        )
        setup_seconds = time.monotonic() - started
        cpu_after = cpu()
        setup_cpu = {
            name: round((cpu_after[name] - cpu_before[name]) * 1000 / max(len(idle), 1), 2)
            for name in cpu_after
        }
        say(f"{len(idle)} games set up in {setup_seconds:.0f} s; reading Redis's memory")
        memory = used_memory(masters)
        by_kind = memory_by_kind(masters, len(idle))
        keys = key_count(masters)
        # Every game idle: what the processes' loops that run all the time cost now.
        idle_before, idle_started = cpu(), time.monotonic()
        await asyncio.sleep(IDLE_SECONDS)
        idle_after, idle_seconds = cpu(), time.monotonic() - idle_started
        idle_cpu = _cpu_rates(idle_before, idle_after, idle_seconds)
        del idle_cpu["bench"]
        timed = await open_tables(
            lobby,
            players,
            range(options.games, options.games + options.timer_games),
            turn_seconds=lambda index: TIMER_SECONDS[index % len(TIMER_SECONDS)],
            concurrency=options.setup_concurrency,
            with_bots=lambda _: False,
            failed=failed,
        )
        untouched = iter(idle)

        async def phase(rate: float) -> tuple[Figures, dict[str, float]]:
            say(f"measuring for {options.seconds:.0f} s at {rate:g} commands a second")
            before, phase_started = cpu(), time.monotonic()
            figures = await measure(
                lobby,
                game,
                players,
                untouched,
                timed,
                active=options.active,
                rate=rate,
                seconds=options.seconds,
            )
            after, seconds = cpu(), time.monotonic() - phase_started
            # Every process's CPU while the phase ran (Redis included): where the cores went.
            return figures, _cpu_rates(before, after, seconds)

        figures, measured_cpu = await phase(options.rate)
        sweep = [_rate_figures(rate, *await phase(rate)) for rate in options.sweep]
        after = used_memory(masters)
    per_game = (memory - baseline) / max(len(idle), 1)
    return {
        "games": len(idle) + len(timed),
        "active_games": len(figures.games_touched),
        "commands_per_s": round(figures.commands_per_s, 1),
        "p99_ms": _p99(figures.submit_ms),
        "cold_load_p99_ms": _p99(figures.cold_load_ms),
        "list_my_games_p99_ms": _p99(figures.list_ms),
        "notify_p99_ms": _p99(figures.notify_ms),
        "timers_fired": len(figures.timer_late_ms),
        "timer_lateness_p99_ms": _p99(figures.timer_late_ms),
        "redis_used_memory_mb": round(memory / 2**20, 1),
        "redis_bytes_per_game": round(per_game),
        "replica_peak_rss_mb": {},  # filled in by the caller, who holds the processes
        "setup_seconds": round(setup_seconds, 1),
        "setup_games_per_s": round(len(idle) / max(setup_seconds, 1e-9), 1),
        "setup_cpu_ms_per_game": setup_cpu,
        "idle_cpu_ms_per_s": idle_cpu,
        "measured_cpu_ms_per_s": measured_cpu,
        "cpu_ms_per_command": _cpu_per_command(figures, measured_cpu),
        "sweep": sweep,
        "setup_failures": len(failed),
        "setup_failure_examples": sorted(set(failed))[:3],
        "players": count,
        "games_per_player": round(4 * len(idle) / count, 1),
        "redis_baseline_mb": round(baseline / 2**20, 1),
        "redis_after_measuring_mb": round(after / 2**20, 1),
        "redis_keys": keys,
        "redis_by_kind": by_kind,
        "measured_seconds": round(figures.seconds, 1),
        "commands": len(figures.submit_ms),
        "cold_loads": len(figures.cold_load_ms),
        "list_my_games_calls": len(figures.list_ms),
        "notifications_timed": len(figures.notify_ms),
        "stale_retries": figures.stale,
        "failed_calls": figures.failures,
        "p50_ms": _percentile(figures.submit_ms, 0.50),
        "cold_load_p50_ms": _percentile(figures.cold_load_ms, 0.50),
        "list_my_games_p50_ms": _percentile(figures.list_ms, 0.50),
        "notify_p50_ms": _percentile(figures.notify_ms, 0.50),
        "timer_lateness_p50_ms": _percentile(figures.timer_late_ms, 0.50),
    }


def _cpu_rates(
    before: dict[str, float], after: dict[str, float], seconds: float
) -> dict[str, float]:
    """Each process's CPU, in ms a second, between two readings `seconds` apart."""
    return {name: round((after[name] - before[name]) * 1000 / seconds, 1) for name in after}


def _cpu_per_command(figures: Figures, cpu_ms_per_s: dict[str, float]) -> float:
    """The CPU of every process (the stack, Redis, the bench) per person's command."""
    return round(sum(cpu_ms_per_s.values()) / max(figures.commands_per_s, 1e-9), 2)


def _rate_figures(rate: float, figures: Figures, cpu_ms_per_s: dict[str, float]) -> dict[str, Any]:
    """One sweep phase's figures: the contract's latency keys at `rate`."""
    return {
        "rate": rate,
        "commands_per_s": round(figures.commands_per_s, 1),
        "p50_ms": _percentile(figures.submit_ms, 0.50),
        "p99_ms": _p99(figures.submit_ms),
        "cold_load_p50_ms": _percentile(figures.cold_load_ms, 0.50),
        "cold_load_p99_ms": _p99(figures.cold_load_ms),
        "list_my_games_p99_ms": _p99(figures.list_ms),
        "notify_p99_ms": _p99(figures.notify_ms),
        "timer_lateness_p99_ms": _p99(figures.timer_late_ms),
        "cpu_ms_per_command": _cpu_per_command(figures, cpu_ms_per_s),
        "cpu_ms_per_s": cpu_ms_per_s,
        "failed_calls": figures.failures,
    }


def _percentile(values: list[float], q: float) -> float:
    return round(percentile(values, q), 2)


def _p99(values: list[float]) -> float:
    return _percentile(values, 0.99)


def run_scale_bench(
    options: argparse.Namespace, say: Callable[[str], None] = _say
) -> dict[str, Any]:
    """The whole run (see the module docstring); the figures as one JSON-ready dict."""
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="verrater-scale-")))
        if options.redis_cluster:
            cluster = RedisClusterServers(workdir / "cluster", masters=options.redis_cluster)
            cluster.start()
            stack.callback(cluster.stop)
            url = cluster.url
            masters = [node.url for node in cluster.nodes[: options.redis_cluster]]
            broker_server = start_private_redis(workdir / "broker")
            stack.callback(broker_server.stop)
            broker = broker_server.url
        else:
            server = start_private_redis(workdir / "redis")
            stack.callback(server.stop)
            url = broker = server.url
            masters = [url]
        ai_port = free_port()
        lobby_ports = [free_port() for _ in range(options.lobbies)]
        game_ports = [free_port() for _ in range(options.replicas)]
        env = {
            **stack_env(
                url, broker, "verrater.bench.scale", SECRET, game_ports, scratch=workdir / "tmp"
            ),
            **OPERATOR_PATH,
        }
        logs: Path | None = options.logs
        processes = {}
        redis_pids = {
            f"redis-{index}": node.pid
            for index, node in enumerate(
                cluster.nodes if options.redis_cluster else [server], start=1
            )
            if node.pid is not None
        }

        def start(name: str, args: list[str], more: dict[str, str] | None = None) -> None:
            log = logs / f"{name}.log" if logs is not None else None
            processes[name] = stack.enter_context(
                verrater_process(args, {**env, **(more or {})}, log)
            )

        for index, port in enumerate(game_ports, start=1):
            address = f"127.0.0.1:{port}"
            own = {"VERRATER_BIND": address, "VERRATER_ADVERTISE_ADDR": address}
            start(f"game-{index}", ["serve", "game"], own)
        for index, port in enumerate(lobby_ports, start=1):
            start(f"lobby-{index}", ["serve", "lobby"], {"VERRATER_BIND": f"127.0.0.1:{port}"})
        start("ai", ["serve", "ai"], {"VERRATER_BIND": f"127.0.0.1:{ai_port}"})
        for index in (1, 2):
            start(f"worker-{index}", ["worker", "--concurrency", "2"])
        result = asyncio.run(
            _drive(
                [f"127.0.0.1:{port}" for port in lobby_ports],
                [f"127.0.0.1:{port}" for port in game_ports],
                masters,
                options,
                say=say,
                cpu=lambda: (
                    {name: _cpu_of_tree(process.pid) for name, process in processes.items()}
                    | {name: cpu_seconds(pid) or 0.0 for name, pid in redis_pids.items()}
                    | {"bench": cpu_seconds(os.getpid()) or 0.0}
                ),
            )
        )
        result["replica_peak_rss_mb"] = {
            name: round(_peak_memory_mb(process.pid), 1)
            for name, process in processes.items()
            if name.startswith("game-")
        }
        result["peak_rss_mb"] = {
            name: round(_peak_memory_mb(process.pid), 1) for name, process in processes.items()
        }
    return result


def add_command(benches: Any, positive: Callable[[str], int]) -> None:
    """`verrater bench scale` and its options."""
    scale = benches.add_parser(
        "scale",
        help="many concurrent games, most idle, on the distributed stack: latency, timers, "
        "Redis memory per game",
    )
    scale.add_argument("--games", type=positive, default=100_000, help="games set up")
    scale.add_argument(
        "--active", type=positive, default=200, help="games commanded at once (measured phase)"
    )
    scale.add_argument("--rate", type=float, default=200.0, help="people's commands a second")
    scale.add_argument(
        "--seconds",
        type=float,
        default=60.0,
        help="each measured phase's length (60 s: some 600 ListMyGames calls for its p99)",
    )
    scale.add_argument(
        "--sweep",
        type=_rates,
        default=(),
        metavar="RATE,...",
        help="after the measured phase, one more at each of these rates (commands a second)",
    )
    scale.add_argument(
        "--timer-games", type=int, default=20, help="games whose 5-9 s turn timers fire"
    )
    scale.add_argument("--per-player", type=positive, default=100, help="games per player")
    scale.add_argument(
        "--setup-concurrency", type=positive, default=64, help="tables set up at once"
    )
    scale.add_argument("--replicas", type=positive, default=2, help="game service replicas")
    scale.add_argument("--lobbies", type=positive, default=2, help="lobby replicas")
    scale.add_argument(
        "--redis-cluster",
        type=positive,
        default=0,
        metavar="MASTERS",
        help="run on a private Redis Cluster of this many masters, a replica each",
    )
    scale.add_argument("--logs", type=Path, metavar="DIR", help="keep each process's output")
    scale.add_argument("--json", action="store_true", help="print one JSON object")
    scale.set_defaults(handler=_command)


def _rates(text: str) -> tuple[float, ...]:
    try:
        rates = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of rates: {text!r}") from None
    if not rates or any(rate <= 0 for rate in rates):
        raise argparse.ArgumentTypeError(f"rates must be positive numbers: {text!r}")
    return rates


def _command(args: argparse.Namespace) -> int:
    # Stopped from outside (`timeout`, a CI job's end): unwind, so that every process and the
    # private Redis it started stop and its folder goes, as at the end of a run.
    signal.signal(signal.SIGTERM, _stopped)
    result = run_scale_bench(args)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<24} {value}")
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return 0


def _stopped(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
