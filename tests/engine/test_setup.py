"""RULES.md, Components and Setup 1-5: start player, ring, supply, strategist, first estates."""

from __future__ import annotations

from collections import Counter

import pytest

from services.engine import (
    BuildingSide,
    CreateGame,
    ExplicitSetup,
    LandscapeType,
    Phase,
    PlaceFirstEstate,
    Ruleset,
    RuleViolation,
    ViolationCode,
    execute,
    initial_state,
    supply_count,
    to_act,
)
from services.engine.events import RoundStarted, SupplyDealt
from tests.engine.scenario import DECK, EAGLE, ROSE, STANDARD_RING, Game, only, ring

SUPPLY_CARDS = Counter({2: 5, 3: 5, 4: 5, 5: 5, 6: 2, 8: 1})
SEEDS = [f"seed {n}".encode() for n in range(24)]


# --- Components ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_the_supply_is_23_cards_two_to_eight(players: int) -> None:
    state = Game.from_seed(players, b"components").state
    assert supply_count(state) == SUPPLY_CARDS
    assert supply_count(state).total() == 23
    # RULES.md adds "sum 104", but its own counts (and the source documents) make 90.
    assert sum(supply_count(state).elements()) == 90


def test_every_player_has_three_building_cards() -> None:
    game = Game(setup_only=True)
    assert [s.unplaced_buildings for s in game.view(None).seats] == [3, 3, 3, 3]
    game.first_estates({0: 0, 1: 1, 2: 2, 3: 3})
    assert [s.unplaced_buildings for s in game.view(None).seats] == [2, 2, 2, 2]


# --- Setup 1: start player ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "start", "houses"),
    [
        (4, 0, (EAGLE, ROSE, EAGLE, ROSE)),
        (4, 2, (EAGLE, ROSE, EAGLE, ROSE)),
        (4, 3, (ROSE, EAGLE, ROSE, EAGLE)),
        (3, 0, (EAGLE, ROSE, EAGLE)),
        (3, 1, (EAGLE, EAGLE, ROSE)),
        (3, 2, (ROSE, EAGLE, EAGLE)),
    ],
)
def test_start_player_backs_eagle_and_players_alternate_going_left(
    players: int, start: int, houses: tuple[object, ...]
) -> None:
    game = Game(players, start_player=start, setup_only=True)
    assert game.state.start_player == start
    assert game.state.allegiance == houses


def test_start_player_is_chosen_at_random() -> None:
    starts = {Game.from_seed(4, seed).state.start_player for seed in SEEDS}
    assert len(starts) > 1
    assert starts <= {0, 1, 2, 3}


# --- Setup 2: landscapes -------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS[:6])
def test_each_house_starts_with_one_landscape_of_every_type(seed: bytes) -> None:
    state = Game.from_seed(4, seed).state
    assert len(state.kinds) == 12
    for house in (EAGLE, ROSE):
        kinds = sorted(k for k, h in zip(state.kinds, state.houses, strict=True) if h is house)
        assert kinds == list(LandscapeType)


def test_landscapes_are_shuffled_into_the_ring() -> None:
    games = [Game.from_seed(4, seed) for seed in SEEDS[:6]]
    rings = {tuple(zip(g.state.kinds, g.state.houses, strict=True)) for g in games}
    assert len(rings) > 1


def refused_setup(setup: ExplicitSetup, players: int = 4) -> ViolationCode:
    with pytest.raises(RuleViolation) as refusal:
        execute(initial_state(), CreateGame(Ruleset.standard(players), b"x", setup))
    return refusal.value.code


def test_a_ring_without_one_landscape_of_each_type_per_house_is_refused() -> None:
    twice_each_type_for_eagle = ring(
        "E city", "E wasteland", "E village", "E meadow", "E forest", "E river",
        "E river", "E forest", "E meadow", "E village", "E wasteland", "E city",
    )  # fmt: skip
    assert refused_setup(ExplicitSetup(ring=twice_each_type_for_eagle)) is (
        ViolationCode.INVALID_SETUP
    )
    rose_has_two_cities_and_no_wasteland = ring(
        "E city", "R city", "E village", "R meadow", "E forest", "R river",
        "E river", "R forest", "E meadow", "R village", "E wasteland", "R city",
    )  # fmt: skip
    setup = ExplicitSetup(ring=rose_has_two_cities_and_no_wasteland)
    assert refused_setup(setup) is ViolationCode.INVALID_SETUP


def test_an_explicit_ring_is_laid_out_as_given() -> None:
    state = Game(setup_only=True).state
    assert tuple(zip(state.kinds, state.houses, strict=True)) == STANDARD_RING


