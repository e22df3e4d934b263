"""An append the store could not confirm (no replica acknowledged it in time, or its reply was
lost) may have landed all the same: the next bot turn must still be announced."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from services.ai.dispatch import BotScheduler
from services.ai.turns import BotTurn
from services.api.verrater.v1 import view_pb2
from services.codec import view_from_proto
from services.engine import BotLevel, SeatAssignment
from services.eventstore import InMemoryEventStore, StoredEvent, StoreUnavailable
from services.game.announcements import Announcement
from services.game.service import GameApplication
from services.game.values import NewGame

BOTS = tuple(
    SeatAssignment(f"bot{seat}", f"Bot {seat}", BotLevel.NORMAL.value) for seat in range(3)
)


class UnconfirmedOnce(InMemoryEventStore):
    """Appends, then (when armed) reports the store unavailable, as a Redis whose replica did
    not confirm the append in time does: the events are there, the caller was told otherwise."""

    armed = False

    async def append(
        self, game_id: str, expected_version: int, payloads: Sequence[bytes]
    ) -> list[StoredEvent]:
        stored = await super().append(game_id, expected_version, payloads)
        if self.armed:
            self.armed = False
            raise StoreUnavailable("append reached 0 of 1 replicas: it may or may not survive")
        return stored


async def test_a_bot_move_that_landed_unconfirmed_still_leads_to_the_next_bot_turn() -> None:
    store = UnconfirmedOnce()
    launched: list[BotTurn] = []
    scheduler = BotScheduler(launched.append)

    def announce(news: Announcement) -> None:
        scheduler.announce(news.game_id, news.state)

    app = GameApplication(store, publish=announce)
    _, state = await app.start_game(NewGame(players=3, game_id="g", seats=BOTS))
    turn = next(t for t in launched if t.version == state.version)
    store.armed = True
    with pytest.raises(StoreUnavailable):
        await submit(app, turn)
    assert await store.version("g") > state.version  # it landed
    # The worker retries the same turn (same command id): answered, and the game goes on.
    await submit(app, turn)
    landed = await store.version("g")
    assert any(t.version == landed for t in launched), "nobody announced the next bot turn"


async def submit(app: GameApplication, turn: BotTurn) -> None:
    """What a worker does with a turn: decide from its view, submit with its command id."""
    view = view_from_proto(view_pb2.PlayerView.FromString(turn.view))
    await app.submit(
        turn.game_id,
        turn.seat,
        view.legal[0],
        expected_version=turn.version,
        command_id=turn.command_id,
    )


async def test_a_bot_moves_announcement_says_how_long_it_came_after_the_state() -> None:
    """What the publisher paces itself by: a bot's move is announced with how long after the
    state that awaited it it was appended; a creation, a cold load or a person's move without."""
    now = [1_900_000_000.0]
    launched: list[BotTurn] = []
    scheduler = BotScheduler(launched.append)
    heard: list[Announcement] = []

    def announce(news: Announcement) -> None:
        heard.append(news)
        scheduler.announce(news.game_id, news.state)

    app = GameApplication(InMemoryEventStore(), publish=announce, clock=lambda: now[0])
    _, state = await app.start_game(NewGame(players=3, game_id="g", seats=BOTS))
    assert heard[-1].bot_waited_ms is None
    now[0] += 0.25  # the bot thinks
    await submit(app, next(t for t in launched if t.version == state.version))
    assert heard[-1].bot_waited_ms == 250
