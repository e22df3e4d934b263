"""The `verrater` command line: one entry point for every job of the project."""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _demo(args: argparse.Namespace) -> int:
    from services.audit.story import fitted, tell
    from services.engine import Ruleset, play_random_game

    rng = random.Random(args.seed)
    game = play_random_game(Ruleset.standard(args.players), rng)
    for line in fitted(tell(game.events), shutil.get_terminal_size().columns):
        print(line)
    return 0


def _bench_engine(args: argparse.Namespace) -> int:
    from services.bench.engine import run_engine_bench

    result = run_engine_bench(args.players, args.games, args.seed)
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print(f"players            {result.players}")
        print(f"games              {result.games} in {result.seconds:.2f} s")
        print(f"games per second   {result.games_per_s:.1f}")
        print(f"decisions per game {result.decisions_per_game:.1f}")
        print(f"events per game    {result.events_per_game:.1f}")
    return 0


def _bench_game(args: argparse.Namespace) -> int:
    import os

    from services.bench.game import run_game_bench

    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    result = run_game_bench(
        args.games,
        args.think_ms,
        args.duration,
        redis_url,
        args.api,
        redis_cluster=args.redis_cluster,
        spectators=args.spectators,
    )
    _print_figures(result, as_json=args.json)
    return 0


def _bench_echo(args: argparse.Namespace) -> int:
    from services.bench.echo import run_echo_bench

    _print_figures(run_echo_bench(args.duration, args.concurrency), as_json=args.json)
    return 0


def _bench_abuse(args: argparse.Namespace) -> int:
    from services.bench.abuse import run_abuse_bench

    figures = run_abuse_bench(
        play_messages=args.play_messages,
        fuzz_requests=args.fuzz_requests,
        guest_seconds=args.guest_seconds,
        seed=args.seed,
        chat_watchers=args.chat_watchers,
        chat_seconds=args.chat_seconds,
    )
    _print_figures(figures, as_json=args.json)
    return 0


def _print_figures(figures: dict[str, Any], *, as_json: bool) -> None:
    """A benchmark's figures: one JSON object, or one line per figure."""
    if as_json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:<16} {value}")


def _bench_bots(args: argparse.Namespace) -> int:
    from services.bench.bots import MATCHUPS, measure_ismcts_playouts, run_bot_tournament

    matchups = [tuple(pair.split(":", 1)) for pair in args.matchup] or MATCHUPS
    result = run_bot_tournament(
        args.games,
        args.budget,
        workers=args.workers,
        matchups=[(strong, weak) for strong, weak in matchups],
        progress=lambda so_far: print(f"so far: {json.dumps(so_far)}", file=sys.stderr, flush=True),
    )
    if args.json:
        print(json.dumps(result))
        return 0
    for matchup in result["matchups"]:
        print(
            f"{matchup['strong']:>6} vs {matchup['weak']:<6} {matchup['games']:>5} games  "
            f"win rate {matchup['win_rate']:.3f} "
            f"(95% CI {matchup['ci95_low']:.3f}-{matchup['ci95_high']:.3f})  "
            f"{matchup['seconds_per_decision']:.4f} s/decision (median)"
        )
    playouts = measure_ismcts_playouts(args.budget)
    print(f"ismcts playouts per second: {playouts['playouts_per_s']:.0f}")
    return 0


def _train_expert(args: argparse.Namespace) -> int:
    from services.ai.training import TrainingRun, read_weights, train_expert

    names = ("games", "expert_games", "expert_rounds", "seed", "epochs", "workers")
    given = {name: getattr(args, name) for name in names}
    run = TrainingRun(**{name: value for name, value in given.items() if value is not None})
    try:
        resume = None if args.resume is None else read_weights(args.resume)
        figures = train_expert(run, args.out, lambda line: print(line, file=sys.stderr), resume)
    except ValueError as error:
        print(f"verrater train expert: {error}", file=sys.stderr)
        return 2
    print(json.dumps(figures))
    return 0


def _bench_load(args: argparse.Namespace) -> int:
    import os

    from services.bench.load import run_load_bench

    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    result = run_load_bench(
        args.games,
        args.concurrency,
        args.duration,
        args.think_ms,
        redis_url,
        broker_url=args.broker,
        replicas=args.replicas,
        redis_cluster=args.redis_cluster,
        logs=args.logs,
    )
    _print_figures(result, as_json=args.json)
    return 0


