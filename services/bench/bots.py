"""`verrater bench bots`: how much stronger each bot level is than the ones below it.

A matchup seats one bot of the stronger level against three of the weaker one, in 4-player
games; the strong seat rotates through all four seats so that no seat advantage favours it.
Games run in-process on the engine (`execute`), every policy deciding from `view(state, seat)`
and the ruleset only, spread over worker processes. With four seats a level no better than its
opponents wins a quarter of the games.

Time is the deciding thread's CPU time, for the cost of a decision and for `hard`'s thinking
budget alike: on a machine shared with other work a wall-clock budget gives `hard` less CPU (a
weaker bot) while a fixed amount of work (`expert`'s) takes longer, so neither its strength nor
the cost of a decision would be the bot's own. `seconds_per_decision` is the median decision's
CPU seconds; `wall_seconds_per_decision` the median on the wall clock, for comparison.

Without a number of games, each matchup plays until its 95% interval is at most ±5 points wide
(`HALF_WIDTH`): a first round of games, then as many more as the win rate seen so far needs,
until the interval is narrow enough. The games of a matchup are the same whatever the number of
processes (each game's seed is its matchup and index).
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from services.ai import HeuristicPolicy, IsmctsPolicy, policy_for_level
from services.ai.policy import Policy
from services.engine import (
    CreateGame,
    Phase,
    Ruleset,
    execute,
    initial_state,
    to_act,
    view,
)

PLAYERS = 4
#: (strong, weak): each level against the one below it, and `expert` against both searchers'
#: neighbours.
MATCHUPS: tuple[tuple[str, str], ...] = (
    ("normal", "easy"),
    ("hard", "normal"),
    ("expert", "normal"),
    ("expert", "hard"),
)
#: Without a number of games: play until each 95% interval is at most this wide on each side.
HALF_WIDTH = 0.05
#: The first round of games of a matchup, and the most it ever plays (without a number).
FIRST_ROUND = 100
MOST_GAMES = 1600
#: Games between two progress reports.
PROGRESS_EVERY = 8


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, from the strong seat's side."""

    strong_seat: int
    final_vp: tuple[int, ...]
    winners: tuple[int, ...]
    strong_seconds: tuple[float, ...]
    strong_wall_seconds: tuple[float, ...]


def play_game(
    strong: Policy, weak: Policy, strong_seat: int, seed: bytes, rng: random.Random
) -> GameResult:
    """One game: `strong` in `strong_seat`, `weak` everywhere else; each sees only its view."""
    ruleset = Ruleset.standard(PLAYERS)
    _, state = execute(initial_state(), CreateGame(ruleset, seed))
    seconds: list[float] = []
    wall: list[float] = []
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        seen = view(state, seat)
        if seat == strong_seat:
            started, cpu = time.perf_counter(), time.thread_time()
            choice = strong.choose(seen, ruleset, rng)
            seconds.append(time.thread_time() - cpu)
            wall.append(time.perf_counter() - started)
        else:
            choice = weak.choose(seen, ruleset, rng)
        _, state = execute(state, choice.command)
    return GameResult(strong_seat, state.vp, state.winners, tuple(seconds), tuple(wall))


def bench_policy(level: str, budget_s: float) -> Policy:
    """The level's bot, `hard` thinking for `budget_s` seconds of its thread's CPU time."""
    if level == "hard":
        return IsmctsPolicy(budget_s=budget_s, clock=time.thread_time)
    return policy_for_level(level)


def _play_matchup_game(task: tuple[str, str, float, int]) -> GameResult:
    strong_level, weak_level, budget_s, index = task
    strong = bench_policy(strong_level, budget_s)
    weak = bench_policy(weak_level, budget_s)
    label = f"bench-bots:{strong_level}:{weak_level}:{index}".encode()
    seed = hashlib.sha256(label).digest()
    return play_game(strong, weak, index % PLAYERS, seed, random.Random(seed))


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% with the default z)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def games_needed(successes: float, trials: int, half_width: float = HALF_WIDTH) -> int:
    """How many games the win rate seen in `trials` needs for a 95% Wilson interval at most
    `half_width` wide on each side (at least `trials`)."""
    needed = trials
    while needed < MOST_GAMES:
        low, high = wilson_interval(successes / trials * needed if trials else needed / 2, needed)
        if (high - low) / 2 <= half_width:
            break
        needed += PLAYERS
    return needed


def _wins(results: Sequence[GameResult]) -> float:
    """The strong seat's wins, a win shared by k players counting 1/k."""
    return sum(1 / len(r.winners) for r in results if r.strong_seat in r.winners)


