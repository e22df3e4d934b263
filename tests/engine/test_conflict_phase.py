"""RULES.md, phase 1 (conflict): two adjacent landscapes of different houses."""

from __future__ import annotations

import random

import pytest

from services.engine import (
    ChooseConflict,
    House,
    Phase,
    Ruleset,
    ViolationCode,
    evolve,
    initial_state,
    legal_commands,
    to_act,
)
from services.engine.events import ConflictChosen, ConflictResolved
from services.engine.simulate import play_random_game
from tests.engine.scenario import EAGLE, STRATEGIST, Game, only, ring


def test_the_strategist_chooses_the_conflict() -> None:
    game = Game(start_player=2)
    assert to_act(game.state) == (3,)
    for seat in (0, 1, 2):
        assert game.refuse(ChooseConflict(seat, 4, 5)) is ViolationCode.NOT_YOUR_TURN
    game.do(ChooseConflict(3, 4, 5))
    assert only(game.last, ConflictChosen) == [ConflictChosen(3, 4, 5)]
    assert game.state.conflict == (4, 5)
    assert game.view(0).conflict == (4, 5)


@pytest.mark.parametrize(("first", "second"), [(0, 2), (0, 6), (3, 9), (5, 5), (11, 1), (10, 0)])
def test_the_two_landscapes_of_the_conflict_must_be_adjacent(first: int, second: int) -> None:
    game = Game()
    assert game.refuse(ChooseConflict(1, first, second)) is ViolationCode.NOT_ADJACENT


@pytest.mark.parametrize(("first", "second"), [(11, 0), (0, 11)])
def test_the_ring_closes_so_positions_11_and_0_are_adjacent(first: int, second: int) -> None:
    game = Game()
    game.do(ChooseConflict(1, first, second))
    assert game.state.conflict == (first, second)
    assert game.state.phase is Phase.DRAFT


@pytest.mark.parametrize(("first", "second"), [(4, 5), (5, 4)])
def test_either_neighbour_may_be_named_first(first: int, second: int) -> None:
    game = Game()
    game.do(ChooseConflict(1, first, second))
    assert game.state.phase is Phase.DRAFT


def test_the_two_landscapes_must_belong_to_different_houses() -> None:
    eagle_at_0_and_1_rose_at_2_and_3 = ring(
        "E city", "E wasteland", "R village", "R meadow", "E forest", "R river",
        "E river", "R forest", "E meadow", "R wasteland", "E village", "R city",
    )  # fmt: skip
    game = Game(landscapes=eagle_at_0_and_1_rose_at_2_and_3)
    assert game.refuse(ChooseConflict(1, 0, 1)) is ViolationCode.SAME_HOUSE
    assert game.refuse(ChooseConflict(1, 2, 3)) is ViolationCode.SAME_HOUSE
    game.do(ChooseConflict(1, 1, 2))
    assert game.state.conflict == (1, 2)


def test_a_conquered_landscape_cannot_be_fought_over_with_its_conqueror() -> None:
    game = Game()
    game.play_round(conflict=(0, 1), picks={0: STRATEGIST})  # Eagle city beats Rose wasteland
    assert game.state.houses[1] is EAGLE
    assert game.state.strategist == 0
    assert game.refuse(ChooseConflict(0, 0, 1)) is ViolationCode.SAME_HOUSE
    assert game.refuse(ChooseConflict(0, 1, 2)) is ViolationCode.SAME_HOUSE
    game.do(ChooseConflict(0, 11, 0))
    assert game.state.conflict == (11, 0)


def test_a_conflict_outside_the_ring_is_refused() -> None:
    game = Game()
    assert game.refuse(ChooseConflict(1, 11, 12)) is ViolationCode.INVALID_POSITION
    assert game.refuse(ChooseConflict(1, -1, 0)) is ViolationCode.INVALID_POSITION


def test_the_legal_conflicts_are_exactly_the_neighbours_of_different_houses() -> None:
    game = Game()
    pairs = {
        (c.first, c.second) for c in legal_commands(game.state, 1) if isinstance(c, ChooseConflict)
    }
    assert pairs == {(pos, (pos + 1) % 12) for pos in range(12)}


@pytest.mark.parametrize("players", [3, 4])
def test_a_legal_conflict_exists_whenever_the_strategist_must_choose(players: int) -> None:
    for game_number in range(6):
        played = play_random_game(Ruleset.standard(players), random.Random(game_number))
        state = initial_state()
        for event in played.events:
            state = evolve(state, event)
            if state.phase is Phase.CONFLICT and state.conflict is None:
                assert legal_commands(state, state.strategist)
                assert len(set(state.houses)) == 2


@pytest.mark.parametrize("players", [3, 4])
def test_each_houses_strength_adds_up_from_its_landscape_its_backers_cards_and_diplomats(
    players: int,
) -> None:
    for seed in range(20):
        game = play_random_game(Ruleset.standard(players), random.Random(seed))
        state = initial_state()
        for event in game.events:
            state = evolve(state, event)
            if not isinstance(event, ConflictResolved):
                continue
            summary = state.last_conflict
            assert summary is not None
            strengths = summary.strengths()
            assert strengths is not None
            eagle, rose = strengths
            for house, part, total in (
                (House.EAGLE, eagle, event.eagle_strength),
                (House.ROSE, rose, event.rose_strength),
            ):
                assert part.total == total
                assert state.houses[part.position] is house
                assert part.landscape == state.rules.card_table[state.kinds[part.position]].cp
                backers = [seat for seat, backs in enumerate(state.allegiance) if backs is house]
                assert [seat for seat, _ in part.seats] == backers
                assert part.diplomats in (0, 2, 5, 7)
