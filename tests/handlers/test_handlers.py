"""What follows each announcement of the game service (services/handlers.py), with the parts a
game replica is wired with: the bot scheduler (its launcher keeps the turns it is given), the
finished-game feed into the stats in memory, the players' notifications in memory. No gRPC
server: the games are played on the game service in memory, and the announcements are fed to
the bus as the game service and its turn-timer sweeper publish them."""

from __future__ import annotations

import random
import typing
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from services.ai.dispatch import BotScheduler
from services.ai.turns import BotTurn
from services.chat import GameEndings, InMemoryChat
from services.engine import BotLevel, Phase, SeatAssignment, legal_commands, to_act
from services.eventstore import InMemoryEventStore
from services.game.announcements import (
    Announcement,
    BatchAppended,
    BotsOverdue,
    GameLoaded,
    GameOverLookedAt,
    PersonsTurnLookedAt,
    TurnTimerRanOut,
    TurnTimerRunningOut,
    WatcherArrived,
)
from services.game.service import GameApplication
from services.game.timers import InMemoryTurnTimers, TimerSweeper
from services.game.values import NewGame, Resting
from services.handlers import HANDLERS, Followers, message_bus
from services.lobby.model import table_of_game
from services.lobby.progress import InMemoryProgressBoard, summarize
from services.messagebus import MessageBus
from services.notifications import GameNotifier, InMemoryNotifications, Publisher
from services.stats import FinishedGameFeed, InMemoryStats

T0 = 1_900_000_000.0
PEOPLE = tuple(SeatAssignment(f"p{seat}", f"P{seat}") for seat in range(3))
BOTS = tuple(SeatAssignment(f"b{seat}", f"B{seat}", BotLevel.NORMAL) for seat in range(3))


@dataclass
class Clock:
    now: float = T0

    def __call__(self) -> float:
        return self.now


@dataclass
class Replica:
    """A game replica's game service and what follows its announcements, in memory."""

    store: InMemoryEventStore
    notifications: InMemoryNotifications
    publisher: Publisher
    feed: FinishedGameFeed
    stats: InMemoryStats
    clock: Clock = field(default_factory=Clock)
    chat: InMemoryChat = field(default_factory=InMemoryChat)
    endings: GameEndings | None = None
    progress: InMemoryProgressBoard = field(default_factory=InMemoryProgressBoard)
    launched: list[BotTurn] = field(default_factory=list)
    paced: list[float] = field(default_factory=list)

    def bus(self, *, bots: bool = True) -> MessageBus:
        scheduler = BotScheduler(self.launched.append, on_moved=self.paced.append)
        players = GameNotifier(self.publisher, clock=self.clock)
        self.endings = GameEndings(self.chat.game_ended, table_of_game, clock=self.clock)
        return message_bus(
            Followers(players, self.feed, scheduler if bots else None, self.endings, self.progress)
        )

    def game(self) -> GameApplication:
        """A game service that announces nothing: the tests publish what it would."""
        return GameApplication(self.store, clock=self.clock)

    async def told(self, player_id: str) -> list[str]:
        """The kinds of the notifications `player_id` has, oldest first."""
        await self.publisher.drain()
        received = await self.notifications.read(player_id, "0-0", 100)
        return [type(each.notification.kind).__name__ for each in received]

    async def recorded(self, player_id: str) -> list[str]:
        """The games the stats recorded for `player_id`."""
        await self.feed.drain()
        return [game.result.game_id for game in await self.stats.finished_games(player_id)]


@pytest.fixture
async def replica() -> AsyncIterator[Replica]:
    store = InMemoryEventStore()
    stats = InMemoryStats(store)
    notifications = InMemoryNotifications()
    publisher = Publisher(notifications)
    feed = FinishedGameFeed(stats.record_finished)
    yield Replica(store, notifications, publisher, feed, stats)
    await feed.close()
    await publisher.close()
    await notifications.close()


async def _played_to_the_end(app: GameApplication, game_id: str) -> Resting:
    rng = random.Random(9)
    state = await app.state(game_id)
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        command = rng.choice(legal_commands(state, seat))
        await app.submit(game_id, seat, command, expected_version=state.version, command_id="")
        state = await app.state(game_id)
    return await app.resting(game_id)


def _appended(game_id: str, resting: Resting, bot_waited_ms: int | None = None) -> BatchAppended:
    state, _, decision = resting
    return BatchAppended(game_id, state, decision, None, bot_waited_ms)


async def test_a_persons_turn_is_told_to_them_and_to_no_bot(replica: Replica) -> None:
    app = replica.game()
    game_id, _ = await app.start_game(NewGame(players=3, game_id="g", seats=PEOPLE))
    resting = await app.resting(game_id)
    replica.bus().handle(_appended(game_id, resting))
    (seat,) = to_act(resting.state)
    assert await replica.told(PEOPLE[seat].player_id) == ["YourTurn"]
    assert replica.launched == [] and await replica.recorded(PEOPLE[seat].player_id) == []