def summarize(strong: str, weak: str, results: list[GameResult]) -> dict[str, Any]:
    """A matchup's line of the report: win share of the strong seat (ties split) and more."""
    games = len(results)
    wins = _wins(results)
    low, high = wilson_interval(wins, games)
    seconds = [s for r in results for s in r.strong_seconds]
    wall = [s for r in results for s in r.strong_wall_seconds]
    strong_vp = [r.final_vp[r.strong_seat] for r in results]
    weak_vp = [vp for r in results for s, vp in enumerate(r.final_vp) if s != r.strong_seat]
    return {
        "strong": strong,
        "weak": weak,
        "games": games,
        "win_rate": round(wins / games, 4) if games else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
        "ci95_low": round(low, 4),
        "ci95_high": round(high, 4),
        "seconds_per_decision": round(statistics.median(seconds), 6) if seconds else 0.0,
        "mean_seconds_per_decision": round(statistics.fmean(seconds), 6) if seconds else 0.0,
        "wall_seconds_per_decision": round(statistics.median(wall), 6) if wall else 0.0,
        "mean_vp": {
            "strong": round(sum(strong_vp) / len(strong_vp), 2) if strong_vp else 0.0,
            "weak": round(sum(weak_vp) / len(weak_vp), 2) if weak_vp else 0.0,
        },
    }


def run_bot_tournament(
    games: int | None,
    budget_s: float,
    workers: int = 2,
    matchups: Sequence[tuple[str, str]] = MATCHUPS,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play seat-rotated games per matchup: `games` of them, or (None) until each 95% interval
    is at most ±`HALF_WIDTH`; `budget_s` is `hard`'s time per decision. The matchups' games
    are interleaved, and `progress` hears the report of the games so far after every
    `PROGRESS_EVERY` (a long run can be read while it runs).

    Returns {"matchups": [{"strong", "weak", "games", "win_rate", "ci95_low", "ci95_high",
    "ci95": [low, high], "seconds_per_decision" (the strong level's median, CPU),
    "mean_seconds_per_decision", "wall_seconds_per_decision", "mean_vp": {"strong", "weak"}},
    ...]}.
    """
    played: dict[tuple[str, str], list[GameResult]] = {pair: [] for pair in matchups}
    target = {pair: games if games is not None else FIRST_ROUND for pair in matchups}

    def report() -> dict[str, Any]:
        return {"matchups": [summarize(*pair, results) for pair, results in played.items()]}

    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        while True:
            # Round robin over the matchups, so that each has played its share at any time.
            tasks = [
                (strong, weak, budget_s, index)
                for index in range(max(target.values()))
                for (strong, weak), results in played.items()
                if len(results) <= index < target[strong, weak]
            ]
            if not tasks:
                break
            for done, (task, result) in enumerate(_play_all(tasks, pool), start=1):
                played[task[0], task[1]].append(result)
                if progress is not None and done % PROGRESS_EVERY == 0:
                    progress(report())
            if games is None:
                for pair, so_far in played.items():
                    target[pair] = games_needed(_wins(so_far), len(so_far))
    finally:
        if pool is not None:
            pool.shutdown()
    return report()


def _play_all(
    tasks: list[tuple[str, str, float, int]], pool: ProcessPoolExecutor | None
) -> Iterator[tuple[tuple[str, str, float, int], GameResult]]:
    """Each task with its game, as the games end."""
    if pool is None:
        for task in tasks:
            yield task, _play_matchup_game(task)
        return
    futures = {pool.submit(_play_matchup_game, task): task for task in tasks}
    for future in as_completed(futures):
        yield futures[future], future.result()


def measure_ismcts_playouts(budget_s: float, games: int = 1, seed: int = 0) -> dict[str, Any]:
    """ISMCTS playouts (iterations: one sample, one tree walk, one playout to the end) per second.

    Heuristic bots play `games` 4-player games; at every decision of seat 0 with a choice, an
    ISMCTS search with `budget_s` runs on seat 0's view and is timed (its move is not played,
    so the games, and the positions searched, do not depend on the machine's speed). Early
    decisions play out whole games and get the fewest playouts; the minimum is the figure
    that limits the bot's strength.
    """
    ruleset = Ruleset.standard(PLAYERS)
    search = IsmctsPolicy(budget_s=budget_s)
    mover = HeuristicPolicy()
    rng = random.Random(seed)
    counts: list[int] = []
    seconds = 0.0
    for _ in range(games):
        _, state = execute(initial_state(), CreateGame(ruleset, rng.randbytes(32)))
        while state.phase is not Phase.GAME_OVER:
            seat = to_act(state)[0]
            seen = view(state, seat)
            if seat == 0 and len(seen.legal) > 1:
                result = search.search(seen, ruleset, rng)
                counts.append(result.iterations)
                seconds += result.seconds
            _, state = execute(state, mover.choose(seen, ruleset, rng).command)
    return {
        "budget_s": budget_s,
        "decisions": len(counts),
        "playouts_per_s": round(sum(counts) / seconds, 1) if seconds else 0.0,
        "playouts_per_decision": {
            "min": min(counts, default=0),
            "median": sorted(counts)[len(counts) // 2] if counts else 0,
            "max": max(counts, default=0),
        },
    }


if __name__ == "__main__":
    import argparse
    import json

    parser = argparse.ArgumentParser(description="bot levels against each other")
    parser.add_argument("--games", type=int, default=None, help="games per matchup")
    parser.add_argument("--budget", type=float, default=0.25, help="hard's seconds per decision")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    report = run_bot_tournament(args.games, args.budget, args.workers)
    report["ismcts_playouts"] = measure_ismcts_playouts(args.budget)
    print(json.dumps(report, indent=2))
