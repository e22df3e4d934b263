"""Turn timers: a timed decision warns its player, then a bot decides at the deadline; the
timers are durable (a correspondence game's survives a restart) and any replica may fire one.

The sweeps are driven by hand on an injected clock: no test waits for time to pass.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from services.codec import decode_record
from services.engine import (
    MAX_TURN_SECONDS,
    BotLevel,
    Phase,
    SeatAssignment,
    legal_commands,
    to_act,
)
from services.errors import Reason
from services.eventstore import EventStore, InMemoryEventStore, RedisEventStore
from services.game.announcements import (
    GameOverLookedAt,
    PersonsTurnLookedAt,
    TurnTimerRanOut,
    TurnTimerRunningOut,
)
from services.game.clock import CLOCK_TOLERANCE_MS
from services.game.errors import PersonsSeat, TurnTimerRunning
from services.game.service import GameApplication
from services.game.timers import InMemoryTurnTimers, RedisTurnTimers, TimerSweeper, TurnTimers
from services.game.values import CommandResult, NewGame
from services.messagebus import MessageBus

T0 = 1_900_000_000.0  # seconds; the injected clock starts here
SEATS = tuple(SeatAssignment(f"p{seat}", f"Player {seat}") for seat in range(4))


@dataclass
class Clock:
    now: float = T0

    def __call__(self) -> float:
        return self.now

    def at_ms(self, unix_ms: int) -> None:
        self.now = unix_ms / 1000


@dataclass
class Calls:
    """The stand-ins and warnings a sweeper announced."""

    expired: list[tuple[str, int, int]] = field(default_factory=list)
    warned: list[tuple[str, int, int, int]] = field(default_factory=list)

    def on_expired(self, news: TurnTimerRanOut) -> None:
        self.expired.append((news.game_id, news.seat, news.version))

    def on_warning(self, news: TurnTimerRunningOut) -> None:
        self.warned.append((news.game_id, news.seat, news.state.version, news.deadline_ms))

    def bus(self) -> MessageBus:
        bus = MessageBus()
        bus.on(TurnTimerRanOut, self.on_expired)
        bus.on(TurnTimerRunningOut, self.on_warning)
        return bus


@pytest.fixture(params=["memory", "redis", "cluster"])
async def parts(request: pytest.FixtureRequest) -> AsyncIterator[tuple[EventStore, TurnTimers]]:
    if request.param == "memory":
        yield InMemoryEventStore(), InMemoryTurnTimers()
        return
    url = request.getfixturevalue(
        "fresh_cluster_url" if request.param == "cluster" else "fresh_redis_url"
    )
    store, timers = RedisEventStore.from_url(url), RedisTurnTimers.from_url(url)
    yield store, timers
    await store.close()
    await timers.close()


def _sweeper(app: GameApplication, timers: TurnTimers, calls: Calls, clock: Clock) -> TimerSweeper:
    return TimerSweeper(timers, app.resting, calls.bus().handle, clock=clock, lease_ms=30_000)


async def _new_game(app: GameApplication, turn_seconds: int) -> str:
    game_id, _ = await app.start_game(
        NewGame(players=4, game_id="timed", seats=SEATS, turn_seconds=turn_seconds)
    )
    return game_id


async def test_a_timed_decision_warns_then_a_bot_decides_at_the_deadline(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    store, timers = parts
    clock, calls = Clock(), Calls()
    app = GameApplication(store, timers=timers, clock=clock)
    sweeper = _sweeper(app, timers, calls, clock)
    game_id = await _new_game(app, 60)
    state = await app.state(game_id)
    seat = to_act(state)[0]
    deadline = int(T0 * 1000) + 60_000
    warning = deadline - 12_000  # a fifth of the turn before
    seen = await app.view(game_id, seat)
    assert seen.deadline_ms == deadline
    assert await timers.next_wake_ms() == warning
    clock.at_ms(warning - 1)
    assert await sweeper.sweep() == 0
    clock.at_ms(warning)
    assert await sweeper.sweep() == 1
    assert calls.warned == [(game_id, seat, state.version, deadline)]
    assert calls.expired == []
    assert await timers.next_wake_ms() == deadline
    clock.at_ms(deadline)
    assert await sweeper.sweep() == 1
    assert calls.expired == [(game_id, seat, state.version)]
    # Held for the lease: if the stand-in's decision never comes, the timer fires again.
    assert await timers.next_wake_ms() == deadline + 30_000


async def test_a_decision_in_time_restarts_the_clock_for_the_next(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    store, timers = parts
    clock, calls = Clock(), Calls()
    app = GameApplication(store, timers=timers, clock=clock)
    sweeper = _sweeper(app, timers, calls, clock)
    game_id = await _new_game(app, 60)
    state = await app.state(game_id)
    seat = to_act(state)[0]
    clock.now = T0 + 30
    await app.submit(
        game_id,
        seat,
        random.Random(1).choice(legal_commands(state, seat)),
        expected_version=state.version,
        command_id="in-time",
    )
    after = await app.state(game_id)
    new_deadline = int((T0 + 30) * 1000) + 60_000
    assert (await app.view(game_id, None)).deadline_ms == new_deadline
    assert await timers.next_wake_ms() == new_deadline - 12_000
    clock.at_ms(int(T0 * 1000) + 60_000)  # the first decision's deadline: nothing is due
    assert await sweeper.sweep() == 0
    assert calls.expired == []
    assert after.version > state.version


async def test_an_older_state_never_overrides_a_newer_timer(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    _, timers = parts
    await timers.set("g", 7, 5_000)
    await timers.set("g", 6, 1_000)  # a slower replica's write of an older state
    assert await timers.next_wake_ms() == 5_000
    await timers.set("g", 8, None)
    assert await timers.next_wake_ms() is None


async def test_a_claimed_timer_is_held_for_its_lease_then_due_again(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    _, timers = parts
    await timers.set("g", 1, 1_000)
    assert (await timers.claim_due(1_000, 500, 10)).games == ["g"]
    assert (await timers.claim_due(1_499, 500, 10)).games == []  # another replica finds it held
    assert (await timers.claim_due(1_500, 500, 10)).games == ["g"]


async def test_a_game_without_people_to_wait_for_has_no_timer(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    store, timers = parts
    app = GameApplication(store, timers=timers, clock=Clock())
    levels = [BotLevel.EASY, BotLevel.NORMAL, BotLevel.HARD, BotLevel.EASY]
    bots = tuple(
        SeatAssignment(f"b{seat}", f"Bot {seat}", level) for seat, level in enumerate(levels)
    )
    await app.start_game(NewGame(players=4, game_id="bots", seats=bots, turn_seconds=60))
    assert await timers.next_wake_ms() is None


class CountingTimers(InMemoryTurnTimers):
    """In-memory timers that count the writes a replica makes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        self.writes += 1
        await super().set(game_id, version, wake_ms)


