"""Every bot plays whole games with legal moves only, deciding from its seat's view alone."""

from __future__ import annotations

import random

import pytest

from services.ai import (
    LEVELS,
    Choice,
    ExpertPolicy,
    HeuristicPolicy,
    IsmctsPolicy,
    Policy,
    RandomPolicy,
    expert_policy,
    policy_for_level,
)
from services.engine import (
    CreateGame,
    Phase,
    Ruleset,
    execute,
    initial_state,
    to_act,
    view,
)

POLICIES: dict[str, Policy] = {
    "random": RandomPolicy(),
    "heuristic": HeuristicPolicy(),
    "ismcts": IsmctsPolicy(budget_s=None, iterations=6),
    "expert": expert_policy(samples=2, candidates=3, stages=2),
}


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("name", list(POLICIES))
def test_a_policy_plays_a_whole_game_with_legal_moves_only(name: str, players: int) -> None:
    policy = POLICIES[name]
    ruleset = Ruleset.standard(players)
    rng = random.Random(players)
    _, state = execute(initial_state(), CreateGame(ruleset, rng.randbytes(32)))
    decisions = 0
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        seen = view(state, seat)
        choice = policy.choose(seen, ruleset, rng)
        assert isinstance(choice, Choice)
        assert choice.command in seen.legal
        assert choice.reason
        _, state = execute(state, choice.command)
        decisions += 1
    assert state.winners
    assert decisions > 40


@pytest.mark.parametrize("name", list(POLICIES))
def test_a_policy_refuses_the_game_state_and_the_spectator_view(name: str) -> None:
    ruleset = Ruleset.standard(4)
    _, state = execute(initial_state(), CreateGame(ruleset, bytes(32)))
    policy = POLICIES[name]
    with pytest.raises(TypeError, match="PlayerView"):
        policy.choose(state, ruleset, random.Random(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="spectator"):
        policy.choose(view(state, None), ruleset, random.Random(0))


def test_a_policy_refuses_a_view_of_a_seat_that_has_nothing_to_decide() -> None:
    ruleset = Ruleset.standard(4)
    _, state = execute(initial_state(), CreateGame(ruleset, bytes(32)))
    idle = (to_act(state)[0] + 1) % 4
    with pytest.raises(ValueError, match="no decision"):
        HeuristicPolicy().choose(view(state, idle), ruleset, random.Random(0))


def test_the_levels_are_random_heuristic_ismcts_and_expert() -> None:
    assert list(LEVELS) == ["easy", "normal", "hard", "expert"]
    assert isinstance(policy_for_level("easy"), RandomPolicy)
    assert isinstance(policy_for_level("normal"), HeuristicPolicy)
    hard = policy_for_level("hard")
    assert isinstance(hard, IsmctsPolicy)
    assert hard.budget_s is not None and hard.budget_s <= 0.25
    quick = policy_for_level("hard", budget_s=0.05)
    assert isinstance(quick, IsmctsPolicy) and quick.budget_s == 0.05
    # A number of samples, not a time: the same decision on a busy machine as on a quiet one.
    assert isinstance(policy_for_level("expert"), ExpertPolicy)


def test_an_unknown_level_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="easy, normal, hard, expert"):
        policy_for_level("grandmaster")


class Ticks:
    """A clock each reading of which is 10 ms after the last: one search iteration per tick."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.01
        return self.now


def test_ismcts_stops_before_an_iteration_would_overrun_its_budget() -> None:
    """On a clock stepped by hand (a busy machine's scheduler cannot stretch it): iterations of
    10 ms in a 50 ms budget stop after the fourth, as a fifth would end past the deadline."""
    ruleset = Ruleset.standard(4)
    _, state = execute(initial_state(), CreateGame(ruleset, bytes(32)))
    seen = view(state, to_act(state)[0])
    result = IsmctsPolicy(budget_s=0.05, clock=Ticks()).search(seen, ruleset, random.Random(0))
    assert result.iterations == 4
    assert result.seconds <= 0.05 + 0.01, "never an iteration past the deadline"
    assert result.command in seen.legal
    # On the real clock it searches and answers with a legal move (how long is not a test's
    # business on a shared machine: `verrater bench bots` reports seconds per decision).
    timed = IsmctsPolicy(budget_s=0.05).search(seen, ruleset, random.Random(0))
    assert timed.iterations >= 1 and timed.command in seen.legal
