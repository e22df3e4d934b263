"""RULES.md, a round, phases 8-10: strategist, discard, draw (with the hand limit)."""

from __future__ import annotations

from collections import Counter

from services.engine import (
    ActionCard,
    BuildingSide,
    DiscardCards,
    DrawReason,
    FlipBuilding,
    Phase,
    PlaceBuilding,
    ViolationCode,
    supply_count,
    to_act,
)
from services.engine.events import (
    CardsDiscarded,
    CardsDrawn,
    DiscardPileReshuffled,
    RoundStarted,
    StrategistAssigned,
    SupplyDiscarded,
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
)

FARMER_DRAW, ESTATES_DRAW, DIPLOMAT2_DRAW = (
    DrawReason.FARMER,
    DrawReason.ESTATES,
    DrawReason.DIPLOMAT2,
)
SUPPLY_CARDS = Counter({2: 5, 3: 5, 4: 5, 5: 5, 6: 2, 8: 1})

# The draw pile of every scenario, top card first: 8, 6, 6, 5, 4, 3, 2, 2, 2, 2, 2.


# --- phase 8: strategist ----------------------------------------------------------------------


def test_whoever_picks_strategist_takes_the_strategy_and_conflict_cards() -> None:
    game = Game()
    assert game.state.strategist == 1
    events = game.play_round(conflict=(4, 5), picks={3: STRATEGIST})
    assert only(events, StrategistAssigned) == [StrategistAssigned(3)]
    assert game.state.strategist == 3
    assert to_act(game.state) == (3,)  # and chooses the next conflict
    assert game.view(0).strategist == 3


def test_the_strategist_keeps_the_cards_when_the_card_is_set_aside() -> None:
    game = Game(3, set_aside=(STRATEGIST,))
    events = game.play_round(conflict=(4, 5))
    assert only(events, StrategistAssigned) == []
    assert game.state.strategist == 1
    assert to_act(game.state) == (1,)


def test_the_strategist_keeps_the_cards_when_nobody_keeps_the_strategist_in_the_draft() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(4, 5), picks={0: DIPLOMAT2, 1: DIPLOMAT5, 2: BUILDER, 3: FARMER}
    )
    assert only(events, StrategistAssigned) == []
    assert game.state.strategist == 1


# --- phase 9: discard -------------------------------------------------------------------------


def test_supply_cards_played_this_round_go_to_the_face_up_discard_pile() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(4, 5),
        picks={0: BUILDER, 1: STRATEGIST, 2: DIPLOMAT2, 3: DIPLOMAT5},
        plays={0: (3, 5), 2: (4,)},
    )
    (discarded,) = only(events, SupplyDiscarded)
    assert sorted(discarded.cards) == [3, 4, 5]
    assert sorted(game.state.discard) == [3, 4, 5]
    assert sorted(game.view(1).discard) == [3, 4, 5]
    assert game.view(1).seats[0].played is None  # nothing lies on the table any more


# --- phase 10: draw ----------------------------------------------------------------------------


def test_farmer_draws_three_and_nothing_for_estates() -> None:
    game = Game(set_aside=(TRAITOR,))  # seat 0's estate lies under an Eagle landscape
    events = game.play_round(conflict=(6, 7), picks={0: FARMER})
    assert game.state.productive_estates(0) == 1
    mine = [draw for draw in only(events, CardsDrawn) if draw.seat == 0]
    assert mine == [CardsDrawn(0, 3, (8, 6, 6), FARMER_DRAW)]


def test_the_farmer_draws_before_the_estates_which_draw_in_turn_order() -> None:
    game = Game(start_player=0, set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(6, 7), picks={0: BUILDER, 1: STRATEGIST, 2: FARMER, 3: DIPLOMAT5}
    )
    assert only(events, CardsDrawn) == [
        CardsDrawn(2, 3, (8, 6, 6), FARMER_DRAW),
        CardsDrawn(0, 1, (5,), ESTATES_DRAW),
        CardsDrawn(1, 1, (4,), ESTATES_DRAW),
        CardsDrawn(3, 1, (3,), ESTATES_DRAW),
    ]


