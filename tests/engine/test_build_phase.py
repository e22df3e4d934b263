"""RULES.md, a round, phase 7: the builder places, flips, or passes (or moves, in a variant)."""

from __future__ import annotations

import pytest

from services.engine import (
    BuildingSide,
    FlipBuilding,
    MoveBuilding,
    PassBuild,
    Phase,
    PlaceBuilding,
    Ruleset,
    ViolationCode,
    legal_commands,
    to_act,
)
from services.engine.buildings import Building
from services.engine.events import (
    ActionCardsRevealed,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildPassed,
)
from tests.engine.scenario import BUILDER, STRATEGIST, Game, first_legal_conflict, only

ESTATE, TRADING_POST = BuildingSide.ESTATE, BuildingSide.TRADING_POST


def reach_build(game: Game, builder: int = 0) -> None:
    """Play the current round up to the build phase, with `builder` holding the builder."""
    game.conflict(*first_legal_conflict(game.state))
    game.draft({builder: BUILDER})
    game.supply()
    assert game.state.phase is Phase.BUILD
    assert to_act(game.state) == (builder,)


def build_round(game: Game, command: PlaceBuilding | FlipBuilding | MoveBuilding) -> None:
    """A whole round in which seat `command.seat` holds the builder and gives `command`."""
    reach_build(game, command.seat)
    game.do(command)
    game.finish_round()


@pytest.mark.parametrize("side", [ESTATE, TRADING_POST])
def test_the_builder_places_an_unplaced_building_either_side_up(side: BuildingSide) -> None:
    game = Game()
    reach_build(game)
    game.do(PlaceBuilding(0, 6, side))
    assert only(game.last, BuildingPlaced) == [BuildingPlaced(0, 6, side)]
    assert game.state.buildings[6] == Building(0, side)
    assert game.view(2).seats[0].unplaced_buildings == 1


def test_only_the_builder_decides_in_the_build_phase() -> None:
    game = Game()
    reach_build(game, builder=2)
    assert game.refuse(PassBuild(0)) is ViolationCode.NOT_YOUR_TURN
    assert game.refuse(PlaceBuilding(1, 6, ESTATE)) is ViolationCode.NOT_YOUR_TURN
    assert game.refuse(FlipBuilding(1, 1)) is ViolationCode.NOT_YOUR_TURN


def test_a_landscape_never_holds_more_than_one_building() -> None:
    game = Game()  # seat s has its first estate under landscape s
    reach_build(game)
    assert game.refuse(PlaceBuilding(0, 0, ESTATE)) is ViolationCode.LANDSCAPE_OCCUPIED
    assert game.refuse(PlaceBuilding(0, 3, TRADING_POST)) is ViolationCode.LANDSCAPE_OCCUPIED
    assert game.refuse(PlaceBuilding(0, 12, ESTATE)) is ViolationCode.INVALID_POSITION


def test_the_builder_may_flip_one_of_their_buildings_to_its_other_side() -> None:
    game = Game()
    build_round(game, FlipBuilding(0, 0))
    assert only(game.events, BuildingFlipped) == [BuildingFlipped(0, 0, TRADING_POST)]
    assert game.state.buildings[0] == Building(0, TRADING_POST)
    build_round(game, FlipBuilding(0, 0))
    assert game.state.buildings[0] == Building(0, ESTATE)


def test_the_builder_may_not_flip_a_building_that_is_not_theirs() -> None:
    game = Game()
    reach_build(game)
    assert game.refuse(FlipBuilding(0, 1)) is ViolationCode.NOT_YOUR_BUILDING
    assert game.refuse(FlipBuilding(0, 5)) is ViolationCode.NOT_YOUR_BUILDING  # no building


def test_the_builder_may_pass() -> None:
    game = Game()
    reach_build(game)
    before = game.state.buildings
    game.do(PassBuild(0))
    assert only(game.last, BuildPassed) == [BuildPassed(0)]
    assert game.state.buildings == before


def test_the_builder_does_one_thing_per_round() -> None:
    game = Game()
    reach_build(game)
    game.do(PlaceBuilding(0, 6, ESTATE))
    assert game.state.phase is not Phase.BUILD
    assert game.refuse(PlaceBuilding(0, 7, ESTATE)) is ViolationCode.WRONG_PHASE


