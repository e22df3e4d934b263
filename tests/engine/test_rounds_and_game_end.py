"""RULES.md, a round (8 or 9 of them, phases 11-12) and Game end (early end, final scoring)."""

from __future__ import annotations

import pytest

from services.engine import (
    ActionCard,
    BuildingSide,
    ChooseConflict,
    FlipBuilding,
    PassBuild,
    Phase,
    PlaceBuilding,
    PlaySupply,
    ScoreReason,
    ViolationCode,
    to_act,
)
from services.engine.events import (
    ActionCardsDealt,
    ActionCardsRevealed,
    CardsDrawn,
    ConflictResolved,
    GameEnded,
    RoundEnded,
    RoundStarted,
    StrategistAssigned,
)
from tests.engine.scenario import (
    BUILDER,
    DIPLOMAT2,
    DIPLOMAT5,
    EAGLE,
    FARMER,
    STRATEGIST,
    TRAITOR,
    Game,
    first_legal_conflict,
    only,
    points,
    ring,
)

DURING_THE_GAME = (ScoreReason.CONQUEST, ScoreReason.TRAITOR, ScoreReason.STRATEGIST)


def play_to_the_end(game: Game) -> None:
    while game.state.phase is not Phase.GAME_OVER:
        game.play_round()


# --- rounds -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "starts"), [(4, [0, 1, 2, 3, 0, 1, 2, 3]), (3, [0, 1, 2, 0, 1, 2, 0, 1, 2])]
)
def test_a_game_has_8_rounds_with_4_players_and_9_with_3(players: int, starts: list[int]) -> None:
    game = Game(players)
    play_to_the_end(game)
    assert [r.start_player for r in only(game.events, RoundStarted)] == starts
    assert [r.round for r in only(game.events, RoundEnded)] == list(range(1, len(starts) + 1))
    (ended,) = only(game.events, GameEnded)
    assert ended.early is False
    assert game.view(None).rounds == len(starts)


def test_the_start_player_card_passes_left_after_every_round() -> None:
    game = Game(start_player=2)
    for expected in (3, 0, 1, 2):
        events = game.play_round()
        assert only(events, RoundEnded)[0].next_start_player == expected
        assert game.state.start_player == expected
        assert game.view(1).start_player == expected
        assert only(events, RoundStarted)[0].start_player == expected


def test_the_action_cards_return_to_the_middle_after_every_round() -> None:
    game = Game(set_aside=(TRAITOR, DIPLOMAT5))
    game.play_round(conflict=(4, 5), picks={0: FARMER, 1: STRATEGIST, 2: BUILDER, 3: DIPLOMAT2})
    assert [seat.has_picked for seat in game.view(0).seats] == [False] * 4
    assert game.state.picks == (None,) * 4
    game.conflict(6, 7)
    (dealt,) = only(game.last, ActionCardsDealt)
    assert dealt.offered is not None
    assert sorted(dealt.offered) == sorted(set(ActionCard) - {DIPLOMAT5})  # farmer etc. are back


def test_everything_but_the_decisions_happens_by_itself() -> None:
    game = Game(3, set_aside=(BUILDER,))  # no builder: phases 4 to 12 need no decision
    game.conflict(4, 5)
    game.draft({0: STRATEGIST, 1: DIPLOMAT2, 2: DIPLOMAT5})
    for seat in (0, 1):
        game.do(PlaySupply(seat, ()))
    events = game.do(PlaySupply(2, ()))  # the last decision of the round
    kinds = [type(event) for event in events]
    for kind in (ActionCardsRevealed, ConflictResolved, StrategistAssigned, CardsDrawn):
        assert kind in kinds
    assert kinds[-2:] == [RoundEnded, RoundStarted]
    assert to_act(game.state) == (0,)  # the new strategist chooses the next conflict


# --- game end -----------------------------------------------------------------------------------


def test_the_game_ends_after_phase_10_of_the_last_round() -> None:
    game = Game()
    for _ in range(7):
        game.play_round()
    assert game.state.round == 8
    game.conflict(*first_legal_conflict(game.state))
    game.draft({0: FARMER})
    game.supply()
    game.build()
    assert len(game.state.hands[0]) > 5
    assert game.state.phase is Phase.HAND_LIMIT  # the hand limit of round 8 still applies
    game.finish_round()
    assert game.state.phase is Phase.GAME_OVER
    assert only(game.last, RoundStarted) == []
    assert isinstance(game.last[-1], GameEnded)
    assert game.last.index(only(game.last, RoundEnded)[0]) < len(game.last) - 1


