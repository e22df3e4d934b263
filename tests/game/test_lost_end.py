"""What a replica never announced because it died right after the append is announced by
another replica's turn-timer sweeper, once: a game's end (the result reaches the stats and every
person their GameOver), and a bot standing in for a person whose turn timer ran out (that person
hears BotTookOver).

The dead replica is a bare GameApplication on the shared Redis that announces nothing; the other
is a game service started as `verrater serve` starts it (services/bootstrap.py).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable

import pytest

from services.bootstrap import start_backend
from services.config import Config
from services.engine import Phase, SeatAssignment, legal_commands, to_act
from services.eventstore import RedisEventStore, redis_client
from services.game.clock import deadline_ms
from services.game.service import GameApplication
from services.game.timers import RedisTurnTimers
from services.game.values import NewGame
from services.notifications import (
    BotTookOver,
    GameOver,
    RedisNotifications,
    TimerRunningOut,
    YourTurn,
)
from services.stats import RedisStats

SECRET = "lost-end-test-secret-at-least-32-bytes-long"
RESEND_S = 0.3
PEOPLE = ("pa", "pb", "pc")


def served(redis_url: str, resend_s: float) -> Config:
    """The surviving replica: a game service as `verrater serve` starts it, on `redis_url`."""
    return Config(
        bind="127.0.0.1:0",
        token_secret=SECRET,
        redis_url=redis_url,
        bots="inprocess",
        bot_resend_seconds=resend_s,
    )


async def eventually(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting until {what}")
        await asyncio.sleep(0.05)


async def wake_up(redis_url: str, game_id: str) -> int | None:
    """When the turn timers will look at the game next (Unix ms); None: never."""
    timers = RedisTurnTimers.from_url(redis_url)
    wake_key, _ = timers.keys_of(game_id)  # its bucket's wake times: game id -> Unix ms
    try:
        async with redis_client(redis_url) as client:
            wake = await client.zscore(wake_key, game_id)
    finally:
        await timers.close()
    return None if wake is None else int(wake)


async def no_wake_up(redis_url: str, game_id: str) -> bool:
    return await wake_up(redis_url, game_id) is None


async def has_wake_up(redis_url: str, game_id: str, at_ms: int) -> bool:
    return await wake_up(redis_url, game_id) == at_ms


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
    backend = await start_backend(served(fresh_redis_url, RESEND_S), frozenset({"game"}))
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
        # Once: the look done, the game holds no wake-up (nothing will look at it again), and
        # what the look sent is all out.
        await eventually(lambda: no_wake_up(fresh_redis_url, game_id), "the look is done")
        assert backend.publisher is not None
        await backend.publisher.drain()
        assert len(await notifications.read("pb", "0-0", 100)) == len(received)
        assert len(await stats.finished_games("pb")) == 1
    finally:
        await backend.stop()
        await stats.close()
        await notifications.close()


@pytest.mark.parametrize(
    ("turn_seconds", "resend_s", "into_s"),
    [
        (60, RESEND_S, 2 * RESEND_S),  # the look at the next person's turn (+0.3 s) comes first
        (30, 25.0, 24.2),  # its warning (+24 s) comes before the look would (+25 s)
    ],
    ids=["look", "warning"],
)
async def test_a_stand_in_never_announced_tells_its_person_a_bot_took_over(
    fresh_redis_url: str, turn_seconds: int, resend_s: float, into_s: float
) -> None:
    """The other replica holds the game already (it created it), so nothing loads it cold: only
    the sweeper's next look at the person's turn that followed, or its warning when that comes
    first, can tell of the stand-in. `into_s`: how far into that turn the served clock jumps."""
    ahead_s = [0.0]  # how far the served replica's clock runs ahead of real time
    frozen: list[float] = []  # the served replica's time, once it stops

    def clock() -> float:
        return frozen[0] if frozen else time.time() + ahead_s[0]

    notifications = RedisNotifications.from_url(fresh_redis_url)
    backend = await start_backend(
        served(fresh_redis_url, resend_s), frozenset({"game"}), clock=clock
    )
    store = RedisEventStore.from_url(fresh_redis_url)
    timers = RedisTurnTimers.from_url(fresh_redis_url)
    try:
        assert backend.game is not None
        seats = tuple(SeatAssignment(player, player.upper()) for player in PEOPLE)
        game = NewGame(players=3, game_id="stood-in", seats=seats, turn_seconds=turn_seconds)
        game_id, state = await backend.game.start_game(game)
        deadline = deadline_ms(state, (await backend.game.resting(game_id))[1])
        assert deadline is not None
        # A replica whose clock is past the deadline stands a bot in for the first person to
        # act, and dies before announcing it.
        dying = GameApplication(
            store,
            timers=timers,
            bot_recheck_ms=int(resend_s * 1000),
            clock=lambda: deadline / 1000 + 1,
        )
        seat = to_act(state)[0]
        command = random.Random(3).choice(legal_commands(state, seat))
        result = await dying.submit(
            game_id,
            seat,
            command,
            expected_version=state.version,
            command_id=f"bot:{game_id}:{seat}",
            turn_timer_expired=True,
            by_service=True,
        )
        after = result.state
        assert to_act(after) and all(acting in range(3) for acting in to_act(after))
        ahead_s[0] = deadline / 1000 + 1 - time.time() + into_s

        async def took_over() -> list[BotTookOver]:
            received = await notifications.read(PEOPLE[seat], "0-0", 100)
            kinds = [r.notification.kind for r in received]
            return [kind for kind in kinds if isinstance(kind, BotTookOver)]

        async def told() -> bool:
            return bool(await took_over())

        await eventually(told, f"{PEOPLE[seat]} heard that a bot took over")
        assert await took_over() == [BotTookOver(seat, after.version)]
        for acting in to_act(after):  # and the YourTurn nobody pushed
            received = await notifications.read(PEOPLE[acting], "0-0", 100)
            turns = [r.notification.kind for r in received]
            assert [(t.seat, t.version) for t in turns if isinstance(t, YourTurn)][-1] == (
                acting,
                after.version,
            )
        # Once: the sweeper looks at the game again late in the turn, past its warning and
        # its look, which both repeat the stand-in's notifications (deduplicated). Its clock
        # stops there, before the deadline; the next wake-up is the deadline once it is done.
        rest_since = (await backend.game.resting(game_id))[1]
        next_deadline = deadline_ms(after, rest_since)
        assert next_deadline is not None
        frozen.append(next_deadline / 1000 - 3)
        await eventually(
            lambda: has_wake_up(fresh_redis_url, game_id, next_deadline),
            "the sweeper looked at the game late in the turn",
        )
        assert backend.publisher is not None
        await backend.publisher.drain()
        for acting in to_act(after):  # warned: the sweeper's warning, and its look, came
            received = await notifications.read(PEOPLE[acting], "0-0", 100)
            warnings = [r.notification.kind for r in received]
            assert [
                w.version for w in warnings if isinstance(w, TimerRunningOut) and w.seat == acting
            ] == [after.version]
        assert await took_over() == [BotTookOver(seat, after.version)]
    finally:
        await backend.stop()
        await store.close()
        await timers.close()
        await notifications.close()