async def test_a_bots_turn_is_launched_and_a_bots_move_paces_the_launcher(
    replica: Replica,
) -> None:
    app = replica.game()
    game_id, state = await app.start_game(NewGame(players=3, game_id="g", seats=BOTS))
    replica.bus().handle(_appended(game_id, await app.resting(game_id), bot_waited_ms=250))
    assert [(turn.seat, turn.version) for turn in replica.launched] == [
        (seat, state.version) for seat in to_act(state)
    ]
    assert replica.paced == [0.25]


async def test_the_end_reaches_the_stats_and_every_person_once(replica: Replica) -> None:
    app = replica.game()
    game_id, _ = await app.start_game(NewGame(players=3, game_id="g", seats=PEOPLE))
    end = await _played_to_the_end(app, game_id)
    bus = replica.bus()
    bus.handle(_appended(game_id, end))
    bus.handle(GameLoaded(game_id, end.state, end.decision, None))  # another replica's reload
    for person in PEOPLE:
        assert await replica.recorded(person.player_id) == [game_id]
        assert await replica.told(person.player_id) == ["GameOver"]


async def test_the_end_of_a_tables_game_closes_its_chat_later_once(replica: Replica) -> None:
    app = replica.game()
    table_id = "0123456789ab"
    game_id, _ = await app.start_game(NewGame(players=3, game_id=f"g{table_id}", seats=PEOPLE))
    bus = replica.bus()
    bus.handle(_appended(game_id, await app.resting(game_id)))  # running: the chat stays open
    assert replica.endings is not None
    await replica.endings.settled()
    assert await replica.chat.ended_at(table_id) is None
    end = await _played_to_the_end(app, game_id)
    assert end.decision is not None and end.decision.recorded_at_ms
    bus.handle(_appended(game_id, end))
    replica.clock.now += 3600
    bus.handle(GameLoaded(game_id, end.state, end.decision, None))  # told again, an hour later
    await replica.endings.settled()
    assert await replica.chat.ended_at(table_id) == end.decision.recorded_at_ms


async def test_where_a_tables_game_stands_reaches_the_lobbys_board(replica: Replica) -> None:
    app = replica.game()
    game_id, _ = await app.start_game(NewGame(players=3, game_id="g0123456789ab", seats=PEOPLE))
    sandbox, _ = await app.start_game(NewGame(players=3, game_id="sandbox", seats=PEOPLE))
    bus = replica.bus()
    start = await app.resting(game_id)
    bus.handle(_appended(sandbox, await app.resting(sandbox)))  # no table: nobody lists it
    bus.handle(BatchAppended(game_id, start.state, start.decision, 5_000, None))
    end = await _played_to_the_end(app, game_id)
    bus.handle(GameOverLookedAt(game_id, end.state, end.decision, None))
    bus.handle(PersonsTurnLookedAt(game_id, start.state, start.decision, 5_000))  # late: older
    await replica.progress.drain()
    assert await replica.progress.summaries([game_id, sandbox]) == {
        game_id: summarize(end.state, None)
    }
    assert (await replica.progress.summaries([game_id]))[game_id].finished


@pytest.mark.parametrize("announced", [GameLoaded, WatcherArrived])
async def test_an_end_announced_again_later_reaches_the_stats_but_tells_nobody(
    replica: Replica, announced: type[GameLoaded | WatcherArrived]
) -> None:
    app = replica.game()
    game_id, _ = await app.start_game(NewGame(players=3, game_id="g", seats=PEOPLE))
    end = await _played_to_the_end(app, game_id)
    replica.bus().handle(announced(game_id, end.state, end.decision, None))
    assert await replica.recorded(PEOPLE[0].player_id) == [game_id]
    assert await replica.told(PEOPLE[0].player_id) == []


async def test_a_turn_timer_warns_its_person_then_a_bot_stands_in(replica: Replica) -> None:
    app = replica.game()
    game = NewGame(players=3, game_id="g", seats=PEOPLE, turn_seconds=60)
    game_id, state = await app.start_game(game)
    (seat,) = to_act(state)
    deadline = int(T0 * 1000) + 60_000
    bus = replica.bus()
    bus.handle(TurnTimerRunningOut(game_id, seat, state, None, deadline))
    assert await replica.told(PEOPLE[seat].player_id) == ["TimerRunningOut"]
    bus.handle(TurnTimerRanOut(game_id, seat, state))
    (turn,) = replica.launched
    assert (turn.seat, turn.version, turn.turn_timer_expired) == (seat, state.version, True)


