"""RULES.md, a round, phase 2 (draft of the action cards) and phase 3 (supply cards)."""

from __future__ import annotations

import pytest

from services.engine import (
    ActionCard,
    PickActionCard,
    PlaySupply,
    ViolationCode,
    to_act,
)
from services.engine.events import ActionCardsDealt, ActionCardsRevealed, SupplyPlayed
from tests.engine.scenario import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    FARMER,
    STRATEGIST,
    TRAITOR,
    Game,
    first_legal_conflict,
    only,
)

# --- phase 2: draft ------------------------------------------------------------------------


def test_one_action_card_is_set_aside_and_the_start_player_sees_the_other_five() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    game.conflict(4, 5)
    (dealt,) = only(game.last, ActionCardsDealt)
    assert dealt.set_aside is DIPLOMAT5
    assert dealt.offered is not None
    assert sorted(dealt.offered) == sorted(set(ActionCard) - {DIPLOMAT5})
    offered = game.view(0).offered
    assert offered is not None
    assert sorted(offered) == sorted(set(ActionCard) - {DIPLOMAT5})


def test_the_set_aside_card_cannot_be_picked_by_anyone() -> None:
    game = Game(set_aside=(FARMER,))
    game.conflict(4, 5)
    assert game.refuse(PickActionCard(0, FARMER)) is ViolationCode.CARD_NOT_OFFERED
    game.draft({0: TRAITOR, 1: DIPLOMAT2, 2: STRATEGIST, 3: BUILDER})
    assert FARMER not in game.state.picks


def test_the_action_cards_are_shuffled_every_round() -> None:
    game = Game(set_aside=())  # every round's set-aside card comes from the seed
    set_aside = []
    for _ in range(8):
        game.conflict(*first_legal_conflict(game.state))
        (dealt,) = only(game.last, ActionCardsDealt)
        assert dealt.offered is not None and dealt.set_aside is not None
        assert sorted((dealt.set_aside, *dealt.offered)) == sorted(ActionCard)
        set_aside.append(dealt.set_aside)
        game.draft()
        game.supply()
        game.finish_round()
    assert len(set(set_aside)) > 1


@pytest.mark.parametrize(
    ("players", "start", "pickers", "sizes"),
    [(4, 0, [0, 1, 2, 3], [5, 4, 3, 2]), (4, 2, [2, 3, 0, 1], [5, 4, 3, 2]),
     (3, 1, [1, 2, 0], [5, 4, 3])],
)  # fmt: skip
def test_the_cards_pass_left_and_each_later_player_sees_one_fewer(
    players: int, start: int, pickers: list[int], sizes: list[int]
) -> None:
    game = Game(players, start_player=start)
    game.conflict(*first_legal_conflict(game.state))
    seen = []
    for size in sizes:
        (seat,) = to_act(game.state)
        offered = game.view(seat).offered
        assert offered is not None
        assert len(offered) == size
        seen.append(seat)
        game.do(PickActionCard(seat, offered[0]))
    assert seen == pickers


def test_each_player_keeps_one_card_from_what_reaches_them() -> None:
    game = Game(set_aside=(TRAITOR,))
    game.conflict(4, 5)
    game.do(PickActionCard(0, FARMER))
    offered = game.view(1).offered
    assert offered is not None
    assert sorted(offered) == [DIPLOMAT2, DIPLOMAT5, BUILDER, STRATEGIST]
    assert game.refuse(PickActionCard(1, FARMER)) is ViolationCode.CARD_NOT_OFFERED
    game.do(PickActionCard(1, DIPLOMAT5))
    assert game.state.picks[:2] == (FARMER, DIPLOMAT5)


def test_only_the_player_the_cards_reached_may_pick() -> None:
    game = Game(start_player=1)
    game.conflict(4, 5)
    for seat in (0, 2, 3):
        assert game.refuse(PickActionCard(seat, BUILDER)) is ViolationCode.NOT_YOUR_TURN


