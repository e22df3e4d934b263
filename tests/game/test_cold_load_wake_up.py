"""A game loaded cold sets the wake-up its state needs (the replica that appended it may have
died before it did) off the path of the call that loaded it: the answer waits for no Redis
round trip of the timers, the wake-up is set in the background under the game's lock, again
while the timers' store is away, and the wake-up that stands is the newest state's."""

from __future__ import annotations

import asyncio
import random

from services.engine import SeatAssignment, legal_commands, to_act
from services.eventstore import InMemoryEventStore, StoreUnavailable
from services.game.service import GameApplication
from services.game.timers import InMemoryTurnTimers
from services.game.values import NewGame
from tests.support.waiting import wait_until

T0 = 1_900_000_000.0
SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))
TURN_MS = 60_000
WARNING_MS = TURN_MS // 5  # a fifth of the turn before the deadline


class HeldTimers(InMemoryTurnTimers):
    """Timers whose writes wait while `open` is clear, or fail while `away` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.open = asyncio.Event()
        self.open.set()
        self.away = False
        self.writes: list[tuple[str, int, int | None]] = []

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        await self.open.wait()
        if self.away:
            raise StoreUnavailable("the timers' Redis is away")
        self.writes.append((game_id, version, wake_ms))
        await super().set(game_id, version, wake_ms)


async def _timed_game(store: InMemoryEventStore, timers: HeldTimers) -> str:
    """A game with 60 s turns, created by a replica that then goes (its cache with it)."""
    first = GameApplication(store, timers=timers, clock=lambda: T0)
    game_id, _ = await first.start_game(
        NewGame(players=4, game_id="cold", seats=SEATS, turn_seconds=TURN_MS // 1000)
    )
    await first.close()
    await timers.set(game_id, 2**62, None)  # as if the first replica died before setting it
    return game_id


async def test_a_cold_load_answers_without_waiting_for_the_timers_then_sets_the_wake_up() -> None:
    store, timers = InMemoryEventStore(), HeldTimers()
    game_id = await _timed_game(store, timers)
    assert await timers.next_wake_ms() is None
    timers.open.clear()  # the timers' store does not answer for now
    written = len(timers.writes)
    replica = GameApplication(store, timers=timers, clock=lambda: T0 + 1)
    try:
        async with asyncio.timeout(30):  # (it would wait forever if the load waited on them)
            view = await replica.view(game_id, 0)  # answered: nothing waited on the timers
        assert view.deadline_ms == int(T0 * 1000) + TURN_MS
        assert await timers.next_wake_ms() is None
        timers.open.set()
        await wait_until(lambda: len(timers.writes) > written, "the load's wake-up was written")
        assert await timers.next_wake_ms() == view.deadline_ms - WARNING_MS
    finally:
        await replica.close()


async def test_a_cold_loads_wake_up_is_set_once_the_timers_store_is_back() -> None:
    store, timers = InMemoryEventStore(), HeldTimers()
    game_id = await _timed_game(store, timers)
    timers.away = True
    written = len(timers.writes)
    replica = GameApplication(store, timers=timers, clock=lambda: T0 + 1)
    try:
        view = await replica.view(game_id, 0)
        await asyncio.sleep(0.3)  # a few tries fail meanwhile
        assert await timers.next_wake_ms() is None
        timers.away = False
        await wait_until(lambda: len(timers.writes) > written, "the load's wake-up was written")
        assert await timers.next_wake_ms() == view.deadline_ms - WARNING_MS
    finally:
        await replica.close()


async def test_after_a_cold_load_and_a_move_the_wake_up_is_the_new_states() -> None:
    store, timers = InMemoryEventStore(), HeldTimers()
    game_id = await _timed_game(store, timers)
    now = [T0 + 1]
    replica = GameApplication(store, timers=timers, clock=lambda: now[0])
    try:
        state = await replica.state(game_id)  # loaded cold: its wake-up is set in the background
        seat = to_act(state)[0]
        now[0] = T0 + 30  # the person decides 30 s into the turn, before that wake-up is set
        command = random.Random(1).choice(legal_commands(state, seat))
        await replica.submit(game_id, seat, command, expected_version=state.version, command_id="c")
        after = await replica.view(game_id, None)
        await asyncio.sleep(0.1)  # whatever the load left to do is done
        assert after.deadline_ms is not None
        assert await timers.next_wake_ms() == after.deadline_ms - WARNING_MS
    finally:
        await replica.close()
