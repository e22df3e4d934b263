"""A hint's reason says why, not only what: buildings by what they yield, a conflict by what
conquering is worth."""

from __future__ import annotations

import random

from services.ai.heuristic import explain
from services.ai.knowledge import Knowledge
from services.engine import (
    BuildingSide,
    ChooseConflict,
    CreateGame,
    Phase,
    PlaceBuilding,
    PlaceFirstEstate,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    to_act,
    view,
)


def reasons(seed: int) -> dict[str, list[str]]:
    """The reason for every legal command at every decision of a random game, by kind."""
    rng = random.Random(seed)
    ruleset = Ruleset.standard(4)
    _, state = execute(initial_state(), CreateGame(ruleset, rng.randbytes(32)))
    said: dict[str, list[str]] = {}
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        k = Knowledge.from_view(view(state, seat), ruleset)
        commands = legal_commands(state, seat)
        for command in commands:
            kind = type(command).__name__
            if isinstance(command, PlaceBuilding) and command.side is BuildingSide.TRADING_POST:
                kind = "TradingPost"
            said.setdefault(kind, []).append(explain(k, command))
        _, state = execute(state, rng.choice(commands))
    return said


def test_estates_are_explained_by_the_cards_they_draw_or_do_not() -> None:
    said = reasons(5)
    for reason in said[PlaceFirstEstate.__name__] + said[PlaceBuilding.__name__]:
        assert "a card each round you back" in reason or "draws nothing" in reason, reason


def test_trading_posts_are_explained_by_their_final_score() -> None:
    assert all("at the end a trading post scores" in r for r in reasons(6)["TradingPost"])


def test_a_conflict_is_explained_by_what_conquering_is_worth() -> None:
    for reason in reasons(7)[ChooseConflict.__name__]:
        assert " attacks the " in reason and " VP (its conflict value " in reason, reason
