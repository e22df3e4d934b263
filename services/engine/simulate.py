"""Play whole games between uniformly random players, in memory (tests, demo, benchmark)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import Ruleset
from .commands import CreateGame
from .events import Event, Phase
from .legal import legal_commands
from .rules import execute
from .state import GameState, initial_state
from .turns import to_act


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game: its events, its final state, and how many decisions it took."""

    events: list[Event]
    state: GameState
    decisions: int


def play_random_game(ruleset: Ruleset, rng: random.Random, seed: bytes | None = None) -> PlayedGame:
    """One complete game where every decision is uniformly random among the legal ones."""
    game_seed = seed if seed is not None else rng.randbytes(32)
    events, state = execute(initial_state(), CreateGame(ruleset, game_seed))
    decisions = 0
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        new_events, state = execute(state, command)
        events.extend(new_events)
        decisions += 1
    return PlayedGame(events, state, decisions)