def _bench_faults(args: argparse.Namespace) -> int:
    from services.bench.faults import CLUSTER_FAULTS, FAULTS, run_faults_bench

    faults = tuple(args.fault or (CLUSTER_FAULTS if args.redis_cluster else FAULTS))
    broker = None if args.broker == "redis" else args.broker
    result = run_faults_bench(
        faults,
        args.games,
        args.think_ms,
        broker,
        redis_cluster=args.redis_cluster,
        node_timeout_ms=args.node_timeout_ms,
    )
    if args.json:
        print(json.dumps(result))
    else:
        for row in result["faults"]:
            print(" ".join(f"{key}={value}" for key, value in row.items()))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    from dataclasses import replace

    from services.bootstrap import serve
    from services.config import ALL_SERVICES, Config
    from services.observability import configure_logging

    config = Config.from_env()
    overrides = {
        name: value
        for name, value in (
            ("bind", args.bind),
            ("redis_url", args.redis_url),
            ("log_level", args.log_level),
            ("game_address", args.game_addr),
            ("web_bind", args.web_bind),
        )
        if value is not None
    }
    config = replace(config, **overrides)
    configure_logging(config.log_level, config.log_format)
    services = ALL_SERVICES if args.service is None else frozenset({args.service})
    asyncio.run(serve(config, services))
    return 0


def _worker(args: argparse.Namespace) -> int:
    import logging
    import os
    from dataclasses import replace

    from services.ai.worker import make_app
    from services.bootstrap import worker_settings
    from services.config import Config, Listener, listening
    from services.observability import configure_logging, start_worker_metrics

    config = Config.from_env()
    if args.broker is not None:
        config = replace(config, broker_url=args.broker)
    concurrency = args.concurrency or config.worker_concurrency or os.cpu_count() or 1
    level = args.log_level or config.log_level
    json_logs = configure_logging(level, config.log_format)
    # Celery logs two lines per task at INFO: noise (and CPU) at hundreds of bot moves a second.
    for name in ("celery.app.trace", "celery.worker.strategy"):
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
    settings = worker_settings(config)  # a setting that cannot work stops it here
    with listening(f"0.0.0.0:{config.metrics_port}", Listener.METRICS):
        start_worker_metrics(config.metrics_port)
    app = make_app(settings)
    app.worker_main(
        argv=[
            # Celery's banner is plain text on stdout: not among JSON log lines.
            *(["--quiet"] if json_logs else []),
            "worker",
            f"--loglevel={level}",
            # Processes forked before any gRPC channel exists: each makes its own after the fork.
            "--pool=prefork",
            f"--concurrency={concurrency}",
            f"--queues={config.bot_queue}",
            # Two workers on one host must not share a node name.
            f"--hostname=verrater-{os.getpid()}@%h",
        ]
    )
    return 0


def _worker_ping(args: argparse.Namespace) -> int:
    """Exit 0 when this host's worker answers a Celery ping over the broker (health checks)."""
    import socket

    from services.ai.worker import make_app
    from services.bootstrap import worker_settings
    from services.config import Config

    app = make_app(worker_settings(Config.from_env()))
    host = socket.gethostname()
    replies = app.control.ping(timeout=args.timeout) or []
    mine = [name for reply in replies for name in reply if name.endswith(f"@{host}")]
    print(f"pong from {', '.join(mine)}" if mine else f"no worker on {host} answered")
    return 0 if mine else 1


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _matchup(text: str) -> str:
    """`STRONG:WEAK`, two bot levels."""
    from services.engine import BotLevel

    levels = text.split(":")
    known = [level.value for level in BotLevel]
    if len(levels) != 2 or not all(level in known for level in levels):
        raise argparse.ArgumentTypeError(
            f"a matchup is STRONG:WEAK, two of {', '.join(known)}; not {text}"
        )
    return text


def _train_parser(commands: Any) -> None:
    """`verrater train expert`: self-play and fit the expert bot's value network (the defaults
    are `TrainingRun`'s: numpy is imported only when it trains)."""
    train = commands.add_parser("train", help="train the bots that learn")
    bots = train.add_subparsers(dest="bot", required=True)
    expert = bots.add_parser(
        "expert", help="the expert level's value network, from heuristic then expert self-play"
    )
    expert.add_argument(
        "--games",
        type=_positive,
        help="heuristic self-play games with 4 players (half as many with 3)",
    )
    expert.add_argument(
        "--expert-games",
        type=_non_negative,
        help="4-player games of the expert against itself, to tune on (0: heuristic games only)",
    )
    expert.add_argument("--expert-rounds", type=_positive, help="rounds of those games, tuned")
    resume = "a file of this recipe with fewer rounds: play only the rounds it lacks"
    expert.add_argument("--resume", type=Path, metavar="FILE", help=resume)
    expert.add_argument("--seed", type=int)
    expert.add_argument("--epochs", type=_positive)
    expert.add_argument("--workers", type=_positive, help="processes")
    expert.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).parent / "ai" / "data" / "expert-v3.json",
        help="where the weights go (default: the package's, shipped with it)",
    )
    expert.set_defaults(handler=_train_expert)