def test_a_player_whose_three_buildings_are_in_play_has_none_left_to_place() -> None:
    game = Game()
    build_round(game, PlaceBuilding(0, 6, ESTATE))
    build_round(game, PlaceBuilding(0, 8, ESTATE))
    reach_build(game)
    assert game.view(0).seats[0].unplaced_buildings == 0
    assert game.refuse(PlaceBuilding(0, 10, ESTATE)) is ViolationCode.NO_BUILDING_LEFT
    assert not any(isinstance(c, PlaceBuilding) for c in legal_commands(game.state, 0))


def test_no_third_trading_post_may_be_placed() -> None:
    game = Game()
    build_round(game, PlaceBuilding(0, 6, TRADING_POST))
    build_round(game, FlipBuilding(0, 0))
    reach_build(game)
    assert game.refuse(PlaceBuilding(0, 8, TRADING_POST)) is ViolationCode.TRADING_POST_LIMIT
    game.do(PlaceBuilding(0, 8, ESTATE))
    assert game.state.trading_posts(0) == 2


def test_no_building_may_be_flipped_into_a_third_trading_post() -> None:
    game = Game()
    build_round(game, PlaceBuilding(0, 6, TRADING_POST))
    build_round(game, PlaceBuilding(0, 8, TRADING_POST))
    reach_build(game)
    assert game.refuse(FlipBuilding(0, 0)) is ViolationCode.TRADING_POST_LIMIT
    game.do(FlipBuilding(0, 6))  # a trading post may still turn back into an estate
    assert game.state.buildings[6] == Building(0, ESTATE)


def test_buildings_never_move_in_the_standard_rules() -> None:
    assert Ruleset.standard(4).builder_may_move is False
    game = Game()
    reach_build(game)
    assert game.refuse(MoveBuilding(0, 0, 6, ESTATE)) is ViolationCode.VARIANT_DISABLED
    assert not any(isinstance(c, MoveBuilding) for c in legal_commands(game.state, 0))


@pytest.mark.parametrize("side", [ESTATE, TRADING_POST])
def test_variant_builder_may_move_a_building_to_a_free_landscape_choosing_its_side(
    side: BuildingSide,
) -> None:
    game = Game(builder_may_move=True)
    reach_build(game)
    game.do(MoveBuilding(0, 0, 6, side))
    assert only(game.last, BuildingMoved) == [BuildingMoved(0, 0, 6, side)]
    assert game.state.buildings[0] is None
    assert game.state.buildings[6] == Building(0, side)
    assert game.view(1).seats[0].unplaced_buildings == 2


def test_variant_move_only_own_buildings_and_only_to_a_free_landscape() -> None:
    game = Game(builder_may_move=True)
    reach_build(game)
    assert game.refuse(MoveBuilding(0, 1, 6, ESTATE)) is ViolationCode.NOT_YOUR_BUILDING
    assert game.refuse(MoveBuilding(0, 5, 6, ESTATE)) is ViolationCode.NOT_YOUR_BUILDING
    assert game.refuse(MoveBuilding(0, 0, 2, ESTATE)) is ViolationCode.LANDSCAPE_OCCUPIED
    assert game.refuse(MoveBuilding(0, 0, 0, ESTATE)) is ViolationCode.LANDSCAPE_OCCUPIED


def test_variant_move_keeps_the_two_trading_post_limit() -> None:
    game = Game(builder_may_move=True)
    build_round(game, PlaceBuilding(0, 6, TRADING_POST))
    build_round(game, PlaceBuilding(0, 8, TRADING_POST))
    reach_build(game)
    assert game.refuse(MoveBuilding(0, 0, 10, TRADING_POST)) is ViolationCode.TRADING_POST_LIMIT
    game.do(MoveBuilding(0, 6, 10, TRADING_POST))  # a trading post stays a trading post
    assert game.state.trading_posts(0) == 2


def test_nobody_builds_when_nobody_picked_the_builder() -> None:
    game = Game(3, set_aside=(BUILDER,))
    events = game.play_round(conflict=(4, 5), picks={0: STRATEGIST})
    (revealed,) = only(events, ActionCardsRevealed)
    assert BUILDER not in revealed.picks
    assert only(events, BuildPassed) == []
    assert only(events, BuildingPlaced) == []
    assert game.state.phase is Phase.CONFLICT
