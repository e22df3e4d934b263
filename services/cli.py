"""The `verrater` command line: one entry point for every job of the project."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from services.game.engine import Ruleset
    from services.game.engine.simulate import play_random_game
    from services.game.story import tell

    rng = random.Random(args.seed)
    game = play_random_game(Ruleset.standard(args.players), rng)
    for line in tell(game.events):
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


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="verrater", description="Verräter Online: backend, tools and benchmarks."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", help="play one complete game between random players and print it round by round"
    )
    demo.add_argument("--players", type=int, choices=(3, 4), default=4)
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    demo.set_defaults(handler=_demo)

    bench = commands.add_parser("bench", help="benchmarks that print measured figures")
    benches = bench.add_subparsers(dest="bench", required=True)
    engine = benches.add_parser(
        "engine", help="complete random games per second in one process (rules engine only)"
    )
    engine.add_argument("--players", type=int, choices=(3, 4), default=4)
    engine.add_argument("--games", type=_positive, default=1000)
    engine.add_argument("--seed", type=int, default=0)
    engine.add_argument("--json", action="store_true", help="print one JSON object")
    engine.set_defaults(handler=_bench_engine)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