def test_estates_draw_in_turn_order_from_the_current_start_player() -> None:
    game = Game(start_player=2, set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(6, 7), picks={2: BUILDER, 3: STRATEGIST, 0: DIPLOMAT5, 1: FARMER}
    )
    assert [(d.seat, d.reason) for d in only(events, CardsDrawn)] == [
        (1, FARMER_DRAW),
        (2, ESTATES_DRAW),
        (3, ESTATES_DRAW),
        (0, ESTATES_DRAW),
    ]


def test_one_card_per_estate_under_a_landscape_of_the_house_the_player_backs() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(2, 3),  # Eagle village takes the Rose meadow that holds seat 3's estate
        picks={0: BUILDER, 1: FARMER, 2: STRATEGIST, 3: DIPLOMAT2},
        build=PlaceBuilding(0, 6, BuildingSide.ESTATE),  # a second estate, under an Eagle river
    )
    assert game.state.houses[3] is EAGLE
    assert only(events, CardsDrawn) == [
        CardsDrawn(1, 3, (8, 6, 6), FARMER_DRAW),
        CardsDrawn(0, 2, (5, 4), ESTATES_DRAW),
        CardsDrawn(2, 1, (3,), ESTATES_DRAW),
        # seat 3 (Rose) draws nothing: its estate now lies under an Eagle landscape
        CardsDrawn(3, 1, (2,), DIPLOMAT2_DRAW),
    ]


def test_estates_only_count_under_a_landscape_of_the_house_the_player_backs_now() -> None:
    # Seat 1 (Rose) has its estate under the Eagle village; the traitor takes it to Eagle.
    game = Game(set_aside=(DIPLOMAT5,), estates={0: 0, 1: 2, 2: 4, 3: 3})
    events = game.play_round(
        conflict=(6, 7), picks={0: BUILDER, 1: TRAITOR, 2: STRATEGIST, 3: DIPLOMAT2}
    )
    assert game.state.allegiance[1] is EAGLE
    assert [(d.seat, d.count, d.reason) for d in only(events, CardsDrawn)] == [
        (0, 1, ESTATES_DRAW),
        (1, 1, ESTATES_DRAW),
        (2, 1, ESTATES_DRAW),
        (3, 1, ESTATES_DRAW),
        (3, 1, DIPLOMAT2_DRAW),
    ]


def test_an_estate_left_under_the_old_house_gives_nothing_to_the_traitor() -> None:
    game = Game(set_aside=(DIPLOMAT5,))  # seat 1's estate lies under the Rose wasteland
    events = game.play_round(
        conflict=(6, 7), picks={0: BUILDER, 1: TRAITOR, 2: STRATEGIST, 3: FARMER}
    )
    assert game.state.allegiance[1] is EAGLE
    assert [d.seat for d in only(events, CardsDrawn)] == [3, 0, 2]
    assert len(game.state.hands[1]) == 3


def test_trading_posts_give_no_cards() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(6, 7),
        picks={0: BUILDER, 1: STRATEGIST, 2: DIPLOMAT5, 3: FARMER},
        build=FlipBuilding(0, 0),  # seat 0's only building becomes a trading post
    )
    assert [d.seat for d in only(events, CardsDrawn)] == [3, 1, 2]
    assert len(game.state.hands[0]) == 3


def test_diplomat2_holder_draws_one_more_card_after_the_estates() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(6, 7), picks={0: DIPLOMAT2, 1: STRATEGIST, 2: BUILDER, 3: DIPLOMAT5}
    )
    assert only(events, CardsDrawn) == [
        CardsDrawn(0, 1, (8,), ESTATES_DRAW),
        CardsDrawn(1, 1, (6,), ESTATES_DRAW),
        CardsDrawn(2, 1, (6,), ESTATES_DRAW),
        CardsDrawn(3, 1, (5,), ESTATES_DRAW),
        CardsDrawn(0, 1, (4,), DIPLOMAT2_DRAW),
    ]
    assert game.state.hands[0] == (3, 4, 4, 5, 8)


def test_diplomat2_draws_its_card_even_without_estates() -> None:
    game = Game(set_aside=(TRAITOR,), estates={0: 1, 1: 0, 2: 2, 3: 3})  # 0 and 1 yield nothing
    events = game.play_round(
        conflict=(6, 7), picks={0: DIPLOMAT2, 1: STRATEGIST, 2: BUILDER, 3: FARMER}
    )
    assert [(d.seat, d.count, d.reason) for d in only(events, CardsDrawn) if d.seat in (0, 1)] == [
        (0, 1, DIPLOMAT2_DRAW)
    ]


