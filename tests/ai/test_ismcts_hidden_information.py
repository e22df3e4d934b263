"""ISMCTS decides from the seat's view alone: hidden cards cannot reach its decision.

Two games that differ only in what the seat may not see (the draw pile's order, the set-aside
action card, the other hands) give the seat the same view, and the same seeded search then
makes the same decision with the same reason, for `hard` (samples played to the end) and
`expert` (samples played to the next round and judged by its value network) alike. The policy
takes nothing but the view: handed the game state, it refuses.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from typing import get_type_hints

import pytest

from services.ai import IsmctsPolicy, expert_policy
from services.ai.policy import Policy
from services.engine import (
    ActionCard,
    CreateGame,
    GameState,
    Phase,
    PlayerView,
    PlaySupply,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    to_act,
    view,
)
from services.engine.infoset import sample_state
from tests.engine.scenario import BUILDER, DECK, DIPLOMAT2, DIPLOMAT5, STRATEGIST, Game

ITERATIONS = 60
SEARCHES: dict[str, Callable[[], Policy]] = {
    "hard": lambda: IsmctsPolicy(budget_s=None, iterations=ITERATIONS),
    "expert": lambda: expert_policy(samples=8),
}


def decide(policy: Policy, seen: PlayerView, ruleset: Ruleset) -> tuple[object, str]:
    choice = policy.choose(seen, ruleset, random.Random(2024))
    return choice.command, choice.reason


@pytest.mark.parametrize("level", list(SEARCHES))
def test_games_differing_in_draw_pile_and_set_aside_card_get_the_same_decision(level: str) -> None:
    # The same table, but another draw pile order and another card set aside in the draft.
    picks = {0: BUILDER, 1: STRATEGIST, 2: DIPLOMAT2, 3: DIPLOMAT5}
    a = Game(deck=DECK[4], set_aside=(ActionCard.TRAITOR,))
    b = Game(deck=tuple(reversed(DECK[4])), set_aside=(ActionCard.FARMER,))
    for game in (a, b):
        game.conflict(11, 0)
        game.draft(picks)
        game.do(PlaySupply(0, (4,)))
        game.do(PlaySupply(1, (3, 5)))
    assert a.state.deck != b.state.deck and a.state.set_aside != b.state.set_aside
    assert a.view(2) == b.view(2)
    policy = SEARCHES[level]()
    ruleset = a.state.rules
    assert decide(policy, a.view(2), ruleset) == decide(policy, b.view(2), ruleset)


def mid_game_decision(seed: int) -> GameState:
    """A supply decision in round 4 of a game played at random."""
    rng = random.Random(seed)
    _, state = execute(initial_state(), CreateGame(Ruleset.standard(4), rng.randbytes(32)))
    while not (state.round == 4 and state.phase is Phase.SUPPLY):
        assert state.phase is not Phase.GAME_OVER, "this seed's game must last four rounds"
        seat = to_act(state)[0]
        state = execute(state, rng.choice(legal_commands(state, seat)))[1]
    return state


@pytest.mark.parametrize("level", list(SEARCHES))
def test_games_differing_in_the_other_hands_get_the_same_decision(level: str) -> None:
    state = mid_game_decision(5)
    seat = to_act(state)[0]
    seen = view(state, seat)
    ruleset = state.rules
    # Another game the seat cannot tell apart: same view, other hands and draw pile.
    rng = random.Random(1)
    other = sample_state(seen, ruleset, rng)
    while other.hands == state.hands:
        other = sample_state(seen, ruleset, rng)
    assert view(other, seat) == seen
    policy = SEARCHES[level]()
    assert decide(policy, view(state, seat), ruleset) == decide(policy, view(other, seat), ruleset)


def test_the_policy_api_takes_a_view_and_refuses_the_game_state() -> None:
    hints = get_type_hints(IsmctsPolicy.choose)
    assert hints["view"] is PlayerView
    assert list(inspect.signature(IsmctsPolicy.choose).parameters) == [
        "self",
        "view",
        "ruleset",
        "rng",
    ]
    assert get_type_hints(Policy.choose)["view"] is PlayerView
    state = mid_game_decision(6)
    with pytest.raises(TypeError, match="PlayerView"):
        IsmctsPolicy(budget_s=None, iterations=5).choose(
            state,  # type: ignore[arg-type]
            state.rules,
            random.Random(0),
        )