# --- Setup 3: supply ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_every_player_starts_with_a_3_a_4_and_a_5(players: int) -> None:
    state = Game.from_seed(players, b"hands").state
    assert state.hands == ((3, 4, 5),) * players


@pytest.mark.parametrize(("players", "deck_size"), [(4, 11), (3, 14)])
def test_the_rest_of_the_supply_is_the_face_down_draw_pile(players: int, deck_size: int) -> None:
    game = Game.from_seed(players, b"deck")
    (dealt,) = only(game.events, SupplyDealt)
    assert dealt.deck_size == deck_size
    assert len(game.state.deck) == deck_size
    assert game.view(0).deck_count == deck_size
    assert Counter(game.state.deck) + Counter({3: players, 4: players, 5: players}) == (
        SUPPLY_CARDS
    )


def test_the_draw_pile_is_shuffled() -> None:
    decks = {Game.from_seed(4, seed).state.deck for seed in SEEDS[:6]}
    assert len(decks) > 1


def test_the_discard_pile_starts_empty() -> None:
    game = Game.from_seed(4, b"discard")
    assert game.state.discard == ()
    assert game.view(None).discard == ()


def test_an_explicit_draw_pile_must_be_the_cards_left_after_dealing() -> None:
    two_eights = ExplicitSetup(deck=(8, 8, 6, 5, 4, 3, 2, 2, 2, 2, 2))
    assert refused_setup(two_eights) is ViolationCode.INVALID_SETUP
    assert refused_setup(ExplicitSetup(deck=DECK[3]), players=4) is ViolationCode.INVALID_SETUP
    assert refused_setup(ExplicitSetup(deck=DECK[4]), players=3) is ViolationCode.INVALID_SETUP


def test_an_explicit_start_player_must_be_a_seat() -> None:
    assert refused_setup(ExplicitSetup(start_player=4)) is ViolationCode.INVALID_SETUP
    assert refused_setup(ExplicitSetup(start_player=3), players=3) is ViolationCode.INVALID_SETUP


# --- Setup 4: strategist ----------------------------------------------------------------------


@pytest.mark.parametrize(("players", "start", "strategist"), [(4, 0, 1), (4, 3, 0), (3, 2, 0)])
def test_the_player_left_of_the_start_player_becomes_strategist(
    players: int, start: int, strategist: int
) -> None:
    game = Game(players, start_player=start, setup_only=True)
    assert game.state.strategist == strategist
    assert game.view(None).strategist == strategist


# --- Setup 5: first estates -----------------------------------------------------------------


def test_first_estates_are_placed_in_turn_order_from_the_start_player() -> None:
    game = Game(start_player=2, setup_only=True)
    order = []
    while game.state.phase is Phase.FIRST_ESTATES:
        (seat,) = to_act(game.state)
        order.append(seat)
        game.do(PlaceFirstEstate(seat, 2 * seat))
    assert order == [2, 3, 0, 1]


def test_a_first_estate_is_placed_estate_side_up_under_the_chosen_landscape() -> None:
    game = Game(setup_only=True)
    game.do(PlaceFirstEstate(0, 7))
    building = game.state.buildings[7]
    assert building is not None
    assert (building.owner, building.side) == (0, BuildingSide.ESTATE)
    assert (game.view(3).ring[7].building_owner, game.view(3).ring[7].building_side) == (
        0,
        BuildingSide.ESTATE,
    )


def test_only_the_player_whose_turn_it_is_places_a_first_estate() -> None:
    game = Game(start_player=1, setup_only=True)
    assert game.refuse(PlaceFirstEstate(0, 5)) is ViolationCode.NOT_YOUR_TURN
    game.do(PlaceFirstEstate(1, 5))
    assert game.refuse(PlaceFirstEstate(1, 6)) is ViolationCode.NOT_YOUR_TURN


def test_a_first_estate_goes_under_a_landscape_that_has_no_building_yet() -> None:
    game = Game(setup_only=True)
    game.do(PlaceFirstEstate(0, 4))
    assert game.refuse(PlaceFirstEstate(1, 4)) is ViolationCode.LANDSCAPE_OCCUPIED
    assert game.refuse(PlaceFirstEstate(1, 12)) is ViolationCode.INVALID_POSITION


def test_the_first_round_begins_when_every_first_estate_is_placed() -> None:
    game = Game(start_player=3, setup_only=True)
    for seat in (3, 0, 1):
        game.do(PlaceFirstEstate(seat, seat))
    assert game.state.phase is Phase.FIRST_ESTATES
    assert only(game.events, RoundStarted) == []
    game.do(PlaceFirstEstate(2, 2))
    assert game.state.phase is Phase.CONFLICT
    assert only(game.events, RoundStarted) == [RoundStarted(1, 3)]
    assert to_act(game.state) == (0,)  # the strategist, left of the start player