def test_nobody_draws_more_than_3_cards() -> None:
    game = Game(set_aside=(FARMER,) * 3)
    # Rounds 1 and 2: seat 0 builds two more estates under Eagle landscapes (6 and 8), while
    # the Rose players play their whole hands so the discard pile feeds the draw pile.
    for conflict, position in (((4, 5), 6), ((10, 11), 8)):
        game.play_round(
            conflict=conflict,
            picks={0: BUILDER, 1: STRATEGIST, 2: DIPLOMAT5, 3: DIPLOMAT2},
            plays={seat: game.state.hands[seat] for seat in (1, 3)},
            build=PlaceBuilding(0, position, BuildingSide.ESTATE),
        )
    assert game.state.productive_estates(0) == 3
    events = game.play_round(
        conflict=(2, 3),
        picks={0: DIPLOMAT2, 1: STRATEGIST},
        plays={seat: game.state.hands[seat] for seat in (1, 3)},
    )
    mine = [(d.count, d.reason) for d in only(events, CardsDrawn) if d.seat == 0]
    assert mine == [(3, ESTATES_DRAW)]  # three estates; the diplomat2 card would be a fourth


# --- phase 10: hand limit -----------------------------------------------------------------------


def reach_hand_limit(game: Game, conflict: tuple[int, int], picks: dict[int, ActionCard]) -> None:
    """Play the current round up to the hand-limit decision."""
    game.conflict(*conflict)
    game.draft(picks)
    game.supply()
    game.build()
    assert game.state.phase is Phase.HAND_LIMIT


def test_a_player_holding_more_than_5_after_drawing_discards_down_to_5_choosing_which() -> None:
    game = Game(set_aside=(TRAITOR,))
    reach_hand_limit(game, (6, 7), {0: FARMER})
    assert to_act(game.state) == (0,)
    assert game.state.hands[0] == (3, 4, 5, 6, 6, 8)
    game.do(DiscardCards(0, (3,)))  # keeps the 8
    assert only(game.last, CardsDiscarded) == [CardsDiscarded(0, (3,))]
    assert game.state.hands[0] == (4, 5, 6, 6, 8)
    assert game.view(2).discard == (3,)  # face up: everyone sees it
    assert only(game.last, RoundStarted) == [RoundStarted(2, 1)]


def test_the_hand_limit_discard_must_leave_exactly_5_cards() -> None:
    game = Game(set_aside=(TRAITOR,))
    reach_hand_limit(game, (6, 7), {0: FARMER})
    assert game.refuse(DiscardCards(0, ())) is ViolationCode.WRONG_DISCARD_COUNT
    assert game.refuse(DiscardCards(0, (3, 4))) is ViolationCode.WRONG_DISCARD_COUNT
    assert game.refuse(DiscardCards(0, (2,))) is ViolationCode.CARD_NOT_IN_HAND
    assert game.refuse(DiscardCards(1, (3,))) is ViolationCode.NOT_YOUR_TURN  # holds only 4


def test_several_players_over_the_hand_limit_discard_at_the_same_time() -> None:
    # Seats 2 and 3 have their estates under the other house's landscapes: they never draw.
    game = Game(set_aside=(TRAITOR, TRAITOR), estates={0: 0, 1: 1, 2: 3, 3: 2})
    game.play_round(conflict=(6, 7), picks={0: FARMER, 1: DIPLOMAT2, 2: BUILDER, 3: STRATEGIST})
    assert [len(hand) for hand in game.state.hands] == [5, 5, 3, 3]
    reach_hand_limit(game, (8, 9), {1: FARMER, 0: DIPLOMAT2, 2: BUILDER, 3: STRATEGIST})
    assert [len(hand) for hand in game.state.hands] == [7, 8, 3, 3]
    assert to_act(game.state) == (0, 1)
    assert game.refuse(DiscardCards(1, tuple(game.state.hands[1][:2]))) is (
        ViolationCode.WRONG_DISCARD_COUNT
    )
    game.do(DiscardCards(1, tuple(game.state.hands[1][:3])))  # seat 1 need not wait for seat 0
    assert to_act(game.state) == (0,)
    assert game.state.phase is Phase.HAND_LIMIT
    game.do(DiscardCards(0, tuple(game.state.hands[0][:2])))
    assert [len(hand) for hand in game.state.hands] == [5, 5, 3, 3]
    assert game.state.phase is Phase.CONFLICT and game.state.round == 3


