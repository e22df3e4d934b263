"""Who acts: the decision the game waits for, and whose it is.

Every phase of a round (shared/RULES.md, A round) is either a decision some seats must take or
automatic. `to_act` reads the state to say which seats the game waits for; a state where nobody
must act is one the rules move on from by themselves (`at_rest` is false there).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .cards import HAND_LIMIT, ActionCard
from .events import Phase
from .state import GameState


class DecisionKind(IntEnum):
    """The kinds of decision a player can be asked for."""

    PLACE_FIRST_ESTATE = 0
    CHOOSE_CONFLICT = 1
    PICK_ACTION_CARD = 2
    PLAY_SUPPLY = 3
    BUILD = 4
    DISCARD = 5


#: The decision each decision phase asks for.
DECISION_OF_PHASE: dict[Phase, DecisionKind] = {
    Phase.FIRST_ESTATES: DecisionKind.PLACE_FIRST_ESTATE,
    Phase.CONFLICT: DecisionKind.CHOOSE_CONFLICT,
    Phase.DRAFT: DecisionKind.PICK_ACTION_CARD,
    Phase.SUPPLY: DecisionKind.PLAY_SUPPLY,
    Phase.BUILD: DecisionKind.BUILD,
    Phase.HAND_LIMIT: DecisionKind.DISCARD,
}


@dataclass(frozen=True, slots=True)
class Turn:
    """Who must act now and what kind of decision; `seats` is empty when nobody must."""

    phase: Phase
    decision: DecisionKind | None
    seats: tuple[int, ...]


def to_act(state: GameState) -> tuple[int, ...]:
    """The seats whose decision the game is waiting for (several only at the hand limit)."""
    phase = state.phase
    n = len(state.vp)
    if phase is Phase.CONFLICT:
        return (state.strategist,) if state.conflict is None else ()
    if phase is Phase.DRAFT or phase is Phase.SUPPLY or phase is Phase.FIRST_ESTATES:
        return ((state.start_player + state.turn) % n,) if state.turn < n else ()
    if phase is Phase.BUILD:
        builder = state.holder(ActionCard.BUILDER)
        return (builder,) if builder is not None and state.turn == 0 else ()
    if phase is Phase.HAND_LIMIT:
        return tuple(seat for seat in range(n) if len(state.hands[seat]) > HAND_LIMIT)
    return ()


def at_rest(state: GameState) -> bool:
    """True when the game waits for a decision or is over: the end of every event batch.

    Within one `decide` batch only the last state is at rest, so a live update stream can
    attach a view exactly where the batch ends.
    """
    return state.phase is Phase.GAME_OVER or bool(to_act(state))


def whose_turn(state: GameState) -> Turn:
    """Who must act now, and what kind of decision."""
    seats = to_act(state)
    return Turn(state.phase, DECISION_OF_PHASE.get(state.phase) if seats else None, seats)