async def test_a_warning_after_a_stand_in_repeats_the_bot_took_over_it_owed(
    replica: Replica,
) -> None:
    """No look at the next person's turn comes before its warning on a short turn, so the
    warning tells the stood-in person what the replica that appended may not have."""
    app = replica.game()
    game = NewGame(players=3, game_id="g", seats=PEOPLE, turn_seconds=60)
    game_id, state = await app.start_game(game)
    (seat,) = to_act(state)
    replica.clock.now += 60
    await app.submit(
        game_id,
        seat,
        legal_commands(state, seat)[0],
        expected_version=state.version,
        command_id="bot:g:stand-in",
        turn_timer_expired=True,
        by_service=True,
    )
    after, since, decision = await app.resting(game_id)
    (next_seat,) = to_act(after)
    warned = TurnTimerRunningOut(game_id, next_seat, after, decision, since + 60_000)
    replica.bus().handle(warned)
    assert await replica.told(PEOPLE[seat].player_id) == ["BotTookOver"]
    assert await replica.told(PEOPLE[next_seat].player_id) == ["TimerRunningOut", "YourTurn"]


async def test_the_sweepers_looks_repeat_what_a_replica_that_died_did_not_announce(
    replica: Replica,
) -> None:
    app = replica.game()
    bots_game, _ = await app.start_game(NewGame(players=3, game_id="bots", seats=BOTS))
    people_game, _ = await app.start_game(NewGame(players=3, game_id="people", seats=PEOPLE))
    ended, _ = await app.start_game(NewGame(players=3, game_id="ended", seats=PEOPLE))
    bus = replica.bus()
    bots = await app.resting(bots_game)
    bus.handle(BotsOverdue(bots_game, bots.state, bots.decision, None))
    assert {turn.seat for turn in replica.launched} == set(to_act(bots.state))
    people = await app.resting(people_game)
    bus.handle(PersonsTurnLookedAt(people_game, people.state, people.decision, None))
    (seat,) = to_act(people.state)
    assert await replica.told(PEOPLE[seat].player_id) == ["YourTurn"]
    end = await _played_to_the_end(app, ended)
    bus.handle(GameOverLookedAt(ended, end.state, end.decision, None))
    for person in PEOPLE:
        assert await replica.recorded(person.player_id) == [ended]
        assert "GameOver" in await replica.told(person.player_id)


async def test_without_bots_the_stats_and_the_players_still_hear(replica: Replica) -> None:
    app = replica.game()
    game_id, _ = await app.start_game(NewGame(players=3, game_id="g", seats=PEOPLE))
    end = await _played_to_the_end(app, game_id)
    bus = replica.bus(bots=False)
    bus.handle(_appended(game_id, end, bot_waited_ms=10))
    bus.handle(TurnTimerRanOut(game_id, 0, end.state))
    assert replica.launched == [] and replica.paced == []
    assert await replica.recorded(PEOPLE[0].player_id) == [game_id]
    assert await replica.told(PEOPLE[0].player_id) == ["GameOver"]


async def test_a_timed_turn_runs_out_through_the_game_service_the_sweeper_and_the_handlers(
    replica: Replica,
) -> None:
    """The whole path of a turn timer without a server: the game service sets the wake-up, the
    sweeper's looks publish what they find, the handlers warn the person and launch the
    stand-in."""
    timers = InMemoryTurnTimers()
    bus = replica.bus()
    app = GameApplication(replica.store, publish=bus.handle, timers=timers, clock=replica.clock)
    sweeper = TimerSweeper(timers, app.resting, bus.handle, clock=replica.clock)
    game = NewGame(players=3, game_id="g", seats=PEOPLE, turn_seconds=60)
    game_id, state = await app.start_game(game)
    (seat,) = to_act(state)
    person = PEOPLE[seat].player_id
    assert await replica.told(person) == ["YourTurn"]
    replica.clock.now = T0 + 48  # the warning, a fifth of the turn before the deadline
    assert await sweeper.sweep() == 1
    assert await replica.told(person) == ["YourTurn", "TimerRunningOut"]
    assert replica.launched == []
    replica.clock.now = T0 + 60
    assert await sweeper.sweep() == 1
    (turn,) = replica.launched
    assert (turn.game_id, turn.seat, turn.version, turn.turn_timer_expired) == (
        game_id,
        seat,
        state.version,
        True,
    )


def test_every_announcement_has_its_handlers_and_each_is_declared_for_it() -> None:
    """The table names every message the game service publishes; a handler's annotation says
    which messages it reads, and each is registered only for those."""
    assert set(HANDLERS) == set(typing.get_args(Announcement))
    for kind, handlers in HANDLERS.items():
        for handler in handlers:
            declared = typing.get_type_hints(handler)["news"]
            accepted = typing.get_args(declared) or (declared,)
            assert issubclass(kind, accepted), f"{handler.__name__} is not for {kind.__name__}"
