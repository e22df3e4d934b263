"""The AI's `Knowledge` of a seat is exactly what `view(state, seat)` lets that seat know.

The heuristic decides from a `Knowledge`: built from the seat's `PlayerView` in a real game
(`from_view`), or read straight from a sampled state by the search bot (`from_sampled_state`).
At every decision point of random games, for every seat, both must equal what the true state
shows that seat: its own hand, pick and draft offer; every public count (hands, buildings,
trading posts, estates, VP, cards played, the rounds and draw phases to come); nothing more.

`Knowledge` holds no list of unknown cards: the heuristic values an unseen card at the mean of
the 23. The cards the AI does treat as unknown are those of the engine's determinization
(`sample_state`, which the search bot samples from): they must be exactly the cards hidden from
the seat, the other hands and the draw pile counted as the state holds them, and the action
cards it may not see.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from services.ai.knowledge import Knowledge
from services.engine import (
    PLAYER_COUNTS,
    BuildingSide,
    CreateGame,
    GameState,
    House,
    Phase,
    PlayerView,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    sample_state,
    to_act,
    view,
)
from services.engine.cards import ALL_ACTION_CARDS, BUILDINGS_PER_PLAYER, SUPPLY_CARDS

games = st.tuples(
    st.sampled_from(PLAYER_COUNTS),
    st.booleans(),
    st.binary(min_size=32, max_size=32),
    st.integers(min_value=0, max_value=2**32),
)


def decision_points(game: tuple[int, bool, bytes, int]) -> Iterator[GameState]:
    """Every state of a game of random legal moves where someone must decide, and its end."""
    players, may_move, seed, play_seed = game
    rng = random.Random(play_seed)
    ruleset = Ruleset.standard(players, builder_may_move=may_move)
    state = execute(initial_state(), CreateGame(ruleset, seed))[1]
    yield state
    while state.phase is not Phase.GAME_OVER:
        state = execute(state, rng.choice(legal_commands(state, to_act(state)[0])))[1]
        yield state


def knowledge_fields(k: Knowledge) -> dict[str, object]:
    """Every field, the legal commands as a tuple (a view holds a tuple, the search a list)."""
    fields = {name: getattr(k, name) for name in Knowledge.__slots__}
    fields["legal"] = tuple(k.legal)
    return fields


def draw_phases_to_come(state: GameState) -> int:
    """RULES.md, A round, phase 10: one draw phase a round, this round's until it has happened."""
    rounds = state.rules.rounds
    if state.phase is Phase.GAME_OVER:
        return 0
    if state.phase is Phase.FIRST_ESTATES:
        return rounds
    return rounds - state.round + (state.phase is not Phase.HAND_LIMIT)


def seen_supply(seen: PlayerView) -> Counter[int]:
    """The supply cards the view shows where they are: own hand, discard pile, played."""
    cards = Counter(seen.hand or ())
    cards.update(seen.discard)
    for seat_view in seen.seats:
        cards.update(seat_view.played or ())
    return cards


def hidden_supply(state: GameState, seat: int) -> Counter[int]:
    """The supply cards `seat` may not see: the other hands and the draw pile."""
    cards = Counter(state.deck)
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards.update(hand)
    return cards


def check_public_facts(k: Knowledge, state: GameState, seen: PlayerView) -> None:
    n = len(state.vp)
    assert k.players == n
    assert (k.phase, k.round, k.rounds) == (state.phase, state.round, state.rules.rounds)
    assert (k.start_player, k.strategist) == (state.start_player, state.strategist)
    assert (k.kinds, k.houses, k.buildings) == (state.kinds, state.houses, state.buildings)
    assert (k.allegiance, k.vp) == (state.allegiance, state.vp)
    assert k.hand_counts == tuple(len(hand) for hand in state.hands)
    assert k.played == state.played
    assert k.picks_revealed == state.revealed
    assert k.conflict == state.conflict
    assert k.card_table == state.rules.card_table
    assert k.last_round == (state.round == state.rules.rounds)
    assert k.draw_phases_left() == draw_phases_to_come(state)
    for other in range(n):
        on_ring = [land for land in seen.ring if land.building_owner == other]
        posts = sum(land.building_side is BuildingSide.TRADING_POST for land in on_ring)
        assert k.trading_posts(other) == state.trading_posts(other) == posts
        assert (
            k.unplaced_buildings(other)
            == state.unplaced_buildings(other)
            == (BUILDINGS_PER_PLAYER - len(on_ring))
        )
        assert seen.seats[other].trading_posts == posts
        for house in House:
            estates = sum(
                land.building_side is BuildingSide.ESTATE and land.house is house
                for land in on_ring
            )
            assert k.productive_estates(other, house) == estates
        assert k.productive_estates(other, state.allegiance[other]) == (
            state.productive_estates(other)
        )


def check_own_secrets(k: Knowledge, state: GameState, seat: int) -> None:
    drafting = state.phase is Phase.DRAFT and to_act(state) == (seat,)
    assert k.seat == seat
    assert k.house is state.allegiance[seat]
    assert k.hand == state.hands[seat]
    assert k.pick is state.picks[seat]
    assert k.offered == (state.pool if drafting else ())
    assert list(k.legal) == legal_commands(state, seat)


def check_unknown_cards(state: GameState, seat: int, seen: PlayerView, rng: random.Random) -> None:
    hidden = hidden_supply(state, seat)
    assert Counter(SUPPLY_CARDS) - seen_supply(seen) == hidden
    sample = sample_state(seen, state.rules, rng)
    assert sample.hands[seat] == state.hands[seat]
    assert hidden_supply(sample, seat) == hidden
    # The action cards the view leaves unseen: every one but those offered to, or picked by,
    # the seat, or once revealed every one but the picks.
    if any(seat_view.revealed_pick is not None for seat_view in seen.seats):
        unseen = set(ALL_ACTION_CARDS) - {seat_view.revealed_pick for seat_view in seen.seats}
    else:
        unseen = set(ALL_ACTION_CARDS) - set(seen.offered or ()) - {seen.pick}
    if state.set_aside is not None:
        assert state.set_aside in unseen
        assert sample.set_aside in unseen
    for other in range(len(state.vp)):
        if other != seat and not state.revealed and state.picks[other] is not None:
            assert state.picks[other] in unseen
            assert sample.picks[other] in unseen


@settings(max_examples=60, deadline=None)
@given(games)
def test_knowledge_of_every_seat_is_what_its_view_shows_of_the_true_state(
    game: tuple[int, bool, bytes, int],
) -> None:
    rng = random.Random(game[3])
    for state in decision_points(game):
        for seat in range(len(state.vp)):
            seen = view(state, seat)
            k = Knowledge.from_view(seen, state.rules)
            check_public_facts(k, state, seen)
            check_own_secrets(k, state, seat)
            check_unknown_cards(state, seat, seen, rng)
            sampled = Knowledge.from_sampled_state(state, seat, legal_commands(state, seat))
            assert knowledge_fields(sampled) == knowledge_fields(k)
