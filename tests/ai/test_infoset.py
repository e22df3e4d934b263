"""Determinization (`engine.infoset.sample_state`): a state the seat cannot tell from the real one.

The property that makes ISMCTS honest: whatever it samples, the seat's view of the sample is
its view of the real game, so a search over samples uses nothing the seat could not see.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine import (
    ActionCard,
    GameState,
    Phase,
    Ruleset,
    at_rest,
    evolve,
    execute,
    legal_commands,
    supply_count,
    to_act,
    view,
)
from services.engine.cards import SUPPLY_CARDS
from services.engine.infoset import sample_state
from services.engine.simulate import play_random_game

ALL_SUPPLY = Counter(SUPPLY_CARDS)


def decision_points(players: int, seed: int) -> Iterator[GameState]:
    """Every state of one random game where someone must decide (or the game is over)."""
    game = play_random_game(Ruleset.standard(players), random.Random(seed))
    state = GameState()
    for event in game.events:
        state = evolve(state, event)
        if at_rest(state):
            yield state


def hidden_facts(state: GameState, seat: int) -> tuple[object, ...]:
    """What `seat` may not see: other hands, draw pile order, set-aside card, others' picks."""
    others = tuple(hand for s, hand in enumerate(state.hands) if s != seat)
    picks = () if state.revealed else tuple(p for s, p in enumerate(state.picks) if s != seat)
    return others, state.deck, state.set_aside, picks


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(min_value=0, max_value=2**32))
def test_every_seat_sees_its_sample_exactly_as_it_sees_the_real_game(
    players: int, seed: int
) -> None:
    rng = random.Random(seed)
    ruleset = Ruleset.standard(players)
    for state in decision_points(players, seed):
        for seat in range(players):
            seen = view(state, seat)
            sample = sample_state(seen, ruleset, rng)
            assert view(sample, seat) == seen
            assert supply_count(sample) == ALL_SUPPLY, "the 23 supply cards are all somewhere"


@pytest.mark.parametrize("players", [3, 4])
def test_a_sample_plays_on_to_the_end_of_the_game(players: int) -> None:
    rng = random.Random(players)
    ruleset = Ruleset.standard(players)
    states = [s for s in decision_points(players, 7) if s.phase is not Phase.GAME_OVER]
    for state in states[:: max(1, len(states) // 12)]:
        sample = sample_state(view(state, to_act(state)[0]), ruleset, rng)
        while sample.phase is not Phase.GAME_OVER:
            seat = to_act(sample)[0]
            sample = execute(sample, rng.choice(legal_commands(sample, seat)))[1]
        assert sample.winners


def test_the_hidden_cards_are_drawn_afresh_not_copied() -> None:
    ruleset = Ruleset.standard(4)
    rng = random.Random(1)
    mid_game = [s for s in decision_points(4, 3) if s.round == 4 and s.phase is Phase.SUPPLY]
    state = mid_game[0]
    seat = to_act(state)[0]
    seen = view(state, seat)
    samples = [sample_state(seen, ruleset, rng) for _ in range(30)]
    real = hidden_facts(state, seat)
    assert sum(hidden_facts(sample, seat) == real for sample in samples) <= 1
    assert len({sample.set_aside for sample in samples}) > 1
    assert len({sample.seed for sample in samples}) == len(samples), "future shuffles differ"


def test_before_the_first_draw_every_hand_is_the_public_starting_hand() -> None:
    ruleset = Ruleset.standard(4)
    state = next(s for s in decision_points(4, 5) if s.phase is Phase.SUPPLY and s.turn == 2)
    sample = sample_state(view(state, 3), ruleset, random.Random(0))
    assert sample.hands == state.hands


def test_the_drafting_seat_keeps_what_it_is_offered_and_never_sees_the_set_aside_card() -> None:
    ruleset = Ruleset.standard(4)
    rng = random.Random(2)
    for state in decision_points(4, 11):
        if state.phase is not Phase.DRAFT:
            continue
        seat = to_act(state)[0]
        for _ in range(5):
            sample = sample_state(view(state, seat), ruleset, rng)
            assert sample.pool == state.pool
            assert sample.set_aside is not None and sample.set_aside not in state.pool
            dealt = [sample.set_aside, *sample.pool, *(p for p in sample.picks if p is not None)]
            assert sorted(dealt) == sorted(ActionCard), "six action cards, each once"


def test_a_spectator_has_no_information_set_to_sample() -> None:
    state = next(decision_points(4, 0))
    with pytest.raises(ValueError, match="spectator"):
        sample_state(view(state, None), Ruleset.standard(4), random.Random(0))