def test_no_command_is_accepted_once_the_game_is_over() -> None:
    game = Game()
    play_to_the_end(game)
    for command in (
        ChooseConflict(game.state.strategist, 4, 5),
        PlaySupply(0, ()),
        PassBuild(0),
        PlaceBuilding(1, 11, BuildingSide.ESTATE),
    ):
        assert game.refuse(command) is ViolationCode.GAME_OVER
    assert to_act(game.state) == ()


#: Eagle holds 0..5 with its city at 5; Rose holds 6..11 in falling conflict value. Each round
#: Eagle conquers the next Rose landscape with the one it took the round before.
EAGLE_SWEEP = ring(
    "E wasteland", "E meadow", "E river", "E forest", "E village", "E city",
    "R city", "R village", "R forest", "R river", "R meadow", "R wasteland",
)  # fmt: skip
SWEEP_CONFLICTS = [(5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]
#: Both Eagle players hold a diplomat (city against city needs it); the strategist is set aside.
SWEEP_PICKS = {0: DIPLOMAT5, 2: DIPLOMAT2, 1: BUILDER, 3: FARMER}


def sweep(game: Game, rounds: int) -> None:
    for conflict in SWEEP_CONFLICTS[:rounds]:
        events = game.play_round(conflict=conflict, picks=SWEEP_PICKS)
        assert only(events, RoundEnded), "each sweep round is played to its end"


def test_the_game_ends_early_when_one_house_holds_all_12_landscapes() -> None:
    game = Game(landscapes=EAGLE_SWEEP, set_aside=(STRATEGIST,) * 6)
    sweep(game, 5)
    assert game.state.phase is Phase.CONFLICT and game.state.round == 6
    game.conflict(10, 11)
    game.draft(SWEEP_PICKS)
    game.supply()
    game.build()
    assert game.state.houses == (EAGLE,) * 12
    assert game.state.phase is Phase.HAND_LIMIT  # phase 10 of this round is still played
    assert only(game.events[-12:], CardsDrawn)
    game.finish_round()
    assert game.state.phase is Phase.GAME_OVER
    (ended,) = only(game.events, GameEnded)
    assert ended.early is True
    assert [r.round for r in only(game.events, RoundStarted)] == [1, 2, 3, 4, 5, 6]


def test_players_tied_for_most_vp_share_the_win() -> None:
    game = Game(landscapes=EAGLE_SWEEP, set_aside=(STRATEGIST,) * 6)
    sweep(game, 6)
    (ended,) = only(game.events, GameEnded)
    # Two Eagle winners each round: city 9 + village 6 + forest 4 + river 3 + meadow 1 + 1.
    assert ended.final_vp == (24, 0, 24, 0)
    assert ended.winners == (0, 2)
    assert game.view(3).winners == (0, 2)


def test_the_player_with_the_most_vp_wins() -> None:
    game = Game(landscapes=EAGLE_SWEEP, set_aside=(STRATEGIST,) * 5 + (TRAITOR,))
    sweep(game, 5)
    game.play_round(conflict=(10, 11), picks={**SWEEP_PICKS, 0: STRATEGIST})
    (ended,) = only(game.events, GameEnded)
    assert ended.final_vp == (24 + 2, 0, 24, 0)
    assert ended.winners == (0,)


def test_final_scoring_pays_trading_posts_times_cards_in_hand_up_to_3() -> None:
    game = Game()
    # Seat 0 places two trading posts under Rose landscapes; seat 3 turns its estate into one.
    game.play_round(picks={0: BUILDER}, build=PlaceBuilding(0, 5, BuildingSide.TRADING_POST))
    game.play_round(picks={0: BUILDER}, build=PlaceBuilding(0, 7, BuildingSide.TRADING_POST))
    game.play_round(picks={3: BUILDER}, build=FlipBuilding(3, 3))
    for _ in range(4):
        game.play_round()
    assert game.state.round == 8
    hand = game.state.hands[3]
    events = game.play_round(picks={3: BUILDER}, plays={3: hand[2:]})  # seat 3 keeps 2 cards
    assert len(game.state.hands[3]) == 2
    assert len(game.state.hands[0]) >= 3
    assert points(events, ScoreReason.TRADING_POSTS) == {0: 2 * 3, 3: 1 * 2}
    during_the_game = [
        sum(points(game.events, reason).get(seat, 0) for reason in DURING_THE_GAME)
        for seat in range(4)
    ]
    (ended,) = only(events, GameEnded)
    assert ended.final_vp == tuple(
        vp + {0: 6, 3: 2}.get(seat, 0) for seat, vp in enumerate(during_the_game)
    )
