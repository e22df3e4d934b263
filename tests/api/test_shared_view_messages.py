"""The codec builds the parts that recur from view to view once and shares them (a measured
speed-up, services/codec/views.py). Sharing is safe only because a parent message copies what it
is given: this test is what holds that, not a comment."""

from __future__ import annotations

import random

from services.codec import view_to_proto
from services.engine import Ruleset, at_rest, evolve, initial_state, to_act, view
from services.engine.simulate import play_random_game


def test_changing_a_view_message_changes_no_later_view() -> None:
    game = play_random_game(Ruleset.standard(4), random.Random(5))
    # A state in the second half of the game where seat 0 must decide: a view with every part.
    state, chosen = initial_state(), None
    for event in game.events:
        state = evolve(state, event)
        if state.round >= 4 and at_rest(state) and 0 in to_act(state):
            chosen = state
            break
    assert chosen is not None and chosen.last_conflict is not None
    seen = view(chosen, 0)
    assert seen.legal
    first = view_to_proto(seen, "g")
    expected = first.SerializeToString(deterministic=True)
    # Vandalise every shared part a client (or a test) could get its hands on.
    first.ring[0].position = 99
    first.seats[0].vp = 999
    first.seats[0].name = "vandal"
    if first.HasField("last_conflict"):
        first.last_conflict.round = 77
        first.last_conflict.eagle.total = 1
    for command in first.legal:
        command.Clear()
    again = view_to_proto(seen, "g")
    assert again.SerializeToString(deterministic=True) == expected
