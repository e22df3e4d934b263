"""Every spectator of a game is shown the same, so it is made once for all of them: the updates
spectators get are the very same objects, equal to what the rules say a spectator sees, and
what is kept for them goes when the last watcher leaves."""

from __future__ import annotations

import asyncio
import random

from services.codec import decode_record
from services.engine import at_rest, evolve, fold, legal_commands, redact_event, to_act, view
from services.eventstore import InMemoryEventStore
from services.game.cache import PUBLIC_MEMO
from services.game.clock import deadline_ms
from services.game.service import GameApplication
from services.game.values import NewGame, Update


async def test_spectators_share_one_public_update_per_version() -> None:
    store = InMemoryEventStore()
    app = GameApplication(store)
    game_id, state = await app.start_game(NewGame(players=4, game_id="final"))
    seen: list[list[Update]] = [[], [], []]
    largest_memo = 0

    async def spectate(into: list[Update]) -> None:
        async for update in app.updates(game_id, None, 0):
            into.append(update)

    fans = [asyncio.create_task(spectate(into)) for into in seen]
    rng = random.Random(3)
    while not all(fan.done() for fan in fans):
        await asyncio.sleep(0)  # the spectators take what is new
        state = await app.state(game_id)
        largest_memo = max(largest_memo, len(app._cache[game_id].public))
        if to_act(state):
            seat = to_act(state)[0]
            command = rng.choice(legal_commands(state, seat))
            await app.submit(game_id, seat, command, expected_version=state.version, command_id="")
    await asyncio.gather(*fans)

    # What the rules say a spectator sees of each event, made here from the log alone.
    records = [decode_record(stored.payload) for stored in await store.read(game_id)]
    expected, before, recorded_at = [], fold([]), 0
    for version, record in enumerate(records, start=1):
        after = evolve(before, record.event)
        recorded_at = record.recorded_at_ms or recorded_at
        rest = at_rest(after)
        expected.append(
            Update(
                version,
                redact_event(record.event, None, before),
                view(after, None) if rest else None,
                record.turn_timer_expired,
                record.command_id,
                deadline_ms(after, recorded_at) if rest else None,
                record.recorded_at_ms,
            )
        )
        before = after
    assert seen[0] == expected
    assert all(a is b is c for a, b, c in zip(*seen, strict=True))  # made once, shared
    assert 0 < largest_memo <= PUBLIC_MEMO
    assert app._cache[game_id].public == {}  # the last watcher left


async def test_a_spectator_joining_late_makes_its_own_earlier_updates() -> None:
    """Versions older than the memo are made by the spectator that needs them, from its own
    fold, and are the same as a live spectator's were."""
    app = GameApplication(InMemoryEventStore())
    game_id, state = await app.start_game(NewGame(players=3, game_id="late"))
    rng = random.Random(5)
    while state.version < 3 * PUBLIC_MEMO and to_act(state):
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        await app.submit(game_id, seat, command, expected_version=state.version, command_id="")
        state = await app.state(game_id)

    async def spectated(on: GameApplication) -> list[Update]:
        """What a spectator joining now on `on` is sent, from the start to the current version."""
        seen = []
        updates = on.updates(game_id, None, 0)
        async for update in updates:
            seen.append(update)
            if update.version == state.version:
                break
        await updates.aclose()
        return seen

    late = await spectated(app)
    early = await spectated(GameApplication(app.store))  # a replica with nothing memoized
    assert late == early and len(late) == state.version
