"""A command's append stands once the store holds it: clearing the previous state's wake-up
afterwards (the new state awaits nothing timed) is the timers' business. When their store does
not answer then, the command is still answered as applied, and the old wake-up is left to fire
once, find nothing due and clear itself (services/game/timers/policy.py, `nothing_to_clear`)."""

from __future__ import annotations

import random

from services.engine import Phase, SeatAssignment, legal_commands, to_act
from services.eventstore import InMemoryEventStore, StoreUnavailable
from services.game.service import GameApplication
from services.game.timers import InMemoryTurnTimers
from services.game.values import NewGame

T0 = 1_900_000_000.0
SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))


class ClearsFail(InMemoryTurnTimers):
    """Timers whose store does not answer a clear (a wake-up set to None)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = 0

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        if wake_ms is None:
            self.refused += 1
            raise StoreUnavailable("turn timers unreachable: the Redis restarts")
        await super().set(game_id, version, wake_ms)


async def test_the_last_move_of_a_timed_game_is_answered_when_its_wake_up_cannot_be_cleared() -> (
    None
):
    store, timers = InMemoryEventStore(), ClearsFail()
    replica = GameApplication(store, timers=timers, clock=lambda: T0)
    rng = random.Random(7)
    try:
        game_id, _ = await replica.start_game(
            NewGame(players=4, game_id="timed", seats=SEATS, turn_seconds=600)
        )
        state = await replica.state(game_id)
        while state.phase is not Phase.GAME_OVER:  # every state but the last needs a wake-up
            seat = to_act(state)[0]
            command = rng.choice(legal_commands(state, seat))
            result = await replica.submit(
                game_id,
                seat,
                command,
                expected_version=state.version,
                command_id=f"c{state.version}",
            )
            state = result.state
        assert timers.refused == 1, "the game's end needs no wake-up: the one clear was refused"
        assert await store.version(game_id) == state.version  # the last move stands, answered
        assert await timers.next_wake_ms() is not None  # the old wake-up fires once, harmlessly
    finally:
        await replica.close()
