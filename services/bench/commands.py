"""The command lines of the small Redis benches (`verrater bench timers`, `verrater bench
watchers`): their options here, their work imported only when one runs, so that every other
`verrater` command starts without it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Printer = Callable[..., None]
"""How a bench's figures are printed: `print_figures(figures, as_json=...)`."""


def _cluster_masters(parser: Any, non_negative: Callable[[str], int]) -> None:
    parser.add_argument(
        "--redis-cluster",
        type=non_negative,
        default=3,
        metavar="MASTERS",
        help="masters of the private Redis Cluster (a replica each); 0: one private Redis",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def add_timers_command(
    benches: Any, positive: Callable[[str], int], non_negative: Callable[[str], int], out: Printer
) -> None:
    """`verrater bench timers` (services/bench/timers.py)."""
    timers = benches.add_parser(
        "timers",
        help="one timer sweeper's CPU per claim, with many games' wake-ups waiting (Redis "
        "Cluster by default)",
    )
    timers.add_argument("--games", type=positive, default=30_000, help="wake-ups waiting")
    timers.add_argument("--claims", type=positive, default=500, help="claims measured")
    _cluster_masters(timers, non_negative)

    def run(args: Any) -> int:
        from services.bench.timers import run_timers_bench

        out(run_timers_bench(args.games, args.claims, args.redis_cluster), as_json=args.json)
        return 0

    timers.set_defaults(handler=run)


def add_watchers_command(
    benches: Any, positive: Callable[[str], int], non_negative: Callable[[str], int], out: Printer
) -> None:
    """`verrater bench watchers` (services/bench/watchers.py)."""
    watchers = benches.add_parser(
        "watchers",
        help="what players watching their notifications cost a lobby while nothing comes, and "
        "a notification's delivery then (Redis Cluster by default)",
    )
    watchers.add_argument(
        "--watchers", type=positive, default=5_000, help="WatchNotifications subscriptions"
    )
    watchers.add_argument("--seconds", type=positive, default=10, help="idle time measured")
    _cluster_masters(watchers, non_negative)

    def run(args: Any) -> int:
        from services.bench.watchers import run_watchers_bench

        figures = run_watchers_bench(args.watchers, args.seconds, args.redis_cluster)
        out(figures, as_json=args.json)
        return 0

    watchers.set_defaults(handler=run)
