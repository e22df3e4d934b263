"""Bot levels offered to players: one name per strength, mapped to a policy.

| level    | policy      | how it plays                                                      |
|----------|-------------|-------------------------------------------------------------------|
| `easy`   | `random`    | uniformly random legal moves                                      |
| `normal` | `heuristic` | expected-VP rules of thumb, instant                               |
| `hard`   | `ismcts`    | information-set MCTS over sampled hidden cards, 0.25 s per move   |
| `expert` | `expert`    | best moves tried on the same sampled rounds, judged by self-play  |

The levels are what clients choose from (a table's bot seats, `SuggestMove`); the policies are
what the levels are made of. `hard`'s thinking time can be changed per call. `expert` plays
the heuristic's best few moves on a fixed number of sampled rounds, dropping the worse half of
them after each batch (the same move for the same view and seed, on any machine), where a
network trained by self-play (`verrater train expert`, services/ai/training.py) judges how each
ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.engine import BotLevel

from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy
from .ismcts import DEFAULT_BUDGET_S, IsmctsPolicy
from .policy import Policy, RandomPolicy

#: The `expert` level's sampled rounds, and candidate moves tried on each, per decision; the
#: samples come in `EXPERT_STAGES` batches, the better half of the moves going on after each
#: (44 playouts a decision instead of 72, no weaker: docs/BENCHMARKS.md, "Bots").
EXPERT_SAMPLES = 12
EXPERT_CANDIDATES = 6
EXPERT_STAGES = 3


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
    BotLevel.EXPERT: Level(
        "expert",
        "expert",
        f"the heuristic's {EXPERT_CANDIDATES} best moves tried on the same sampled rounds (the "
        f"better half going on after each of {EXPERT_STAGES} batches, {EXPERT_SAMPLES} in all), "
        "judged by a value network trained by self-play",
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
    if policy == "expert":
        return expert_policy()
    return IsmctsPolicy(budget_s=DEFAULT_BUDGET_S if budget_s is None else budget_s)


def expert_policy(
    samples: int = EXPERT_SAMPLES, candidates: int = EXPERT_CANDIDATES, stages: int = EXPERT_STAGES
) -> ExpertPolicy:
    """The `expert` bot, with the value network shipped in the package."""
    from .value import shipped_value  # numpy, and the weights, only where an expert plays

    return ExpertPolicy(shipped_value(), samples=samples, candidates=candidates, stages=stages)


def searches(level: BotLevel | str) -> bool:
    """Whether the level's bot searches (spends real CPU time per decision) rather than
    answering at once; an unknown level does not (the bot refuses it when it plays)."""
    try:
        return LEVELS[BotLevel(level)].policy in ("ismcts", "expert")
    except ValueError:
        return False