def test_the_leftover_cards_go_back_unseen() -> None:
    game = Game(3, set_aside=(TRAITOR,))
    game.conflict(4, 5)
    game.draft({0: FARMER, 1: BUILDER, 2: STRATEGIST})  # diplomat2 and diplomat5 are left
    assert game.state.pool == ()
    for seat in (0, 1, 2, None):
        assert game.view(seat).offered is None
    game.supply()
    (revealed,) = only(game.last, ActionCardsRevealed)
    assert DIPLOMAT2 not in revealed.picks and DIPLOMAT5 not in revealed.picks


def test_a_pick_stays_secret_until_the_reveal() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    game.conflict(4, 5)
    game.draft({0: TRAITOR, 1: DIPLOMAT2, 2: STRATEGIST, 3: BUILDER})
    assert game.view(0).pick is TRAITOR
    for seat in (1, 2, 3, None):
        assert game.view(seat).seats[0].revealed_pick is None
        assert game.view(seat).seats[0].has_picked
    game.supply()
    for seat in (1, 2, 3, None):
        assert game.view(seat).seats[0].revealed_pick is TRAITOR


# --- phase 3: supply -----------------------------------------------------------------------


def test_supply_cards_are_played_in_turn_order() -> None:
    game = Game(start_player=3)
    game.conflict(4, 5)
    game.draft()
    order = []
    for _ in range(4):
        (seat,) = to_act(game.state)
        for other in {0, 1, 2, 3} - {seat}:
            assert game.refuse(PlaySupply(other, ())) is ViolationCode.NOT_YOUR_TURN
        order.append(seat)
        game.do(PlaySupply(seat, ()))
    assert order == [3, 0, 1, 2]


@pytest.mark.parametrize("cards", [(), (4,), (3, 5), (3, 4, 5)])
def test_a_player_plays_zero_or_more_supply_cards_face_up(cards: tuple[int, ...]) -> None:
    game = Game()
    game.conflict(4, 5)
    game.draft()
    game.do(PlaySupply(0, cards))
    assert only(game.last, SupplyPlayed) == [SupplyPlayed(0, cards)]
    assert sorted(game.state.hands[0]) == sorted(set((3, 4, 5)) - set(cards))
    assert game.view(1).seats[0].played == cards
    assert game.view(1).seats[0].hand_count == 3 - len(cards)


def test_a_player_may_play_all_five_cards_of_a_full_hand() -> None:
    game = Game()
    game.play_round(conflict=(4, 5), picks={1: FARMER})  # seat 1 draws 3 and keeps 5 of 6
    assert len(game.state.hands[1]) == 5
    game.conflict(*first_legal_conflict(game.state))
    game.draft()
    full_hand = game.state.hands[1]
    game.do(PlaySupply(1, full_hand))
    assert game.state.hands[1] == ()
    assert game.state.played[1] == tuple(sorted(full_hand))


def test_no_more_than_five_supply_cards_may_be_played() -> None:
    game = Game()
    game.conflict(4, 5)
    game.draft()
    assert game.refuse(PlaySupply(0, (3, 3, 3, 3, 3, 3))) is ViolationCode.TOO_MANY_CARDS


@pytest.mark.parametrize("cards", [(8,), (3, 3), (2,), (3, 4, 5, 5)])
def test_only_cards_from_the_players_hand_may_be_played(cards: tuple[int, ...]) -> None:
    game = Game()
    game.conflict(4, 5)
    game.draft()
    assert game.refuse(PlaySupply(0, cards)) is ViolationCode.CARD_NOT_IN_HAND


def test_later_players_see_what_earlier_players_played() -> None:
    game = Game(start_player=2)
    game.conflict(4, 5)
    game.draft()
    game.do(PlaySupply(2, (3, 5)))
    game.do(PlaySupply(3, ()))
    seen_by_seat_0 = game.view(0).seats
    assert seen_by_seat_0[2].played == (3, 5)
    assert seen_by_seat_0[3].played == ()
    assert seen_by_seat_0[1].played is None  # seat 1 has not played yet
    assert only(game.redacted(0), SupplyPlayed) == [SupplyPlayed(2, (3, 5)), SupplyPlayed(3, ())]
