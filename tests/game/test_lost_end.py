"""A game's end that its replica never announced (it died right after the append) is announced
by another replica's turn-timer sweeper: the result reaches the stats and every person their
GameOver, once.

The dead replica is a bare GameApplication on the shared Redis that announces nothing; the other
is a game service started as `verrater serve` starts it (services/bootstrap.py), on real time.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable

from services.bootstrap import start_backend
from services.config import Config
from services.engine import Phase, SeatAssignment, legal_commands, to_act
from services.eventstore import RedisEventStore
from services.game.service import GameApplication
from services.game.timers import RedisTurnTimers
from services.game.values import NewGame
from services.notifications import GameOver, RedisNotifications
from services.stats import RedisStats

SECRET = "lost-end-test-secret-at-least-32-bytes-long"
RESEND_S = 0.3
PEOPLE = ("pa", "pb", "pc")


async def eventually(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting until {what}")
        await asyncio.sleep(0.05)


async def test_an_end_never_announced_reaches_the_stats_and_the_players(
    fresh_redis_url: str,
) -> None:
    store = RedisEventStore.from_url(fresh_redis_url)
    timers = RedisTurnTimers.from_url(fresh_redis_url)
    dying = GameApplication(store, timers=timers, bot_recheck_ms=int(RESEND_S * 1000))
    seats = tuple(SeatAssignment(player, player.upper()) for player in PEOPLE)
    game_id, _ = await dying.start_game(NewGame(players=3, game_id="lost-end", seats=seats))
    rng = random.Random(7)
    state = await dying.state(game_id)
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        await dying.submit(game_id, seat, command, expected_version=state.version, command_id="")
        state = await dying.state(game_id)
    await store.close()
    await timers.close()

    stats = RedisStats.from_url(fresh_redis_url)
    notifications = RedisNotifications.from_url(fresh_redis_url)
    config = Config(
        bind="127.0.0.1:0",
        token_secret=SECRET,
        redis_url=fresh_redis_url,
        bots="inprocess",
        bot_resend_seconds=RESEND_S,
    )
    backend = await start_backend(config, frozenset({"game"}))
    try:

        async def recorded() -> bool:
            games = await stats.finished_games("pa")
            return [game.result.game_id for game in games] == [game_id]

        await eventually(recorded, "the stats recorded the game")

        async def told() -> bool:
            return all(
                [
                    [
                        (received.notification.game_id, type(received.notification.kind))
                        for received in await notifications.read(player, "0-0", 100)
                        if isinstance(received.notification.kind, GameOver)
                    ]
                    == [(game_id, GameOver)]
                    for player in PEOPLE
                ]
            )

        await eventually(told, "every person was told the game is over")
        received = await notifications.read("pb", "0-0", 100)
        over = [r.notification.kind for r in received if isinstance(r.notification.kind, GameOver)]
        assert over == [GameOver(1, state.vp[1], over[0].rank, tuple(state.winners))]  # type: ignore[union-attr]
        # Once: the look is not set again, and nothing more is pushed.
        await asyncio.sleep(4 * RESEND_S)
        assert len(await notifications.read("pb", "0-0", 100)) == len(received)
        assert len(await stats.finished_games("pb")) == 1
    finally:
        await backend.stop()
        await stats.close()
        await notifications.close()