def _cluster_option(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--redis-cluster",
        type=_positive,
        default=0,
        metavar="MASTERS",
        help="run on a private Redis Cluster of this many masters, a replica each (instead of "
        "one Redis)",
    )


def build_parser() -> argparse.ArgumentParser:
    from services.engine import PLAYER_COUNTS

    parser = argparse.ArgumentParser(
        prog="verrater", description="Verräter Online: backend, tools and benchmarks."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", help="play one complete game between random players and print it round by round"
    )
    demo.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=4)
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    demo.set_defaults(handler=_demo)

    serve = commands.add_parser("serve", help="run the backend's gRPC services")
    serve.add_argument(
        "service",
        nargs="?",
        choices=("game", "lobby", "ai", "web"),
        help="run one service alone (distributed mode; web: the browser's door to the others); "
        "default: all in one process, with the door",
    )
    serve.add_argument(
        "--game-addr", help="the game service, for a lobby on its own (VERRATER_GAME_ADDR)"
    )
    serve.add_argument("--bind", help="address:port to listen on (VERRATER_BIND, 127.0.0.1:50051)")
    serve.add_argument(
        "--web-bind",
        help="address:port of the browser's door: gRPC-Web and the page (VERRATER_WEB_BIND, "
        "127.0.0.1:8080; empty: no door)",
    )
    serve.add_argument("--redis-url", help="Redis for the event store (REDIS_URL; none: in memory)")
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING... (VERRATER_LOG_LEVEL, INFO)")
    serve.set_defaults(handler=_serve)

    worker = commands.add_parser(
        "worker",
        help="a Celery worker playing bot turns (VERRATER_BROKER_URL or REDIS_URL, "
        "VERRATER_GAME_ADDR)",
    )
    worker.add_argument("--log-level", help="DEBUG, INFO, WARNING... (VERRATER_LOG_LEVEL, INFO)")
    worker.add_argument(
        "--concurrency",
        type=_positive,
        default=None,
        help="worker processes (VERRATER_WORKER_CONCURRENCY; default: one per CPU)",
    )
    worker.add_argument("--broker", help="Celery's broker (VERRATER_BROKER_URL; default REDIS_URL)")
    worker.set_defaults(handler=_worker)

    ping = commands.add_parser(
        "worker-ping", help="health check: does this host's worker answer over the broker?"
    )
    ping.add_argument("--timeout", type=float, default=10.0)
    ping.set_defaults(handler=_worker_ping)

    _train_parser(commands)

    bench = commands.add_parser("bench", help="benchmarks that print measured figures")
    benches = bench.add_subparsers(dest="bench", required=True)
    engine = benches.add_parser(
        "engine", help="complete random games per second in one process (rules engine only)"
    )
    engine.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=4)
    engine.add_argument("--games", type=_positive, default=1000)
    engine.add_argument("--seed", type=int, default=0)
    engine.add_argument("--json", action="store_true", help="print one JSON object")
    engine.set_defaults(handler=_bench_engine)
    game = benches.add_parser(
        "game", help="the game service under load through gRPC on Redis (one service process)"
    )
    game.add_argument("--games", type=_positive, default=200, help="games played at once")
    game.add_argument(
        "--think-ms",
        type=float,
        default=200.0,
        help="mean think time per decision (0: closed loop)",
    )
    game.add_argument("--duration", type=float, default=20.0, help="seconds of load")
    game.add_argument(
        "--api",
        choices=("play", "unary"),
        default="play",
        help="how seats play: one Play stream each (default), or a Watch stream in TURNS mode "
        "and a SubmitCommand call per decision",
    )
    game.add_argument(
        "--spectators",
        type=int,
        default=0,
        help="Watch streams following each game besides its seats (every event, grouped)",
    )
    game.add_argument("--redis-url", help="Redis to use (REDIS_URL; none: a private redis-server)")
    _cluster_option(game)
    game.add_argument("--json", action="store_true", help="print one JSON object")
    game.set_defaults(handler=_bench_game)

    echo = benches.add_parser(
        "echo", help="a bare grpc.aio echo server: this machine's floor per gRPC call"
    )
    echo.add_argument("--duration", type=float, default=5.0, help="seconds of load")
    echo.add_argument("--concurrency", type=_positive, default=16, help="calls in flight")
    echo.add_argument("--json", action="store_true", help="print one JSON object")
    echo.set_defaults(handler=_bench_echo)

    from services.bench.commands import add_timers_command, add_watchers_command

    add_timers_command(benches, _positive, _non_negative, _print_figures)
    add_watchers_command(benches, _positive, _non_negative, _print_figures)

    abuse = benches.add_parser(
        "abuse",
        help="hostile clients against a fresh embedded server, with a canary game beside them",
    )
    abuse.add_argument(
        "--play-messages",
        type=_positive,
        default=100_000,
        help="decisions written on Play streams that nobody reads",
    )
    abuse.add_argument(
        "--fuzz-requests", type=_positive, default=3_000, help="calls of the fuzz corpus"
    )
    abuse.add_argument(
        "--guest-seconds", type=float, default=10.0, help="seconds of RegisterGuest flood"
    )
    abuse.add_argument(
        "--chat-watchers", type=_positive, default=1_000, help="WatchChat streams on one table"
    )
    abuse.add_argument(
        "--chat-seconds", type=float, default=10.0, help="seconds of chat flood at that table"
    )
    abuse.add_argument("--seed", type=int, default=0, help="seed of the fuzz corpus")
    abuse.add_argument("--json", action="store_true", help="print one JSON object")
    abuse.set_defaults(handler=_bench_abuse)

    bots = benches.add_parser(
        "bots", help="seat-rotated tournaments between bot levels, on both cores"
    )
    bots.add_argument(
        "--games",
        type=_positive,
        default=None,
        help="games per matchup (default: until each 95%% interval is at most ±5 points wide)",
    )
    bots.add_argument(
        "--matchup",
        action="append",
        default=[],
        type=_matchup,
        metavar="STRONG:WEAK",
        help="a matchup to play (repeatable; default: normal:easy hard:normal expert:normal "
        "expert:hard)",
    )
    bots.add_argument("--budget", type=float, default=0.25, help="hard's seconds per decision")
    bots.add_argument("--workers", type=_positive, default=2, help="processes")
    bots.add_argument("--json", action="store_true", help="print one JSON object")
    bots.set_defaults(handler=_bench_bots)

    load = benches.add_parser(
        "load", help="the whole distributed stack (lobby, game, ai, Celery workers, Redis)"
    )
    load.add_argument("--games", type=_positive, default=100, help="games to finish")
    load.add_argument("--concurrency", type=_positive, default=100, help="games at once")
    load.add_argument("--duration", type=float, default=110.0, help="at most this many seconds")
    load.add_argument(
        "--think-ms", type=float, default=300.0, help="the scripted seat's mean think time"
    )
    load.add_argument("--redis-url", help="Redis to use (REDIS_URL; none: a private one)")
    load.add_argument(
        "--broker",
        help="Celery's broker, e.g. amqp://guest:guest@127.0.0.1:5672// (default: the Redis)",
    )
    load.add_argument("--replicas", type=_positive, default=2, help="game service replicas")
    _cluster_option(load)
    load.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep each process's output in DIR/<process>.log (default: discarded)",
    )
    load.add_argument("--json", action="store_true", help="print one JSON object")
    load.set_defaults(handler=_bench_load)

    from services.bench.scale import add_command as add_scale_command

    add_scale_command(benches, _positive)

    from services.bench.faults import ALL_FAULTS, DEFAULT_BROKER, DEFAULT_NODE_TIMEOUT_MS

    faults = benches.add_parser(
        "faults",
        help="the distributed stack (two game replicas, two workers, Redis with AOF) through one "
        "fault at a time; every finished game audited",
    )
    faults.add_argument("--games", type=_positive, default=8, help="games in play per fault")
    faults.add_argument(
        "--think-ms", type=float, default=300.0, help="the scripted seat's mean think time"
    )
    faults.add_argument(
        "--broker",
        default=DEFAULT_BROKER,
        help=f"Celery's broker (default {DEFAULT_BROKER}; 'redis': the stack's Redis)",
    )
    faults.add_argument(
        "--fault", action="append", choices=ALL_FAULTS, help="only this fault (repeatable)"
    )
    _cluster_option(faults)
    faults.add_argument(
        "--node-timeout-ms",
        type=_positive,
        default=DEFAULT_NODE_TIMEOUT_MS,
        help="the cluster's cluster-node-timeout, with --redis-cluster (default "
        f"{DEFAULT_NODE_TIMEOUT_MS}, as docs/OPERATING.md recommends)",
    )
    faults.add_argument("--json", action="store_true", help="print one JSON object")
    faults.set_defaults(handler=_bench_faults)

    from services.audit.cli import add_commands as add_audit_commands

    add_audit_commands(commands)

    from services.audit.simulate import add_simulate_command

    add_simulate_command(commands)

    from services.chat.cli import add_commands as add_chat_commands

    add_chat_commands(commands)

    from services.client.cli import add_commands as add_client_commands

    add_client_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from services.config import ConfigError

    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
    except ConfigError as error:  # a setting to fix: say which, without a traceback
        print(f"verrater: {error}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
