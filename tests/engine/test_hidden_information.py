"""RULES.md, Hidden information: who sees what, in views and in redacted events.

The strongest check is indistinguishability: two games that differ only in a fact a seat may
not see must look the same to that seat, in its view and in the events it receives.
"""

from __future__ import annotations

import hashlib
import random

from services.engine import (
    CreateGame,
    Phase,
    PickActionCard,
    PlaySupply,
    Ruleset,
    execute,
    fold,
    initial_state,
    legal_commands,
    to_act,
)
from services.engine.events import (
    ActionCardPicked,
    ActionCardsDealt,
    CardsDrawn,
    DiscardPileReshuffled,
    GameCreated,
    GameEnded,
    SupplyDealt,
)
from tests.engine.scenario import (
    BUILDER,
    DECK,
    DIPLOMAT2,
    DIPLOMAT5,
    FARMER,
    SEED,
    STRATEGIST,
    TRAITOR,
    Game,
    only,
)

EVERYONE = (0, 1, 2, 3, None)


def looks_the_same(a: Game, b: Game, seats: tuple[int | None, ...]) -> bool:
    """Whether the two games give these seats the same view and the same redacted events."""
    return all(a.view(s) == b.view(s) and a.redacted(s) == b.redacted(s) for s in seats)


def play_to_the_end(game: Game) -> None:
    while game.state.phase is not Phase.GAME_OVER:
        game.play_round()


# --- a player's hand ------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_only_the_number_of_cards_of_the_others() -> None:
    game = Game()
    game.play_round(conflict=(4, 5), picks={2: FARMER})
    for seat in range(4):
        seen = game.view(seat)
        assert seen.hand == game.state.hands[seat]
        assert [s.hand_count for s in seen.seats] == [len(h) for h in game.state.hands]
    assert game.view(None).hand is None


def test_a_seats_view_never_holds_another_seats_hand() -> None:
    # Seat 2 is the farmer and draws the top three cards; the two draw piles differ only there
    # (and further down, where nobody draws this round).
    picks = {0: BUILDER, 1: STRATEGIST, 2: FARMER, 3: DIPLOMAT5}
    a = Game(deck=(8, 6, 6, 5, 4, 3, 2, 2, 2, 2, 2))
    b = Game(deck=(2, 2, 6, 5, 4, 3, 8, 6, 2, 2, 2))
    for game in (a, b):
        game.conflict(6, 7)
        game.draft(picks)
        game.supply()
        game.build()
        assert game.state.phase is Phase.HAND_LIMIT and to_act(game.state) == (2,)
    assert a.state.hands[2] != b.state.hands[2]
    assert looks_the_same(a, b, (0, 1, 3, None))
    assert a.view(2) != b.view(2)


def test_a_seat_receives_its_own_drawn_cards_and_only_the_count_of_others() -> None:
    game = Game()
    game.play_round(conflict=(4, 5), picks={2: FARMER})
    for seat in range(4):
        for draw in only(game.redacted(seat), CardsDrawn):
            assert (draw.cards is not None) == (draw.seat == seat)
            assert draw.count > 0


# --- draw pile order -----------------------------------------------------------------------


def test_nobody_sees_the_order_of_the_draw_pile() -> None:
    a = Game(deck=DECK[4])
    b = Game(deck=tuple(reversed(DECK[4])))
    assert a.state.deck != b.state.deck
    assert looks_the_same(a, b, EVERYONE)
    assert a.view(0).deck_count == 11
    for seat in EVERYONE:
        (created,) = only(a.redacted(seat), GameCreated)
        assert created.setup is not None and created.setup.deck is None
        (dealt,) = only(a.redacted(seat), SupplyDealt)
        assert (dealt.deck, dealt.deck_size) == (None, 11)


def test_nobody_sees_the_order_of_a_reshuffled_draw_pile() -> None:
    game = Game()
    play_to_the_end(game)
    assert only(game.events, DiscardPileReshuffled), "the scenario must reshuffle at least once"
    for seat in EVERYONE:
        for reshuffle in only(game.redacted(seat), DiscardPileReshuffled):
            assert reshuffle.order is None and reshuffle.size > 0


# --- the set-aside action card ----------------------------------------------------------------


def test_nobody_sees_the_action_card_set_aside() -> None:
    picks = {0: BUILDER, 1: STRATEGIST, 2: FARMER, 3: DIPLOMAT5}
    a = Game(set_aside=(TRAITOR,))
    b = Game(set_aside=(DIPLOMAT2,))
    for game in (a, b):
        game.conflict(6, 7)
    # While the start player picks, nobody else can tell which card lies aside.
    assert looks_the_same(a, b, (1, 2, 3, None))
    for game in (a, b):
        game.draft(picks)
        game.supply()
        game.finish_round()
    # After the round, not even the start player is told (the leftover card goes back unseen).
    assert all(a.view(s) == b.view(s) for s in EVERYONE)
    for seat in EVERYONE:
        for dealt in only(a.redacted(seat), ActionCardsDealt):
            assert dealt.set_aside is None
        (created,) = only(a.redacted(seat), GameCreated)
        assert created.setup is not None and created.setup.set_aside is None