async def test_an_untimed_game_writes_no_timer_per_decision() -> None:
    timers = CountingTimers()
    app = GameApplication(InMemoryEventStore(), timers=timers, clock=Clock())
    game_id, _ = await app.start_game(NewGame(players=4, game_id="untimed", seats=SEATS))
    rng = random.Random(3)
    for decision in range(20):
        state = await app.state(game_id)
        seat = to_act(state)[0]
        await app.submit(
            game_id,
            seat,
            rng.choice(legal_commands(state, seat)),
            expected_version=state.version,
            command_id=f"c{decision}",
        )
    assert timers.writes == 0  # a new game has no wake-up, and no state of this one needs any
    assert await timers.next_wake_ms() is None


async def test_a_wake_up_left_by_another_replica_fires_once_and_clears_itself(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    store, timers = parts
    clock, calls = Clock(), Calls()
    app = GameApplication(store, timers=timers, clock=clock)
    game_id, _ = await app.start_game(NewGame(players=4, game_id="untimed", seats=SEATS))
    state = await app.state(game_id)
    await timers.set(game_id, state.version, int(T0 * 1000))  # a stale wake-up
    assert await _sweeper(app, timers, calls, clock).sweep() == 1
    assert (calls.expired, calls.warned) == ([], [])
    assert await timers.next_wake_ms() is None


async def test_a_correspondence_game_survives_a_restart_and_times_out_days_later(
    fresh_redis_url: str,
) -> None:
    clock, calls = Clock(), Calls()
    store, timers = (
        RedisEventStore.from_url(fresh_redis_url),
        RedisTurnTimers.from_url(fresh_redis_url),
    )
    first = GameApplication(store, timers=timers, clock=clock)
    game_id = await _new_game(first, MAX_TURN_SECONDS)
    state = await first.state(game_id)
    await store.close()
    await timers.close()
    # A new process: nothing of the first but what Redis holds.
    store, timers = (
        RedisEventStore.from_url(fresh_redis_url),
        RedisTurnTimers.from_url(fresh_redis_url),
    )
    try:
        second = GameApplication(store, timers=timers, clock=clock)
        sweeper = _sweeper(second, timers, calls, clock)
        deadline = int(T0 * 1000) + MAX_TURN_SECONDS * 1000
        clock.at_ms(deadline - 61_000)
        assert await sweeper.sweep() == 0
        clock.at_ms(deadline - 60_000)  # a day-long turn warns a minute before, not hours
        assert await sweeper.sweep() == 1
        assert [call[1:] for call in calls.warned] == [(to_act(state)[0], state.version, deadline)]
        clock.at_ms(deadline)
        assert await sweeper.sweep() == 1
        assert calls.expired == [(game_id, to_act(state)[0], state.version)]
    finally:
        await store.close()
        await timers.close()


async def test_a_service_stands_in_for_a_person_only_once_their_timer_has_run_out(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    """What a service (the AI's workers) sends for a person's seat: refused as a bot's move,
    refused as a stand-in while the timer runs, taken as a stand-in once it has run out. So
    whoever can write to the workers' broker cannot play a person's hand."""
    store, timers = parts
    clock = Clock()
    app = GameApplication(store, timers=timers, clock=clock)
    game_id = await _new_game(app, 60)
    state = await app.state(game_id)
    seat = to_act(state)[0]
    command = random.Random(2).choice(legal_commands(state, seat))
    deadline = int(T0 * 1000) + 60_000

    async def by_service(command_id: str, turn_timer_expired: bool) -> object:
        return await app.submit(
            game_id,
            seat,
            command,
            expected_version=state.version,
            command_id=command_id,
            turn_timer_expired=turn_timer_expired,
            by_service=True,
        )

    with pytest.raises(PersonsSeat) as as_a_bot:
        await by_service("bot-move", False)
    assert as_a_bot.value.reason is Reason.PERSONS_SEAT
    clock.at_ms(deadline - CLOCK_TOLERANCE_MS - 1)
    with pytest.raises(TurnTimerRunning, match=f"runs until {deadline}"):
        await by_service("too-early", True)
    assert await store.version(game_id) == state.version, "nothing was appended"
    clock.at_ms(deadline - CLOCK_TOLERANCE_MS)  # a replica whose clock lags a little
    result = await by_service("stand-in", True)
    assert isinstance(result, CommandResult) and not result.replayed
    stored = await store.read(game_id, after_version=state.version)
    assert decode_record(stored[0].payload).turn_timer_expired


async def test_a_stand_in_for_a_seat_without_a_timer_is_refused() -> None:
    clock = Clock()
    app = GameApplication(InMemoryEventStore(), clock=clock)
    game_id = await _new_game(app, 0)
    state = await app.state(game_id)
    seat = to_act(state)[0]
    clock.now = T0 + MAX_TURN_SECONDS
    with pytest.raises(TurnTimerRunning, match="no turn timer is running"):
        await app.submit(
            game_id,
            seat,
            legal_commands(state, seat)[0],
            expected_version=state.version,
            command_id="stand-in",
            turn_timer_expired=True,
            by_service=True,
        )
    assert (await app.state(game_id)).version == state.version


RECHECK_MS = 3_000


@dataclass
class Waiting:
    """What a sweeper announces of persons still owing their decision."""

    seen: list[tuple[str, int, int | None]] = field(default_factory=list)

    def __call__(self, news: PersonsTurnLookedAt) -> None:
        self.seen.append((news.game_id, news.state.version, news.deadline_ms))


def _rechecking(
    app: GameApplication,
    timers: TurnTimers,
    calls: Calls,
    clock: Clock,
    waiting: Waiting,
    *,
    on_game_over: Callable[[GameOverLookedAt], None] | None = None,
) -> TimerSweeper:
    bus = calls.bus()
    bus.on(PersonsTurnLookedAt, waiting)
    if on_game_over is not None:
        bus.on(GameOverLookedAt, on_game_over)
    return TimerSweeper(
        timers, app.resting, bus.handle, recheck_ms=RECHECK_MS, clock=clock, lease_ms=30_000
    )


async def test_a_persons_turn_is_looked_at_once_after_the_recheck(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    """So that a "your turn" lost with a replica that died after its append is sent after all
    (the notifications are deduplicated: when nothing was lost, nothing new goes out)."""
    store, timers = parts
    clock, calls, waiting = Clock(), Calls(), Waiting()
    app = GameApplication(store, timers=timers, clock=clock, bot_recheck_ms=RECHECK_MS)
    sweeper = _rechecking(app, timers, calls, clock, waiting)
    game_id, _ = await app.start_game(NewGame(players=4, game_id="untimed", seats=SEATS))
    state = await app.state(game_id)
    began = int(T0 * 1000)
    assert await timers.next_wake_ms() == began + RECHECK_MS
    clock.at_ms(began + RECHECK_MS - 1)
    assert await sweeper.sweep() == 0
    clock.at_ms(began + RECHECK_MS)
    assert await sweeper.sweep() == 1
    assert waiting.seen == [(game_id, state.version, None)]
    assert await timers.next_wake_ms() is None  # once: the person may think for days
    clock.at_ms(began + 100 * RECHECK_MS)
    assert await sweeper.sweep() == 0
    # A decision in time: the next person's turn gets its own look, the last one's is gone.
    seat = to_act(state)[0]
    moved = clock.now
    await app.submit(
        game_id,
        seat,
        legal_commands(state, seat)[0],
        expected_version=state.version,
        command_id="in-time",
    )
    after = await app.state(game_id)
    assert await timers.next_wake_ms() == int(moved * 1000) + RECHECK_MS
    clock.now = moved + RECHECK_MS / 1000
    assert await sweeper.sweep() == 1
    assert waiting.seen[1:] == [(game_id, after.version, None)]
    assert (calls.expired, calls.warned) == ([], [])


async def test_a_timed_persons_turn_is_looked_at_before_its_warning(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    store, timers = parts
    clock, calls, waiting = Clock(), Calls(), Waiting()
    app = GameApplication(store, timers=timers, clock=clock, bot_recheck_ms=RECHECK_MS)
    sweeper = _rechecking(app, timers, calls, clock, waiting)
    game_id = await _new_game(app, 60)
    state = await app.state(game_id)
    deadline = int(T0 * 1000) + 60_000
    assert await timers.next_wake_ms() == int(T0 * 1000) + RECHECK_MS
    clock.at_ms(int(T0 * 1000) + RECHECK_MS)
    assert await sweeper.sweep() == 1
    assert waiting.seen == [(game_id, state.version, deadline)]
    assert await timers.next_wake_ms() == deadline - 12_000  # then the warning, as before
    clock.at_ms(deadline - 12_000)
    assert await sweeper.sweep() == 1
    assert len(waiting.seen) == 1 and len(calls.warned) == 1


async def test_a_games_end_is_looked_at_once_after_the_recheck(
    parts: tuple[EventStore, TurnTimers],
) -> None:
    """So that the end's announcement (its result in the stats, the players' GameOver), lost
    with a replica that died right after appending it, is made after all."""
    store, timers = parts
    clock, calls, waiting = Clock(), Calls(), Waiting()
    ended: list[tuple[str, int]] = []
    app = GameApplication(store, timers=timers, clock=clock, bot_recheck_ms=RECHECK_MS)
    sweeper = _rechecking(
        app,
        timers,
        calls,
        clock,
        waiting,
        on_game_over=lambda news: ended.append((news.game_id, news.state.version)),
    )
    game_id, _ = await app.start_game(NewGame(players=4, game_id="to-the-end", seats=SEATS))
    rng = random.Random(4)
    state = await app.state(game_id)
    while state.phase is not Phase.GAME_OVER:
        clock.now += 0.5
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        await app.submit(game_id, seat, command, expected_version=state.version, command_id="")
        state = await app.state(game_id)
    end = int(clock.now * 1000)
    # The last person's look may stand for it (looking early is harmless): the sweep then
    # finds the look ahead and keeps it.
    assert end < (await timers.next_wake_ms() or 0) <= end + RECHECK_MS
    clock.at_ms(end + RECHECK_MS - 1)
    await sweeper.sweep()
    assert ended == []
    assert await timers.next_wake_ms() == end + RECHECK_MS
    clock.at_ms(end + RECHECK_MS)
    assert await sweeper.sweep() == 1
    assert ended == [(game_id, state.version)]
    assert await timers.next_wake_ms() is None
    # A replica loading the finished game cold later sets no look: the end is long past.
    later = GameApplication(store, timers=timers, clock=clock, bot_recheck_ms=RECHECK_MS)
    clock.at_ms(end + 100 * RECHECK_MS)
    assert (await later.state(game_id)).phase is Phase.GAME_OVER
    assert await timers.next_wake_ms() is None
    assert await sweeper.sweep() == 0
    assert ended == [(game_id, state.version)]
