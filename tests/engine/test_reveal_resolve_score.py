"""RULES.md, a round, phases 4-6: reveal (the traitor switches), resolve, score."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.engine import (
    DEFAULT_CARD_TABLE,
    ActionCard,
    BuildingSide,
    CardTable,
    LandscapeType,
    ScoreReason,
)
from services.engine.buildings import Building
from services.engine.events import (
    ActionCardsRevealed,
    AllegianceSwitched,
    ConflictResolved,
    LandscapeFlipped,
    PointsAwarded,
)
from tests.engine.scenario import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    EAGLE,
    FARMER,
    ROSE,
    STRATEGIST,
    TRAITOR,
    Game,
    only,
    points,
    ring,
)

CONQUEST, TRAITOR_VP, STRATEGIST_VP = (
    ScoreReason.CONQUEST,
    ScoreReason.TRAITOR,
    ScoreReason.STRATEGIST,
)

# STANDARD_RING, as the conflicts below use it (seats 0 and 2 back Eagle, 1 and 3 Rose):
#   0 E city   1 R wasteland   2 E village   3 R meadow   4 E forest    5 R river
#   6 E river  7 R forest      8 E meadow    9 R village  10 E wasteland  11 R city


# --- phase 4: reveal -------------------------------------------------------------------------


def test_all_picked_action_cards_are_revealed() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    events = game.play_round(
        conflict=(4, 5), picks={0: FARMER, 1: TRAITOR, 2: DIPLOMAT2, 3: STRATEGIST}
    )
    assert only(events, ActionCardsRevealed) == [
        ActionCardsRevealed((FARMER, TRAITOR, DIPLOMAT2, STRATEGIST))
    ]


def test_traitor_switches_before_conflict_is_resolved() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    events = game.play_round(
        conflict=(8, 9),  # Eagle meadow (3) against Rose village (10)
        picks={0: BUILDER, 1: TRAITOR, 2: STRATEGIST, 3: FARMER},
        plays={1: (3, 4, 5)},  # the Rose player who turns traitor brings 12
    )
    switch = only(events, AllegianceSwitched)
    assert switch == [AllegianceSwitched(1, EAGLE)]
    assert events.index(switch[0]) < events.index(only(events, ConflictResolved)[0])
    # The traitor's supply cards now count for Eagle: 3 + 12 against 10.
    assert only(events, ConflictResolved) == [ConflictResolved(15, 10, EAGLE)]
    assert game.state.allegiance == (EAGLE, EAGLE, EAGLE, ROSE)
    assert game.view(3).seats[1].house is EAGLE


def test_the_traitor_stays_with_the_new_house_until_taking_traitor_again() -> None:
    game = Game(set_aside=(DIPLOMAT5, TRAITOR, DIPLOMAT5, DIPLOMAT5))
    game.play_round(conflict=(4, 5), picks={1: TRAITOR})
    assert game.state.allegiance == (EAGLE, EAGLE, EAGLE, ROSE)
    game.play_round(conflict=(6, 7))  # nobody can take the traitor this round
    assert game.state.allegiance == (EAGLE, EAGLE, EAGLE, ROSE)
    game.play_round(conflict=(8, 9), picks={3: TRAITOR})
    assert game.state.allegiance == (EAGLE, EAGLE, EAGLE, EAGLE)
    game.play_round(conflict=(10, 11), picks={1: TRAITOR})
    assert game.state.allegiance == (EAGLE, ROSE, EAGLE, EAGLE)


# --- phase 5: resolve --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("conflict", "eagle", "rose"),
    [((0, 1), 15, 0), ((2, 3), 10, 3), ((4, 5), 7, 5), ((6, 7), 5, 7), ((8, 9), 3, 10),
     ((10, 11), 0, 15), ((11, 0), 15, 15)],
)  # fmt: skip
def test_each_house_starts_from_the_conflict_points_of_its_landscape(
    conflict: tuple[int, int], eagle: int, rose: int
) -> None:
    game = Game(3)  # three players keep builder, farmer and strategist: no diplomat in play
    events = game.play_round(conflict=conflict)
    (resolved,) = only(events, ConflictResolved)
    assert (resolved.eagle_strength, resolved.rose_strength) == (eagle, rose)


def test_strength_is_conflict_points_plus_supply_of_backers_plus_diplomats() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(2, 3),  # Eagle village (10) against Rose meadow (3)
        picks={0: DIPLOMAT5, 1: BUILDER, 2: STRATEGIST, 3: DIPLOMAT2},
        plays={0: (4,), 1: (3, 5), 2: (), 3: (4, 5)},
    )
    eagle = 10 + 4 + 5
    rose = 3 + (3 + 5) + (4 + 5) + 2
    assert only(events, ConflictResolved) == [ConflictResolved(eagle, rose, ROSE)]


@pytest.mark.parametrize(
    ("picks", "expected"),
    [
        ({0: DIPLOMAT2, 1: DIPLOMAT5}, ConflictResolved(17, 20, ROSE)),
        ({0: DIPLOMAT5, 1: DIPLOMAT2}, ConflictResolved(20, 17, EAGLE)),
        ({2: DIPLOMAT5, 0: DIPLOMAT2}, ConflictResolved(22, 15, EAGLE)),
    ],
)
def test_diplomats_add_2_and_5_to_the_house_their_holder_backs(
    picks: dict[int, ActionCard], expected: ConflictResolved
) -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(conflict=(11, 0), picks=picks)  # city against city
    assert only(events, ConflictResolved) == [expected]


def test_diplomat_points_go_to_the_holders_house_after_the_switch() -> None:
    game = Game(set_aside=(DIPLOMAT5, TRAITOR))
    game.play_round(conflict=(4, 5), picks={1: TRAITOR})  # seat 1 leaves Rose for Eagle
    events = game.play_round(
        conflict=(11, 0), picks={1: DIPLOMAT5, 3: DIPLOMAT2, 2: BUILDER, 0: FARMER}
    )
    assert only(events, ConflictResolved) == [ConflictResolved(15 + 5, 15 + 2, EAGLE)]


def test_diplomat_of_the_traitor_round_counts_for_the_house_its_holder_backs() -> None:
    game = Game(set_aside=(DIPLOMAT2,))
    events = game.play_round(
        conflict=(11, 0),  # city against city
        picks={0: TRAITOR, 1: DIPLOMAT5, 2: STRATEGIST, 3: FARMER},
    )
    # Seat 0 (traitor) joins Rose; seat 1 holds diplomat5 for Rose: only Rose gains strength.
    assert only(events, ConflictResolved) == [ConflictResolved(15, 20, ROSE)]


def test_equal_strength_is_a_tie_and_no_landscape_flips() -> None:
    game = Game(3)
    events = game.play_round(conflict=(11, 0), plays={0: (4,), 1: (4,)})
    assert only(events, ConflictResolved) == [ConflictResolved(19, 19, None)]
    assert only(events, LandscapeFlipped) == []
    assert points(events, CONQUEST) == {}
    assert (game.state.houses[11], game.state.houses[0]) == (ROSE, EAGLE)


# --- phase 6: score ---------------------------------------------------------------------------


def test_tie_gives_only_traitor_and_strategist_points() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    events = game.play_round(
        conflict=(11, 0),  # city against city
        picks={0: TRAITOR, 1: STRATEGIST, 2: BUILDER, 3: FARMER},
        plays={0: (3,), 2: (3,)},  # the traitor's 3 now counts for Rose: 18 against 18
    )
    assert only(events, ConflictResolved) == [ConflictResolved(18, 18, None)]
    assert only(events, PointsAwarded) == [
        PointsAwarded(0, 1, TRAITOR_VP),
        PointsAwarded(1, 2, STRATEGIST_VP),
    ]
    assert game.state.vp == (1, 2, 0, 0)


def test_points_come_from_the_losing_landscapes_scale() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(8, 9),  # Eagle meadow (3) against Rose village (10)
        picks={0: DIPLOMAT2, 1: BUILDER, 2: STRATEGIST, 3: FARMER},
        plays={0: (3, 4, 5), 2: (4,)},
    )
    assert only(events, ConflictResolved) == [ConflictResolved(3 + 2 + 12 + 4, 10, EAGLE)]
    # The village lost: two Eagle backers gain the village's vp[2] = 6 (not the meadow's 1).
    assert points(events, CONQUEST) == {0: 6, 2: 6}
    assert only(events, LandscapeFlipped) == [LandscapeFlipped(9, EAGLE)]


def test_k_counts_every_backer_of_the_winning_house_not_only_those_who_played() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    events = game.play_round(
        conflict=(8, 9),  # Eagle meadow (3) against Rose village (10)
        picks={0: BUILDER, 1: TRAITOR, 2: STRATEGIST, 3: FARMER},
        plays={1: (3, 4, 5)},  # only the traitor plays; seats 0 and 2 back Eagle too
    )
    assert points(events, CONQUEST) == {0: 3, 1: 3, 2: 3}  # village vp[3] = 3
    assert points(events, TRAITOR_VP) == {1: 1}
    assert points(events, STRATEGIST_VP) == {2: 2}
    assert game.state.vp == (3, 4, 5, 0)


def test_a_single_winner_gains_the_losing_landscapes_vp_1() -> None:
    game = Game(3)  # seat 1 is the only Rose backer
    events = game.play_round(conflict=(2, 3), plays={1: (3, 4, 5)})  # 3 + 12 against 10
    assert only(events, ConflictResolved) == [ConflictResolved(10, 15, ROSE)]
    assert points(events, CONQUEST) == {1: 10}  # village vp[1] = 10
    assert only(events, LandscapeFlipped) == [LandscapeFlipped(2, ROSE)]


def test_the_losing_landscape_flips_and_keeps_its_building_and_owner() -> None:
    game = Game(set_aside=(TRAITOR,), estates={0: 4, 1: 1, 2: 2, 3: 3})
    game.play_round(conflict=(2, 3), plays={1: (3, 4, 5), 3: (3, 4, 5)})  # Rose takes the village
    assert game.state.houses[2] is ROSE
    assert game.state.buildings[2] == Building(2, BuildingSide.ESTATE)
    seen = game.view(0).ring[2]
    assert (seen.house, seen.building_owner, seen.building_side) == (ROSE, 2, BuildingSide.ESTATE)


def test_a_conquest_with_nobody_on_the_winning_side_still_flips_the_landscape() -> None:
    game = Game(set_aside=(DIPLOMAT5, DIPLOMAT5, DIPLOMAT5))
    # Round 1: seat 0 turns traitor (Eagle -> Rose) in a tie of city against city.
    first = game.play_round(
        conflict=(11, 0), picks={0: TRAITOR, 1: STRATEGIST, 2: BUILDER, 3: FARMER}
    )
    assert only(first, ConflictResolved)[0].winner is None
    # Round 2 (seat 1 starts): seat 2 turns traitor too. Now everybody backs Rose.
    events = game.play_round(
        conflict=(0, 1),  # Eagle city (15) against Rose wasteland (0)
        picks={1: STRATEGIST, 2: TRAITOR, 3: BUILDER, 0: FARMER},
    )
    assert game.state.allegiance == (ROSE, ROSE, ROSE, ROSE)
    assert only(events, ConflictResolved) == [ConflictResolved(15, 0, EAGLE)]
    assert only(events, LandscapeFlipped) == [LandscapeFlipped(1, EAGLE)]
    assert points(events, CONQUEST) == {}
    assert game.state.houses[1] is EAGLE
    # Round 3: every player backs Rose, so a Rose conquest pays vp[4] to all four.
    events = game.play_round(conflict=(8, 9), picks={2: STRATEGIST})  # meadow against village
    assert only(events, ConflictResolved)[0].winner is ROSE
    assert points(events, CONQUEST) == {0: 1, 1: 1, 2: 1, 3: 1}  # meadow vp[4] = 1


def test_traitor_gains_1_and_strategist_picker_gains_2_when_a_house_wins() -> None:
    game = Game(set_aside=(DIPLOMAT2,))
    events = game.play_round(
        conflict=(0, 1), picks={0: FARMER, 1: DIPLOMAT5, 2: TRAITOR, 3: STRATEGIST}
    )
    # Seat 2 joins Rose; Eagle city 15 against Rose wasteland 0 + 5: Eagle (seat 0 alone) wins.
    assert only(events, ConflictResolved) == [ConflictResolved(15, 5, EAGLE)]
    assert points(events, CONQUEST) == {0: 1}  # wasteland vp[1] = 1
    assert points(events, TRAITOR_VP) == {2: 1}
    assert points(events, STRATEGIST_VP) == {3: 2}


def test_the_strategist_points_go_to_who_picked_the_card_not_to_who_holds_the_strategy() -> None:
    game = Game(3, set_aside=(STRATEGIST,))
    assert game.state.strategist == 1
    events = game.play_round(conflict=(11, 0))
    assert STRATEGIST not in game.state.picks
    assert points(events, STRATEGIST_VP) == {}
    assert game.state.vp[1] == 0


def test_conquest_points_come_from_the_card_table_in_force() -> None:
    village = DEFAULT_CARD_TABLE[LandscapeType.VILLAGE]
    meadow = DEFAULT_CARD_TABLE[LandscapeType.MEADOW]
    landscapes = list(DEFAULT_CARD_TABLE.landscapes)
    landscapes[LandscapeType.VILLAGE] = replace(village, vp=(40, 30, 20, 10))
    landscapes[LandscapeType.MEADOW] = replace(meadow, cp=9)
    table = CardTable("house rules", tuple(landscapes))
    game = Game(set_aside=(TRAITOR,), card_table=table)
    events = game.play_round(
        conflict=(8, 9),  # Eagle meadow (now 9) against Rose village (10)
        picks={0: DIPLOMAT2, 1: BUILDER, 2: STRATEGIST, 3: FARMER},
    )
    assert only(events, ConflictResolved) == [ConflictResolved(9 + 2, 10, EAGLE)]
    assert points(events, CONQUEST) == {0: 30, 2: 30}


#: LANDSCAPES.md: cp and vp[1..4] per type; `True` marks a provisional cell.
LANDSCAPES_MD = {
    LandscapeType.WASTELAND: (0, (1, 1, 1, 1), (True, True, True, True)),
    LandscapeType.MEADOW: (3, (3, 1, 1, 1), (True, True, True, True)),
    LandscapeType.RIVER: (5, (5, 3, 1, 1), (False, True, True, True)),
    LandscapeType.FOREST: (7, (7, 4, 2, 1), (True, True, True, True)),
    LandscapeType.VILLAGE: (10, (10, 6, 3, 1), (False, False, False, False)),
    LandscapeType.CITY: (15, (15, 9, 4, 1), (True, True, False, True)),
}


@pytest.mark.parametrize("kind", list(LandscapeType))
def test_the_bundled_card_table_is_the_one_in_landscapes_md(kind: LandscapeType) -> None:
    spec = DEFAULT_CARD_TABLE[kind]
    assert (spec.cp, spec.vp, spec.provisional) == LANDSCAPES_MD[kind]
    assert [spec.points_for(k) for k in (1, 2, 3, 4)] == list(LANDSCAPES_MD[kind][1])


#: The Eagle river at 0 borders the Rose city at 1.
RIVER_BY_CITY = ring(
    "E river", "R city", "E city", "R river", "E wasteland", "R wasteland",
    "E meadow", "R meadow", "E forest", "R forest", "E village", "R village",
)  # fmt: skip


def test_the_rules_example_a_city_conquered_by_three_players_pays_4_each() -> None:
    game = Game(landscapes=RIVER_BY_CITY, set_aside=(DIPLOMAT5,))
    events = game.play_round(
        conflict=(0, 1),
        picks={0: BUILDER, 1: TRAITOR, 2: STRATEGIST, 3: FARMER},
        plays={0: (3, 4, 5)},
    )
    assert only(events, ConflictResolved) == [ConflictResolved(5 + 12, 15, EAGLE)]
    assert points(events, CONQUEST) == {0: 4, 1: 4, 2: 4}


def test_the_rules_example_a_river_conquered_by_one_player_pays_5() -> None:
    game = Game(3, landscapes=RIVER_BY_CITY)
    events = game.play_round(conflict=(0, 1))
    assert only(events, ConflictResolved) == [ConflictResolved(5, 15, ROSE)]
    assert points(events, CONQUEST) == {1: 5}
