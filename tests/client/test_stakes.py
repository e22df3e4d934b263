"""What the conflict is worth, from the card table and the allegiances now."""

from __future__ import annotations

from services.api.verrater.v1 import cards_pb2, events_pb2, ruleset_pb2, view_pb2
from services.client import stakes

EAGLE, ROSE = cards_pb2.HOUSE_EAGLE, cards_pb2.HOUSE_ROSE
NAMES = ["Anna", "Bert", "Cleo", "Dora"]


def ruleset() -> ruleset_pb2.Ruleset:
    table = ruleset_pb2.CardTable(name="test")
    for kind, cp, scale in (
        (cards_pb2.LANDSCAPE_TYPE_VILLAGE, 10, (10, 6, 3, 1)),
        (cards_pb2.LANDSCAPE_TYPE_FOREST, 7, (7, 4, 2, 1)),
    ):
        spec = table.landscapes.add(type=kind, cp=cp, cp_provisional=True)
        for k, points in enumerate(scale):
            spec.vp.add(points=points, provisional=kind == cards_pb2.LANDSCAPE_TYPE_FOREST and k)
    return ruleset_pb2.Ruleset(players=4, rounds=8, card_table=table)


def supply_view(backing: list[int], played: dict[int, list[int]]) -> view_pb2.PlayerView:
    """Round 3's supply: Eagle's forest #3 against Rose's village #4; Cleo starts."""
    view = view_pb2.PlayerView(seat=0, phase=events_pb2.PHASE_SUPPLY, start_player=2)
    for position in range(12):
        village = position == 4
        kind = cards_pb2.LANDSCAPE_TYPE_VILLAGE if village else cards_pb2.LANDSCAPE_TYPE_FOREST
        view.ring.add(position=position, type=kind, house=ROSE if position == 4 else EAGLE)
    for seat, house in enumerate(backing):
        seat_view = view.seats.add(seat=seat, house=house)  # type: ignore[arg-type]
        if seat in played:
            seat_view.played.cards.extend(played[seat])
    view.conflict.first, view.conflict.second = 3, 4
    return view


def test_each_houses_stake_is_the_other_houses_landscape_by_its_number_of_backers() -> None:
    view = supply_view([EAGLE, ROSE, EAGLE, ROSE], {})
    eagle, rose = stakes.conflict_stakes(view, ruleset())
    assert (eagle.house, eagle.falls, eagle.backers, eagle.each) == (EAGLE, 4, (2, 0), 6)
    assert not eagle.provisional
    assert (rose.house, rose.falls, rose.backers, rose.each) == (ROSE, 3, (3, 1), 4)
    assert rose.provisional
    assert stakes.stake_text(view, eagle, NAMES) == (
        "Eagle wins with 2 backers (Cleo, you): 6 each, for village #4"
    )
    assert stakes.stake_text(view, rose, NAMES) == (
        "Rose wins with 2 backers (Dora, Bert): 4* each, for forest #3"
    )
    assert stakes.worth_to_you(view, [eagle, rose]) == "For you: 6 if Eagle wins, 0 if Rose wins"


def test_one_backer_takes_the_whole_top_of_the_scale() -> None:
    view = supply_view([EAGLE, ROSE, ROSE, ROSE], {})
    eagle, rose = stakes.conflict_stakes(view, ruleset())
    assert (eagle.backers, eagle.each) == ((0,), 10)
    assert (rose.backers, rose.each) == ((2, 3, 1), 2)


def test_holding_the_traitor_counts_the_switch_you_will_make() -> None:
    view = supply_view([EAGLE, ROSE, EAGLE, ROSE], {})
    view.pick = cards_pb2.ACTION_CARD_TRAITOR
    eagle, rose = stakes.conflict_stakes(view, ruleset())
    assert eagle.backers == (2,) and eagle.each == 10
    assert rose.backers == (3, 0, 1) and rose.each == 2
    assert stakes.worth_to_you(view, [eagle, rose]) == (
        "For you: 0 if Eagle wins, 2 if Rose wins (you hold the traitor: you switch sides at "
        "the reveal)"
    )


def test_running_totals_add_the_cards_played_so_far_in_turn_order() -> None:
    view = supply_view([EAGLE, ROSE, EAGLE, ROSE], {2: [6, 5], 3: [], 0: [4]})
    eagle, rose = stakes.running_totals(view, ruleset())
    assert (eagle.landscape, eagle.cards, eagle.total) == (7, ((2, 11), (0, 4)), 22)
    assert (rose.landscape, rose.cards, rose.total) == (10, ((3, 0),), 10)
    assert stakes.totals_text(view, [eagle, rose], NAMES) == (
        "Eagle 7 (forest #3) + 11 Cleo + 4 you = 22 · Rose 10 (village #4) + 0 Dora = 10"
    )
    assert stakes.still_to_play(view, NAMES) == "Bert"
    assert stakes.turn_order(view) == [2, 3, 0, 1]


def test_no_stakes_before_the_conflict_is_marked_or_after_it_is_fought() -> None:
    view = supply_view([EAGLE, ROSE, EAGLE, ROSE], {})
    view.phase = events_pb2.PHASE_BUILD
    assert stakes.conflict_stakes(view, ruleset()) == []
    view.phase = events_pb2.PHASE_DRAFT
    view.ClearField("conflict")
    assert stakes.conflict_stakes(view, ruleset()) == []


def test_scales_mark_provisional_cells() -> None:
    assert stakes.scale_text(ruleset(), cards_pb2.LANDSCAPE_TYPE_FOREST, "/") == "7/4*/2*/1*"
    assert stakes.scale_text(ruleset(), cards_pb2.LANDSCAPE_TYPE_VILLAGE) == "10 6 3 1"
    assert stakes.cp_text(ruleset(), cards_pb2.LANDSCAPE_TYPE_VILLAGE) == "10*"
