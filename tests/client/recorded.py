"""Whole games as a client receives them, made in memory with the engine and the codec (the
server's own code, so the client's pure parts are tested on exactly what the server sends)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from services.api.verrater.v1 import game_pb2, ruleset_pb2
from services.codec import event_to_proto, ruleset_to_proto, view_to_proto
from services.engine import (
    CreateGame,
    Event,
    GameState,
    Phase,
    Ruleset,
    SeatAssignment,
    evolve,
    execute,
    initial_state,
    legal_commands,
    redact_event,
    to_act,
    view,
)

NAMES = ("Anna", "Bert", "Cleo", "Dora")
GAME_ID = "gtest"


@dataclass(frozen=True)
class RecordedGame:
    """Every update a watcher at `seat` (None: a spectator) received, and the ruleset."""

    updates: list[game_pb2.GameUpdate]
    ruleset: ruleset_pb2.Ruleset


def _batch(
    before: GameState, events: list[Event], seat: int | None
) -> tuple[list[game_pb2.GameUpdate], GameState]:
    updates = []
    state = before
    for index, event in enumerate(events):
        redacted = redact_event(event, seat, state)
        state = evolve(state, event)
        update = game_pb2.GameUpdate(version=state.version, event=event_to_proto(redacted))
        if index == len(events) - 1:
            update.view.CopyFrom(view_to_proto(view(state, seat), GAME_ID))
        updates.append(update)
    return updates, state


def record_game(
    seed: int, seat: int | None = 0, players: int = 4, names: tuple[str, ...] = NAMES
) -> RecordedGame:
    """A whole game between uniformly random players, as `seat` saw it."""
    rng = random.Random(seed)
    ruleset = Ruleset.standard(players)
    create = CreateGame(
        ruleset,
        rng.randbytes(32),
        seats=tuple(SeatAssignment(f"p{i}", names[i]) for i in range(players)),
        turn_seconds=60,
    )
    events, state = execute(initial_state(), create)
    updates, _ = _batch(initial_state(), events, seat)
    while state.phase is not Phase.GAME_OVER:
        actor = to_act(state)[0]
        new_events, after = execute(state, rng.choice(legal_commands(state, actor)))
        batch, _ = _batch(state, new_events, seat)
        updates.extend(batch)
        state = after
    return RecordedGame(updates, ruleset_to_proto(ruleset))
