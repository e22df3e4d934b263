"""Properties of every game: random seeds, random legal play, 3 and 4 players, both variants."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from services.engine import (
    ActionCard,
    BuildingSide,
    ChooseConflict,
    CreateGame,
    DiscardCards,
    FlipBuilding,
    GameState,
    MoveBuilding,
    PassBuild,
    Phase,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
    Ruleset,
    RuleViolation,
    ViolationCode,
    advance,
    at_rest,
    execute,
    execute_steps,
    fold,
    initial_state,
    legal_commands,
    supply_count,
    to_act,
    view,
)
from services.engine.cards import MAX_TRADING_POSTS, SUPPLY_CARDS
from services.engine.events import Event
from services.engine.state import evolve

ALL_SUPPLY = Counter(SUPPLY_CARDS)

games = st.tuples(
    st.sampled_from([3, 4]),
    st.booleans(),
    st.binary(min_size=32, max_size=32),
    st.integers(min_value=0, max_value=2**32),
)


def _normal(command: PlayerCommand) -> PlayerCommand:
    """Commands the rules treat as the same decision compare equal after this."""
    if isinstance(command, ChooseConflict):
        first, second = sorted((command.first, command.second))
        if (first, second) == (0, 11):
            first, second = 11, 0
        return ChooseConflict(command.seat, first, second)
    if isinstance(command, PlaySupply | DiscardCards):
        return type(command)(command.seat, tuple(sorted(command.cards)))
    return command


def _random_command(rng: random.Random, players: int) -> PlayerCommand:
    """Anything a client might send, legal or not."""
    seat = rng.randrange(-1, players + 1)
    pos = rng.randrange(-2, 14)
    cards = tuple(rng.choice((2, 3, 4, 5, 6, 7, 8)) for _ in range(rng.randrange(0, 8)))
    side = rng.choice(list(BuildingSide))
    return rng.choice(
        [
            PlaceFirstEstate(seat, pos),
            ChooseConflict(seat, pos, rng.randrange(-1, 13)),
            PickActionCard(seat, rng.choice(list(ActionCard))),
            PlaySupply(seat, cards),
            PlaceBuilding(seat, pos, side),
            FlipBuilding(seat, pos),
            MoveBuilding(seat, pos, rng.randrange(0, 12), side),
            PassBuild(seat),
            DiscardCards(seat, cards),
        ]
    )


def _check_invariants(state: GameState) -> None:
    assert supply_count(state) == ALL_SUPPLY
    for seat in range(len(state.vp)):
        assert state.trading_posts(seat) <= MAX_TRADING_POSTS
        assert 0 <= state.unplaced_buildings(seat) <= 3
    if state.ruleset is not None:
        assert state.round <= state.ruleset.rounds


def _check_views_hide(state: GameState, rng: random.Random) -> None:
    """A seat's view is the same whatever the hidden facts it may not see are."""
    n = len(state.vp)
    for seat in range(n):
        disguised = state.copy()
        # Redeal every other hand (same sizes) and the draw pile from the same cards.
        hidden = [c for s in range(n) if s != seat for c in state.hands[s]] + list(state.deck)
        rng.shuffle(hidden)
        hands = list(state.hands)
        for other in range(n):
            if other != seat:
                size = len(hands[other])
                hands[other], hidden = tuple(sorted(hidden[:size])), hidden[size:]
        disguised.hands = tuple(hands)
        disguised.deck = tuple(hidden)
        disguised.set_aside = None
        if not state.revealed:
            turn = to_act(state)
            disguised.picks = tuple(
                p if s == seat or p is None else ActionCard.FARMER
                for s, p in enumerate(state.picks)
            )
            if turn != (seat,):
                disguised.pool = ()
        mine = view(state, seat)
        assert mine == view(disguised, seat)
        assert mine.hand == state.hands[seat]