def test_nobody_discards_with_5_cards_or_fewer() -> None:
    game = Game(set_aside=(TRAITOR,))
    events = game.play_round(
        conflict=(6, 7), picks={0: DIPLOMAT2, 1: STRATEGIST, 2: BUILDER, 3: DIPLOMAT5}
    )
    assert max(len(hand) for hand in game.state.hands) == 5
    assert only(events, CardsDiscarded) == []
    assert game.state.phase is Phase.CONFLICT


# --- phase 10: an empty draw pile ----------------------------------------------------------------


def empty_the_draw_pile(game: Game) -> None:
    """Three rounds without supply played: every hand at 5, then the farmer takes the last 3.

    Round 1 (farmer set aside): each estate yields 1, diplomat2 (seat 0) 1 more: hands 5 4 4 4.
    Round 2 (farmer set aside): seat 0 turns traitor, its estate stops yielding: hands 5 5 5 5,
    3 cards left to draw, discard pile empty. Round 3: seat 1 is the farmer.
    """
    game.play_round(conflict=(6, 7), picks={0: DIPLOMAT2, 1: BUILDER, 2: STRATEGIST, 3: DIPLOMAT5})
    assert [len(hand) for hand in game.state.hands] == [5, 4, 4, 4]
    game.play_round(conflict=(8, 9), picks={1: BUILDER, 2: STRATEGIST, 3: DIPLOMAT5, 0: TRAITOR})
    assert [len(hand) for hand in game.state.hands] == [5, 5, 5, 5]
    assert (len(game.state.deck), game.state.discard) == (3, ())
    assert game.state.allegiance[0] is ROSE


def test_a_draw_is_skipped_when_draw_pile_and_discard_pile_are_both_empty() -> None:
    game = Game(set_aside=(FARMER, FARMER, TRAITOR))
    empty_the_draw_pile(game)
    events = game.play_round(conflict=(10, 11), picks={1: FARMER, 0: DIPLOMAT2})
    # Seats 2 and 3 have an estate each and seat 0 holds diplomat2, but no card is left.
    assert only(events, CardsDrawn) == [CardsDrawn(1, 3, (2, 2, 2), FARMER_DRAW)]
    assert only(events, DiscardPileReshuffled) == []
    assert [len(hand) for hand in game.state.hands] == [5, 5, 5, 5]  # seat 1 discarded 3
    assert supply_count(game.state) == SUPPLY_CARDS


def test_the_discard_pile_is_shuffled_into_a_new_draw_pile_when_the_draw_pile_is_empty() -> None:
    game = Game(set_aside=(FARMER, FARMER, TRAITOR, TRAITOR))
    empty_the_draw_pile(game)
    game.play_round(conflict=(10, 11), picks={1: FARMER, 0: DIPLOMAT2}, discards={1: (3, 4, 5)})
    assert (game.state.deck, sorted(game.state.discard)) == ((), [3, 4, 5])
    # Round 4 (seat 3 starts): seat 2 plays a 2; it joins the discard pile before the draw.
    events = game.play_round(
        conflict=(4, 5),
        picks={3: BUILDER, 0: STRATEGIST, 1: DIPLOMAT5, 2: DIPLOMAT2},
        plays={2: (2,)},
    )
    (reshuffle,) = only(events, DiscardPileReshuffled)
    assert reshuffle.size == 4
    assert reshuffle.order is not None
    assert sorted(reshuffle.order) == [2, 3, 4, 5]
    draws = only(events, CardsDrawn)
    assert events.index(reshuffle) < events.index(draws[0])
    assert draws[0] == CardsDrawn(3, 1, reshuffle.order[:1], ESTATES_DRAW)  # seat 3 draws first
    assert supply_count(game.state) == SUPPLY_CARDS
    assert game.view(0).deck_count == 4 - sum(d.count for d in draws)
