"""Commands the rules forbid: a stable code, and nothing changes (no state change, no events)."""

from __future__ import annotations

import pytest

from services.engine import (
    BuildingSide,
    ChooseConflict,
    CreateGame,
    DiscardCards,
    PassBuild,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
    Ruleset,
    RuleViolation,
    ViolationCode,
    execute,
    fold,
    initial_state,
)
from tests.engine.scenario import BUILDER, FARMER, SEED, Game


def test_a_rule_violation_changes_nothing() -> None:
    game = Game()
    before = game.state.copy()
    events_before = list(game.events)
    with pytest.raises(RuleViolation) as refusal:
        execute(game.state, ChooseConflict(1, 0, 2))
    assert refusal.value.code is ViolationCode.NOT_ADJACENT
    assert game.state == before
    assert game.state.version == before.version
    assert fold(events_before) == game.state
    # The same game goes on exactly as if the refused command had never been given.
    untouched = Game()
    assert game.do(ChooseConflict(1, 0, 1)) == untouched.do(ChooseConflict(1, 0, 1))
    assert game.state == untouched.state


@pytest.mark.parametrize(
    "command",
    [
        PlaySupply(0, ()),
        PickActionCard(0, BUILDER),
        PassBuild(0),
        PlaceBuilding(0, 6, BuildingSide.ESTATE),
        DiscardCards(0, (3,)),
        PlaceFirstEstate(0, 6),
    ],
)
def test_a_command_of_another_phase_is_refused_as_wrong_phase(command: PlayerCommand) -> None:
    game = Game()  # waiting for the strategist to choose the conflict
    assert game.refuse(command) is ViolationCode.WRONG_PHASE


def test_a_conflict_cannot_be_chosen_during_the_draft() -> None:
    game = Game()
    game.conflict(4, 5)
    assert game.refuse(ChooseConflict(1, 6, 7)) is ViolationCode.WRONG_PHASE
    assert game.refuse(PlaySupply(0, ())) is ViolationCode.WRONG_PHASE


def test_a_player_acting_out_of_turn_is_refused_as_not_your_turn() -> None:
    game = Game()
    assert game.refuse(ChooseConflict(0, 4, 5)) is ViolationCode.NOT_YOUR_TURN
    game.conflict(4, 5)
    assert game.refuse(PickActionCard(1, FARMER)) is ViolationCode.NOT_YOUR_TURN
    game.draft({0: FARMER, 2: BUILDER})
    assert game.refuse(PlaySupply(1, ())) is ViolationCode.NOT_YOUR_TURN
    game.supply()
    assert game.refuse(PassBuild(0)) is ViolationCode.NOT_YOUR_TURN
    game.build()
    assert game.refuse(DiscardCards(1, ())) is ViolationCode.NOT_YOUR_TURN


def test_a_seat_outside_the_game_is_refused() -> None:
    game = Game(3)
    assert game.refuse(ChooseConflict(3, 4, 5)) is ViolationCode.INVALID_SEAT
    assert game.refuse(ChooseConflict(-1, 4, 5)) is ViolationCode.INVALID_SEAT


def test_no_player_command_before_the_game_is_created() -> None:
    with pytest.raises(RuleViolation) as refusal:
        execute(initial_state(), ChooseConflict(1, 4, 5))
    assert refusal.value.code is ViolationCode.GAME_NOT_STARTED


def test_a_game_is_created_only_once() -> None:
    game = Game()
    before = game.state.copy()
    with pytest.raises(RuleViolation) as refusal:
        execute(game.state, CreateGame(Ruleset.standard(4), SEED))
    assert refusal.value.code is ViolationCode.GAME_ALREADY_STARTED
    assert game.state == before


def test_a_refusal_tells_the_client_what_to_fix() -> None:
    game = Game()
    with pytest.raises(RuleViolation) as refusal:
        execute(game.state, ChooseConflict(1, 4, 6))
    assert refusal.value.code is ViolationCode.NOT_ADJACENT
    assert refusal.value.message
    assert refusal.value.field == "second"
