"""`verrater bench engine`: complete random games per second in one process on one core."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from services.engine import Ruleset, play_random_game


@dataclass(frozen=True, slots=True)
class EngineBenchResult:
    players: int
    games: int
    seconds: float
    games_per_s: float
    decisions_per_game: float
    events_per_game: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "players": self.players,
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games_per_s, 1),
            "decisions_per_game": round(self.decisions_per_game, 1),
            "events_per_game": round(self.events_per_game, 1),
        }


def run_engine_bench(players: int, games: int, seed: int = 0) -> EngineBenchResult:
    """Play `games` complete games between random players and time them (wall clock)."""
    ruleset = Ruleset.standard(players)
    rng = random.Random(seed)
    decisions = events = 0
    start = time.perf_counter()
    for _ in range(games):
        game = play_random_game(ruleset, rng)
        decisions += game.decisions
        events += len(game.events)
    seconds = time.perf_counter() - start
    return EngineBenchResult(
        players=players,
        games=games,
        seconds=seconds,
        games_per_s=games / seconds,
        decisions_per_game=decisions / games,
        events_per_game=events / games,
    )
