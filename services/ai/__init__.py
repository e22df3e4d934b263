"""Bot policies: every bot decides from a seat's `PlayerView` and the `Ruleset`, nothing more.

`Policy.choose(view, ruleset, rng) -> Choice(command, reason)`; `LEVELS` and
`policy_for_level` map the levels clients choose from (easy, normal, hard, expert) to policies.
"""

from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy, Weights
from .ismcts import DEFAULT_BUDGET_S, IsmctsPolicy, SearchResult
from .levels import LEVELS, Level, expert_policy, policy_for_level
from .policy import Choice, Policy, RandomPolicy

__all__ = [
    "DEFAULT_BUDGET_S",
    "LEVELS",
    "Choice",
    "ExpertPolicy",
    "HeuristicPolicy",
    "IsmctsPolicy",
    "Level",
    "Policy",
    "RandomPolicy",
    "SearchResult",
    "Weights",
    "expert_policy",
    "policy_for_level",
]
