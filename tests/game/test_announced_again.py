"""A state announced again by a replica that did not append it (a cold load) carries the first
record of the batch that led to it, and says it is a repeat: the notifications then send what
the replica that appended it may not have (its BotTookOver), but no GameOver weeks later."""

from __future__ import annotations

import random

from services.engine import SeatAssignment, legal_commands, to_act
from services.eventstore import InMemoryEventStore
from services.game.announcements import Announcement, GameLoaded
from services.game.service import GameApplication
from services.game.values import NewGame

T0 = 1_900_000_000.0
PEOPLE = tuple(SeatAssignment(f"p{seat}", f"P{seat}") for seat in range(3))


async def test_a_cold_load_announces_the_last_batch_again() -> None:
    now = [T0]
    store = InMemoryEventStore()
    appending = GameApplication(store, clock=lambda: now[0])
    game = NewGame(players=3, game_id="g", seats=PEOPLE, turn_seconds=60)
    _, state = await appending.start_game(game)
    now[0] += 61  # the first person's timer ran out: a bot stands in
    seat = to_act(state)[0]
    await appending.submit(
        "g",
        seat,
        random.Random(1).choice(legal_commands(state, seat)),
        expected_version=state.version,
        command_id="bot:g:0",
        turn_timer_expired=True,
        by_service=True,
    )

    heard: list[Announcement] = []
    loading = GameApplication(store, publish=heard.append, clock=lambda: now[0])
    after = await loading.state("g")
    (news,) = heard
    assert isinstance(news, GameLoaded) and news.state.version == after.version
    assert news.decision is not None and news.decision.turn_timer_expired
    assert (news.decision.seat, news.decision.command_id) == (seat, "bot:g:0")
    assert (await loading.resting("g")).decision == news.decision
