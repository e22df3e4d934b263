"""A game whose store failed mid-command goes on by itself once the store answers: the replica
that met the failure loads it again and announces its state, without waiting for a wake-up
(which would come seconds to a minute later)."""

from __future__ import annotations

import random

import pytest

from services.engine import SeatAssignment, legal_commands, to_act
from services.eventstore import RedisEventStore, StoreUnavailable
from services.game.announcements import Announcement, GameLoaded
from services.game.service import GameApplication
from services.game.values import NewGame
from tests.support.redis_server import RedisServer
from tests.support.waiting import wait_until

SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))


async def test_a_game_whose_store_failed_is_announced_again_once_it_answers(
    persistent_redis: RedisServer,
) -> None:
    store = RedisEventStore.from_url(persistent_redis.url, command_timeout=0.3)
    heard: list[Announcement] = []
    app = GameApplication(store, publish=heard.append)
    try:
        game_id, _ = await app.start_game(NewGame(players=4, game_id="resumed", seats=SEATS))
        state = await app.state(game_id)
        seat = to_act(state)[0]
        command = random.Random(1).choice(legal_commands(state, seat))
        persistent_redis.pause()
        try:
            with pytest.raises(StoreUnavailable):
                await app.submit(
                    game_id, seat, command, expected_version=state.version, command_id="c1"
                )
            heard.clear()
        finally:
            persistent_redis.resume()
        await wait_until(
            lambda: any(isinstance(each, GameLoaded) and each.game_id == game_id for each in heard),
            "the game announced again once its store answered",
        )
        # Whether the append reached Redis or not, the retry applies the command once.
        assert heard[-1].state.version in (state.version, state.version + 1)
        retried = await app.submit(
            game_id, seat, command, expected_version=state.version, command_id="c1"
        )
        assert retried.version == state.version + 1
        assert len(await store.read(game_id)) == state.version + len(retried.events)
    finally:
        await app.close()
        await store.close()