@settings(max_examples=25, deadline=None)
@given(games)
def test_random_games_keep_every_invariant(game: tuple[int, bool, bytes, int]) -> None:
    players, may_move, seed, play_seed = game
    rng = random.Random(play_seed)
    ruleset = Ruleset.standard(players, builder_may_move=may_move)
    log: list[Event]
    log, state = execute(initial_state(), CreateGame(ruleset, seed))
    _check_invariants(state)
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        legal = legal_commands(state, seat)
        assert legal, "a seat to act always has a legal decision"
        for _ in range(3):
            attempt = _random_command(rng, players)
            # Legal for its own seat: several seats may act at once (hand-limit discards).
            if attempt.seat in to_act(state) and _normal(attempt) in {
                _normal(c) for c in legal_commands(state, attempt.seat)
            }:
                continue
            try:
                execute(state, attempt)
            except RuleViolation as violation:
                assert isinstance(violation.code, ViolationCode)
                assert violation.message
            else:
                raise AssertionError(f"illegal {attempt} was accepted")
        events, state = execute(state, rng.choice(legal))
        before = fold(log)
        for index, event in enumerate(events):
            before = evolve(before, event)
            _check_invariants(before)
            assert at_rest(before) == (index == len(events) - 1), "a batch ends at rest"
        log.extend(events)
        assert fold(log) == state
        if rng.random() < 0.2:
            _check_views_hide(state, rng)
    assert state.round <= ruleset.rounds
    assert state.winners


@settings(max_examples=15, deadline=None)
@given(games)
def test_every_legal_command_is_accepted(game: tuple[int, bool, bytes, int]) -> None:
    players, may_move, seed, play_seed = game
    rng = random.Random(play_seed)
    _, state = execute(
        initial_state(), CreateGame(Ruleset.standard(players, builder_may_move=may_move), seed)
    )
    while state.phase is not Phase.GAME_OVER:
        for seat in range(players):
            for command in legal_commands(state, seat):
                execute(state, command)
        _, state = execute(state, rng.choice(legal_commands(state, to_act(state)[0])))


@settings(max_examples=15, deadline=None)
@given(games)
def test_fold_on_top_of_a_state_equals_evolving_it_and_leaves_it_as_it_was(
    game: tuple[int, bool, bytes, int],
) -> None:
    players, may_move, seed, play_seed = game
    rng = random.Random(play_seed)
    ruleset = Ruleset.standard(players, builder_may_move=may_move)
    log: list[Event]
    log, state = execute(initial_state(), CreateGame(ruleset, seed))
    while state.phase is not Phase.GAME_OVER:
        events, state = execute(state, rng.choice(legal_commands(state, to_act(state)[0])))
        log.extend(events)
    split = rng.randrange(len(log) + 1)
    before = fold(log[:split])
    untouched = before.copy()
    evolved = before
    for event in log[split:]:
        evolved = evolve(evolved, event)

    assert fold(log[split:], before) == evolved == state
    assert before == untouched


@settings(max_examples=15, deadline=None)
@given(games)
def test_each_step_of_a_decision_is_the_fold_of_the_events_before_it(
    game: tuple[int, bool, bytes, int],
) -> None:
    players, may_move, seed, play_seed = game
    rng = random.Random(play_seed)
    ruleset = Ruleset.standard(players, builder_may_move=may_move)
    log, states = execute_steps(initial_state(), CreateGame(ruleset, seed))
    state = states[-1]
    assert [fold(log[:index]) for index in range(len(log) + 1)] == states
    while state.phase is not Phase.GAME_OVER:
        command = rng.choice(legal_commands(state, to_act(state)[0]))
        events, states = execute_steps(state, command)
        assert states[0] is state and len(states) == len(events) + 1
        assert [fold(events[:index], state) for index in range(len(events) + 1)] == states
        assert (events, states[-1]) == execute(state, command)
        # The searches' shortcut leads to the same state, and leaves the one it starts from.
        untouched = state.copy()
        assert advance(state, command) == states[-1]
        assert state == untouched
        state = states[-1]


def test_state_copy_copies_every_field() -> None:
    state = execute(initial_state(), CreateGame(Ruleset.standard(4), b"\x01" * 32))[1]
    copied = state.copy()
    for name in GameState.__slots__:
        assert getattr(copied, name) is getattr(state, name), name
    assert copied == state


def test_rejected_command_changes_nothing() -> None:
    _, state = execute(initial_state(), CreateGame(Ruleset.standard(4), b"\x02" * 32))
    snapshot = state.copy()
    seat = to_act(state)[0]
    try:
        execute(state, PlaceFirstEstate((seat + 1) % 4, 0))
    except RuleViolation as violation:
        assert violation.code is ViolationCode.NOT_YOUR_TURN
    else:
        raise AssertionError("a command out of turn was accepted")
    assert state == snapshot
