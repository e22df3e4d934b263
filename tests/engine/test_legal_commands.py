"""`legal_commands` says exactly what the rules allow: a bot that plays only legal commands is
never refused, and every command the rules accept is among the legal ones."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

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
    execute,
    initial_state,
    legal_commands,
    to_act,
)

POSITIONS = range(12)
SIDES = tuple(BuildingSide)


def candidates(state: GameState, seat: int) -> list[PlayerCommand]:
    """Every command of the current phase a seat could try, legal or not."""
    phase = state.phase
    hand = state.hands[seat]
    if phase is Phase.FIRST_ESTATES:
        return [PlaceFirstEstate(seat, pos) for pos in POSITIONS]
    if phase is Phase.CONFLICT:
        return [ChooseConflict(seat, a, b) for a in POSITIONS for b in POSITIONS]
    if phase is Phase.DRAFT:
        return [PickActionCard(seat, card) for card in ActionCard]
    if phase is Phase.SUPPLY:
        return [PlaySupply(seat, cards) for cards in choices(hand + (2, 8))]
    if phase is Phase.HAND_LIMIT:
        return [DiscardCards(seat, cards) for cards in choices(hand)]
    commands: list[PlayerCommand] = [PassBuild(seat)]
    commands += [PlaceBuilding(seat, pos, side) for pos in POSITIONS for side in SIDES]
    commands += [FlipBuilding(seat, pos) for pos in POSITIONS]
    commands += [
        MoveBuilding(seat, a, b, side) for a in POSITIONS for b in POSITIONS for side in SIDES
    ]
    return commands


def choices(cards: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {
        combo for r in range(min(len(cards), 6) + 1) for combo in combinations(sorted(cards), r)
    }


def accepted(state: GameState, command: PlayerCommand) -> bool:
    try:
        execute(state, command)
    except RuleViolation:
        return False
    return True


def normal(command: PlayerCommand) -> PlayerCommand:
    """Commands that mean the same thing compare equal: a conflict names an unordered pair, and
    supply and discards are multisets."""
    if isinstance(command, ChooseConflict):
        first, second = sorted((command.first, command.second))
        return ChooseConflict(command.seat, first, second)
    if isinstance(command, PlaySupply):
        return PlaySupply(command.seat, tuple(sorted(command.cards)))
    if isinstance(command, DiscardCards):
        return DiscardCards(command.seat, tuple(sorted(command.cards)))
    return command


@pytest.mark.parametrize(
    ("players", "builder_may_move", "game_seed"),
    [(4, False, 1), (3, False, 2), (4, True, 3), (3, True, 4)],
)
def test_legal_commands_are_exactly_the_commands_the_rules_accept(
    players: int, builder_may_move: bool, game_seed: int
) -> None:
    rng = random.Random(game_seed)
    ruleset = Ruleset.standard(players, builder_may_move=builder_may_move)
    _, state = execute(initial_state(), CreateGame(ruleset, rng.randbytes(32)))
    while state.phase is not Phase.GAME_OVER:
        acting = to_act(state)
        for seat in range(players):
            legal = {normal(c) for c in legal_commands(state, seat)}
            if seat not in acting:
                assert legal == set()
                continue
            allowed = {normal(c) for c in candidates(state, seat) if accepted(state, c)}
            assert legal == allowed, (state.phase, seat)
        _, state = execute(state, rng.choice(legal_commands(state, acting[0])))
