"""Bot levels offered to players: one name per strength, mapped to a policy.

| level    | policy      | how it plays                                                      |
|----------|-------------|-------------------------------------------------------------------|
| `easy`   | `random`    | uniformly random legal moves                                      |
| `normal` | `heuristic` | expected-VP rules of thumb, instant                               |
| `hard`   | `ismcts`    | information-set MCTS over sampled hidden cards, 0.25 s per move   |

The levels are what clients choose from (a table's bot seats, `SuggestMove`); the policies are
what the levels are made of. `hard`'s thinking time can be changed per call.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.engine import BotLevel

from .heuristic import HeuristicPolicy
from .ismcts import DEFAULT_BUDGET_S, IsmctsPolicy
from .policy import Policy, RandomPolicy


@dataclass(frozen=True, slots=True)
class Level:
    """One bot strength offered to players."""

    name: str
    policy: str
    description: str


LEVELS: dict[BotLevel, Level] = {
    BotLevel.EASY: Level("easy", "random", "uniformly random legal moves"),
    BotLevel.NORMAL: Level("normal", "heuristic", "expected-VP rules of thumb, instant"),
    BotLevel.HARD: Level(
        "hard", "ismcts", f"information-set MCTS, {DEFAULT_BUDGET_S:g} s per decision"
    ),
}


def policy_for_level(level: BotLevel | str, *, budget_s: float | None = None) -> Policy:
    """The policy behind a level (or its name); `budget_s` overrides `hard`'s thinking time per
    decision."""
    try:
        policy = LEVELS[BotLevel(level)].policy
    except ValueError:
        names = ", ".join(LEVELS)
        raise ValueError(f"unknown bot level {level!r}; choose one of {names}") from None
    if policy == "random":
        return RandomPolicy()
    if policy == "heuristic":
        return HeuristicPolicy()
    return IsmctsPolicy(budget_s=DEFAULT_BUDGET_S if budget_s is None else budget_s)


def searches(level: BotLevel | str) -> bool:
    """Whether the level's bot searches (spends real CPU time per decision) rather than
    answering at once; an unknown level does not (the bot refuses it when it plays)."""
    try:
        return LEVELS[BotLevel(level)].policy == "ismcts"
    except ValueError:
        return False
