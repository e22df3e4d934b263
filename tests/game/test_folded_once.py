"""A batch is folded once on its way from the decision to the watchers: the states the engine
went through while deciding (or the replica while reading another replica's batch) are the ones
a command's answer redacts against and every watcher that is sent each event is shown, and they
are kept only while such a watcher is there."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

import services.game.cache
from services.codec import decode_record
from services.engine import (
    Event,
    GameState,
    SeatAssignment,
    evolve,
    fold,
    legal_commands,
    redact_event,
    to_act,
)
from services.eventstore import InMemoryEventStore
from services.game.service import GameApplication
from services.game.values import NewGame, Update, WatchMode
from tests.support.waiting import wait_until

SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))


class CountedEvolve:
    """`evolve` as the cache calls it, counted."""

    def __init__(self, evolve: Callable[[GameState, Event], GameState]) -> None:
        self.calls = 0
        self._evolve = evolve

    def __call__(self, state: GameState, event: Event) -> GameState:
        self.calls += 1
        return self._evolve(state, event)


async def _decide(app: GameApplication, game_id: str, rng: random.Random) -> None:
    state = await app.state(game_id)
    seat = to_act(state)[0]
    command = rng.choice(legal_commands(state, seat))
    await app.submit(game_id, seat, command, expected_version=state.version, command_id="")


@pytest.mark.parametrize("decided_by", ["this replica", "another replica"])
async def test_a_watcher_sent_every_event_is_shown_the_states_the_batch_was_folded_to(
    decided_by: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = InMemoryEventStore()
    app = GameApplication(store)
    deciding = app if decided_by == "this replica" else GameApplication(store)
    game_id, state = await app.start_game(NewGame(players=4, game_id="g", seats=SEATS))
    seen: list[Update] = []

    async def watch() -> None:
        async for update in app.updates(game_id, 1, state.version):
            seen.append(update)

    watcher = asyncio.create_task(watch())
    await wait_until(lambda: app._cache[game_id].event_watchers == 1, "the watcher is counted")
    evolve_in_cache = CountedEvolve(evolve)
    monkeypatch.setattr(services.game.cache, "evolve", evolve_in_cache)
    rng = random.Random(11)
    for _ in range(12):
        await _decide(deciding, game_id, rng)
        version = await store.version(game_id)
        await wait_until(lambda v=version: bool(seen) and seen[-1].version == v, "it was seen")
    watcher.cancel()
    await asyncio.gather(watcher, return_exceptions=True)

    assert evolve_in_cache.calls == 0  # every step came from the decision's (or read's) fold
    records = [decode_record(stored.payload) for stored in await store.read(game_id)]
    before = fold(record.event for record in records[: state.version])
    for update, record in zip(seen, records[state.version :], strict=True):
        assert update.event == redact_event(record.event, 1, before)
        before = evolve(before, record.event)
    assert before == await app.state(game_id)


async def test_a_commands_answer_is_redacted_against_the_states_it_went_through() -> None:
    app = GameApplication(InMemoryEventStore())
    game_id, state = await app.start_game(NewGame(players=4, game_id="g", seats=SEATS))
    rng = random.Random(5)
    for number in range(20):
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        result, retried = [
            await app.submit(
                game_id, seat, command, expected_version=state.version, command_id=f"c{number}"
            )
            for _ in range(2)
        ]
        assert retried.replayed and retried.states == result.states
        assert result.states[0] == state and result.state == await app.state(game_id)
        folded = [fold(result.events[:index], state) for index in range(len(result.events) + 1)]
        assert list(result.states) == folded
        for other in (None, 0, 1, 2, 3):
            assert result.events_for(other) == [
                redact_event(event, other, before)
                for event, before in zip(result.events, folded, strict=False)
            ]
        state = result.state


async def test_the_states_of_a_batch_are_kept_only_while_someone_is_sent_every_event() -> None:
    app = GameApplication(InMemoryEventStore())
    game_id, state = await app.start_game(NewGame(players=4, game_id="g", seats=SEATS))
    game = app._cache[game_id]
    rng = random.Random(2)
    turns = app.updates(game_id, to_act(state)[0], 0, WatchMode.TURNS)
    await anext(turns)
    await _decide(app, game_id, rng)
    assert game.latest is None  # a seat told only of its turns needs no step
    events = app.updates(game_id, None, state.version)
    await anext(events)  # the decision above: the spectator is in
    await _decide(app, game_id, rng)
    assert game.latest is not None and game.latest.states[-1] is game.state
    await events.aclose()
    assert game.latest is None
    await turns.aclose()