# --- the draft --------------------------------------------------------------------------------


def test_draft_cards_are_seen_only_by_the_player_whose_pick_it_is() -> None:
    game = Game(start_player=1, set_aside=(TRAITOR,))
    game.conflict(4, 5)
    for picker, size in ((1, 5), (2, 4), (3, 3), (0, 2)):
        assert to_act(game.state) == (picker,)
        for seat in EVERYONE:
            offered = game.view(seat).offered
            if seat == picker:
                assert offered is not None and len(offered) == size
                assert legal_commands(game.state, seat) == [
                    PickActionCard(seat, card) for card in sorted(offered)
                ]
            else:
                assert offered is None
                assert game.view(seat).legal == ()
        offered = game.view(picker).offered
        assert offered is not None
        game.do(PickActionCard(picker, offered[0]))
    for seat in EVERYONE:
        (dealt,) = only(game.redacted(seat), ActionCardsDealt)
        assert (dealt.offered is not None) == (seat == 1)


def test_a_pick_is_seen_only_by_its_owner_before_the_reveal() -> None:
    a, b = Game(), Game()
    for game, pick in ((a, DIPLOMAT5), (b, DIPLOMAT2)):
        game.conflict(6, 7)
        game.draft({0: BUILDER, 1: STRATEGIST, 2: FARMER, 3: pick})
        assert game.state.phase is Phase.SUPPLY
    assert looks_the_same(a, b, (0, 1, 2, None))
    assert (a.view(3).pick, b.view(3).pick) == (DIPLOMAT5, DIPLOMAT2)
    for seat in (0, 1, 2, None):
        for picked in only(a.redacted(seat), ActionCardPicked):
            assert (picked.card is None) == (picked.seat != seat)
    (own,) = [p for p in only(a.redacted(3), ActionCardPicked) if p.seat == 3]
    assert own.card is DIPLOMAT5
    for game in (a, b):
        game.supply()
    assert a.view(0).seats[3].revealed_pick is DIPLOMAT5
    assert b.view(0).seats[3].revealed_pick is DIPLOMAT2


# --- everything else is public ------------------------------------------------------------------


def test_landscapes_buildings_allegiances_vp_played_supply_and_discard_pile_are_public() -> None:
    game = Game(set_aside=(DIPLOMAT5,))
    game.play_round(
        conflict=(8, 9), picks={1: TRAITOR, 0: FARMER}, plays={1: (3, 4, 5)}, discards={0: (8,)}
    )
    game.conflict(4, 5)
    game.draft()
    game.do(PlaySupply(1, ()))
    game.do(PlaySupply(2, (3,)))
    spectator = game.view(None)
    assert [(v.type, v.house) for v in spectator.ring] == list(
        zip(game.state.kinds, game.state.houses, strict=True)
    )
    assert [
        None if b is None else (b.owner, b.side) for b in game.state.buildings
    ] == [None if v.building_owner is None else (v.building_owner, v.building_side)
          for v in spectator.ring]  # fmt: skip
    assert [s.house for s in spectator.seats] == list(game.state.allegiance)
    assert [s.vp for s in spectator.seats] == list(game.state.vp)
    assert [s.played for s in spectator.seats] == [None, (), (3,), None]
    assert spectator.discard == game.state.discard
    assert 8 in spectator.discard and 4 in spectator.discard  # seat 0's 8, seat 1's 3 4 5


# --- the seed and the audit ---------------------------------------------------------------------


def test_the_seed_commitment_is_sha256_of_the_seed_and_game_ended_reveals_the_seed() -> None:
    game = Game()
    (created,) = only(game.events, GameCreated)
    assert created.seed_commitment == hashlib.sha256(SEED).hexdigest()
    for seat in EVERYONE:
        assert game.view(seat).seed_commitment == hashlib.sha256(SEED).hexdigest()
        assert game.view(seat).seed is None
        (seen,) = only(game.redacted(seat), GameCreated)
        assert seen.seed is None
    play_to_the_end(game)
    (ended,) = only(game.events, GameEnded)
    assert ended.seed == SEED
    for seat in EVERYONE:
        assert game.view(seat).seed == SEED
        (seen_end,) = only(game.redacted(seat), GameEnded)
        assert seen_end.seed == SEED


def test_after_the_game_the_full_record_replays_every_hidden_fact() -> None:
    rng = random.Random(7)
    seed = rng.randbytes(32)
    events, state = execute(initial_state(), CreateGame(Ruleset.standard(4), seed))
    commands = []
    while state.phase is not Phase.GAME_OVER:
        command = rng.choice(legal_commands(state, to_act(state)[0]))
        commands.append(command)
        new, state = execute(state, command)
        events.extend(new)
    assert fold(events) == state
    (ended,) = only(events, GameEnded)
    # An auditor with the revealed seed and the decisions recomputes every shuffle.
    replayed, replay_state = execute(initial_state(), CreateGame(Ruleset.standard(4), ended.seed))
    for command in commands:
        new, replay_state = execute(replay_state, command)
        replayed.extend(new)
    assert replayed == events
    assert hashlib.sha256(ended.seed).hexdigest() == only(events, GameCreated)[0].seed_commitment
