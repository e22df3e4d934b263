"""Pending bot turns are durable state: wake-ups on Redis that any replica acts on.

Two game replicas share one Redis (events and wake-ups). A bot turn whose task was lost is
announced again by the other replica's sweeper, also when the replica that appended the state
died before announcing it; nothing is announced again once the game moved on or ended; after many
games answered across both replicas, nothing is left pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.ai.dispatch import BotScheduler
from services.ai.turns import BotTurn
from services.api.verrater.v1 import view_pb2
from services.codec import view_from_proto
from services.engine import (
    BotLevel,
    GameState,
    Phase,
    PlayerCommand,
    SeatAssignment,
    execute,
    to_act,
    view,
)
from services.eventstore import EventStore, RedisEventStore
from services.game.announcements import (
    AtRest,
    BatchAppended,
    BotsOverdue,
    GameLoaded,
    GameOverLookedAt,
    PersonsTurnLookedAt,
    TurnTimerRanOut,
    WatcherArrived,
)
from services.game.clock import bot_seats_to_act
from services.game.errors import StaleVersion
from services.game.service import GameApplication
from services.game.timers import RedisTurnTimers, TimerSweeper
from services.game.values import NewGame
from services.messagebus import MessageBus
from services.observability import BOT_TASK_SECONDS
from tests.support.waiting import wait_until

T0 = 1_900_000_000.0
RECHECK_MS = 3_000
BOTS = tuple(
    SeatAssignment(f"bot{seat}", f"Bot {seat}", BotLevel.NORMAL.value) for seat in range(4)
)


@dataclass
class Clock:
    now: float = T0

    def __call__(self) -> float:
        return self.now


@dataclass
class Replica:
    """A game replica as bootstrap wires it, with a launcher that keeps what it was given."""

    app: GameApplication
    sweeper: TimerSweeper
    launched: list[BotTurn] = field(default_factory=list)
    #: (game, version) of each state whose persons' notifications the sweeper published again.
    persons_waiting: list[tuple[str, int]] = field(default_factory=list)
    #: (game, version) of each finished game whose end the sweeper announced again.
    ended: list[tuple[str, int]] = field(default_factory=list)


@pytest.fixture
async def replicas(fresh_redis_url: str) -> AsyncIterator[tuple[Replica, Replica, Clock]]:
    clock = Clock()
    parts: list[RedisEventStore | RedisTurnTimers] = []
    made = []
    for _ in range(2):
        store = RedisEventStore.from_url(fresh_redis_url)
        timers = RedisTurnTimers.from_url(fresh_redis_url)
        parts += [store, timers]
        launched: list[BotTurn] = []
        waiting: list[tuple[str, int]] = []
        ended: list[tuple[str, int]] = []
        bus = MessageBus()
        scheduler = BotScheduler(launched.append)

        def announce(news: AtRest, scheduler: BotScheduler = scheduler) -> None:
            scheduler.announce(news.game_id, news.state)

        def stand_in(news: TurnTimerRanOut, scheduler: BotScheduler = scheduler) -> None:
            scheduler.stand_in(news.game_id, news.seat, news.state)

        for announced in (BatchAppended, GameLoaded, WatcherArrived, BotsOverdue):
            bus.on(announced, announce)
        bus.on(TurnTimerRanOut, stand_in)
        bus.on(PersonsTurnLookedAt, lambda news, seen=waiting: seen.append(seen_at(news)))
        bus.on(GameOverLookedAt, lambda news, seen=ended: seen.append(seen_at(news)))
        app = GameApplication(
            store, publish=bus.handle, timers=timers, clock=clock, bot_recheck_ms=RECHECK_MS
        )
        sweeper = TimerSweeper(timers, app.resting, bus.handle, recheck_ms=RECHECK_MS, clock=clock)
        made.append(Replica(app, sweeper, launched, waiting, ended))
    yield made[0], made[1], clock
    for part in parts:
        await part.close()


def seen_at(news: AtRest) -> tuple[str, int]:
    return news.game_id, news.state.version


async def play(replica: Replica, turn: BotTurn) -> None:
    """What a worker does with a turn: decide from the view in it, submit with its id (a view
    made stale by another bot's move at the same version is left: its state's announcement
    has the bot's new turn)."""
    view = view_from_proto(view_pb2.PlayerView.FromString(turn.view))
    command = random.Random(turn.command_id).choice(view.legal)
    with contextlib.suppress(StaleVersion):
        await replica.app.submit(
            turn.game_id,
            turn.seat,
            command,
            expected_version=turn.version,
            command_id=turn.command_id,
        )


def bot_moves_timed() -> float:
    """How many bot moves `verrater_bot_task_seconds` has observed in this process."""
    return sum(
        sample.value
        for metric in BOT_TASK_SECONDS.collect()
        for sample in metric.samples
        if sample.name.endswith("_count")
    )


async def test_a_lost_bot_turn_is_announced_again_by_the_other_replica(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    a, b, clock = replicas
    _, state = await a.app.start_game(NewGame(players=4, game_id="lost", seats=BOTS))
    lost = list(a.launched)  # the tasks a sent went nowhere
    assert lost and all(turn.version == state.version for turn in lost)
    clock.now += RECHECK_MS / 1000 - 0.001
    assert await b.sweeper.sweep() == 0
    clock.now += 0.001
    assert await b.sweeper.sweep() == 1
    # (b loads the game cold, which announces its state as well: repeats are harmless)
    again = b.launched
    assert {(t.seat, t.version, t.view) for t in again} == {
        (t.seat, t.version, t.view) for t in lost
    }
    # Unanswered still: looked at again after as long as it has waited (doubling).
    clock.now += RECHECK_MS / 1000
    assert await a.sweeper.sweep() == 1
    assert {(t.seat, t.version) for t in a.launched[len(lost) :]} == {
        (t.seat, t.version) for t in lost
    }
    clock.now += RECHECK_MS / 1000
    assert await b.sweeper.sweep() == 0
    # Once answered, nothing more is announced for that version.
    await play(b, again[0])
    seen_a, seen_b = len(a.launched), len(b.launched)
    clock.now += 60
    await a.sweeper.sweep()
    await b.sweeper.sweep()
    later = a.launched[seen_a:] + b.launched[seen_b:]
    assert all(turn.version > state.version for turn in later)


async def test_many_games_answered_across_two_replicas_leave_nothing_pending(
    replicas: tuple[Replica, Replica, Clock], fresh_redis_url: str
) -> None:
    a, b, clock = replicas
    games = 12
    for number in range(games):
        await (a if number % 2 else b).app.start_game(
            NewGame(players=3, game_id=f"g{number}", seats=BOTS[:3])
        )
    # Every turn a replica announces is answered through the other one, as round robin does.
    finished = 0
    while a.launched or b.launched:
        for mine, other in ((a, b), (b, a)):
            turns, mine.launched[:] = list(mine.launched), []
            for turn in turns:
                clock.now += 0.01
                await play(other, turn)
        finished = sum(
            [(await a.app.state(f"g{n}")).phase is Phase.GAME_OVER for n in range(games)]
        )
    assert finished == games
    # Each game's end is looked at once, by one replica or the other; then nothing is left.
    clock.now += RECHECK_MS / 1000
    assert await a.sweeper.sweep() + await b.sweeper.sweep() == games
    finals = {(f"g{n}", (await a.app.state(f"g{n}")).version) for n in range(games)}
    assert sorted(a.ended + b.ended) == sorted(finals)
    client = aioredis.Redis.from_url(fresh_redis_url)
    try:
        assert await client.zcard("verrater:{timers}:wake") == 0
        assert await client.hlen("verrater:{timers}:version") == 0
    finally:
        await client.aclose()
    clock.now += 3600
    assert await a.sweeper.sweep() == 0
    assert await b.sweeper.sweep() == 0
    assert a.launched == b.launched == []
    assert len(a.ended + b.ended) == games


async def test_a_move_answered_elsewhere_is_never_sent_again(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    a, b, clock = replicas
    await a.app.start_game(NewGame(players=3, game_id="moved", seats=BOTS[:3]))
    timed = bot_moves_timed()
    clock.now += 0.25  # the bot thinks
    for turn in list(a.launched):
        await play(b, turn)
    # The replica that appends a bot's move times it from the state that awaited it.
    assert bot_moves_timed() == timed + 1
    answered = {t.version for t in a.launched}
    a.launched.clear()
    b.launched.clear()
    for _ in range(5):
        clock.now += 60
        await a.sweeper.sweep()
        await b.sweeper.sweep()
    assert not answered & {t.version for t in a.launched + b.launched}


class _Killed(BaseException):
    """The replica's process dies here (kill -9): nothing after this point runs."""


class DiesAfterAppend:
    """A replica's event store whose process dies the moment its next append has landed: the
    replica never announces the state it appended, nor does anything else after the append."""

    def __init__(self, store: EventStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def append(self, game_id: str, expected_version: int, payloads: Sequence[bytes]) -> Any:
        await self._store.append(game_id, expected_version, payloads)
        raise _Killed


async def until_the_person_hands_to_bots(
    replica: Replica, clock: Clock, game_id: str
) -> tuple[GameState, PlayerCommand]:
    """Start a game of a person (seat 0) and bots on `replica`, and play it until only the
    person must act, with a move that hands the turn to bots: that state and that move."""
    seats = (SeatAssignment("p0", "Person"), *BOTS[1:])
    await replica.app.start_game(NewGame(players=4, game_id=game_id, seats=seats))
    while True:
        clock.now += 0.01
        state = await replica.app.state(game_id)
        assert state.phase is not Phase.GAME_OVER
        if to_act(state) == (0,):
            legal = view(state, 0).legal
            handing = [c for c in legal if bot_seats_to_act(execute(state, c)[1])]
            if handing:
                return state, handing[0]
            await replica.app.submit(
                game_id, 0, legal[0], expected_version=state.version, command_id=""
            )
            continue
        due = [
            t for t in replica.launched if t.version == state.version and t.seat in to_act(state)
        ]
        await play(replica, due[0])


async def test_a_replica_that_dies_right_after_appending_a_persons_move_leaves_the_bots_a_wake_up(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    a, b, clock = replicas
    # Only the person acts (no wake-up is due: nobody waits on a person without a turn timer).
    state, command = await until_the_person_hands_to_bots(a, clock, "dies")
    # The person's move lands, and a dies before it announces the bots' turns.
    a.app.store = DiesAfterAppend(a.app.store)  # type: ignore[assignment]
    with pytest.raises(_Killed):
        await a.app.submit(
            "dies", 0, command, expected_version=state.version, command_id="the-last-move"
        )
    announced = len(b.launched)
    clock.now += RECHECK_MS / 1000
    assert await b.sweeper.sweep() == 1  # the wake-up a set before its append
    after = await b.app.state("dies")
    assert after.version > state.version and bot_seats_to_act(after)
    assert {(turn.seat, turn.version) for turn in b.launched[announced:]} >= {
        (seat, after.version) for seat in bot_seats_to_act(after)
    }


async def test_a_replica_that_dies_right_after_appending_a_bots_move_leaves_the_person_a_look(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    """The person's "your turn" was never published (the replica died first): the other
    replica's sweeper publishes that state's notifications again, once."""
    a, b, clock = replicas
    seats = (SeatAssignment("p0", "Person"), *BOTS[1:])
    await a.app.start_game(NewGame(players=4, game_id="hands-over", seats=seats))
    # Play (through a) until a bot's move would hand the turn to the person alone.
    moves = 0
    while True:
        clock.now += 0.01
        state = await a.app.state("hands-over")
        assert state.phase is not Phase.GAME_OVER
        seat = to_act(state)[0]
        legal = view(state, seat).legal
        if seat != 0:
            handing = [c for c in legal if to_act(execute(state, c)[1]) == (0,)]
            if handing:
                command = handing[0]
                break
        moves += 1
        await a.app.submit(
            "hands-over", seat, legal[0], expected_version=state.version, command_id=f"m{moves}"
        )
    a.app.store = DiesAfterAppend(a.app.store)  # type: ignore[assignment]
    with pytest.raises(_Killed):
        await a.app.submit(
            "hands-over", seat, command, expected_version=state.version, command_id="handing"
        )
    after = await b.app.state("hands-over")
    assert to_act(after) == (0,)
    clock.now += RECHECK_MS / 1000
    assert await b.sweeper.sweep() == 1  # the look a set before its append
    assert b.persons_waiting == [("hands-over", after.version)]
    clock.now += 100 * RECHECK_MS / 1000
    assert await b.sweeper.sweep() == 0  # once: nothing is due any more
    assert b.persons_waiting == [("hands-over", after.version)]


async def test_a_replica_that_dies_right_after_appending_the_end_leaves_it_a_look(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    """The game's end was never announced (the replica died first): no GameOver pushed, no
    result in the stats. The other replica's sweeper announces the end, once."""
    a, b, clock = replicas
    await a.app.start_game(NewGame(players=3, game_id="ends", seats=BOTS[:3]))
    # Play (through a) until the next move ends the game.
    while True:
        clock.now += 0.01
        state = await a.app.state("ends")
        seat = to_act(state)[0]
        legal = view(state, seat).legal
        ending = [c for c in legal if execute(state, c)[1].phase is Phase.GAME_OVER]
        if ending:
            break
        await a.app.submit(
            "ends", seat, legal[0], expected_version=state.version, command_id=f"v{state.version}"
        )
    a.app.store = DiesAfterAppend(a.app.store)  # type: ignore[assignment]
    with pytest.raises(_Killed):
        await a.app.submit("ends", seat, ending[0], expected_version=state.version, command_id="")
    after = await b.app.state("ends")
    assert after.phase is Phase.GAME_OVER
    clock.now += RECHECK_MS / 1000 - 0.1
    await b.sweeper.sweep()
    assert b.ended == []  # not before its time
    clock.now += 0.1
    assert await b.sweeper.sweep() == 1  # the look a set before its append
    assert b.ended == [("ends", after.version)]
    clock.now += 100 * RECHECK_MS / 1000
    assert await b.sweeper.sweep() == 0  # once: nothing is due any more
    assert b.ended == [("ends", after.version)] and a.ended == []


async def test_a_watcher_arriving_at_another_replica_has_an_unannounced_bot_turn_announced(
    replicas: tuple[Replica, Replica, Clock],
) -> None:
    """The person's app reconnects to b after a died between its append and its announcement:
    b, which already held the game, announces the bots' turns at once (not after the resend
    time), once however many watchers arrive."""
    a, b, clock = replicas
    state, command = await until_the_person_hands_to_bots(a, clock, "reconnects")
    await b.app.state("reconnects")  # b holds the game (it loaded it: announced there too)
    a.app.store = DiesAfterAppend(a.app.store)  # type: ignore[assignment]
    with pytest.raises(_Killed):
        await a.app.submit(
            "reconnects", 0, command, expected_version=state.version, command_id="the-move"
        )
    after = await b.app.state("reconnects")  # b follows the store: nothing announced
    owed = {(seat, after.version) for seat in bot_seats_to_act(after)}
    assert owed and not owed & {(turn.seat, turn.version) for turn in b.launched}
    announced = len(b.launched)
    watchers = []
    for _ in range(3):
        updates = b.app.updates("reconnects", 0, after.version)
        watchers.append((updates, asyncio.create_task(anext(updates))))
    # Each watcher has arrived (counted in once past the point where it may announce).
    await wait_until(lambda: b.app._cache["reconnects"].watchers == 3, "all three watch")
    assert {(turn.seat, turn.version) for turn in b.launched[announced:]} == owed
    assert len(b.launched) == announced + len(owed)  # once, not per watcher
    for updates, waiting in watchers:
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        await updates.aclose()
