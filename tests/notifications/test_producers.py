"""Who is told what: the game's announcements and the lobby's table changes as notifications,
and the publisher that stores them in order, retrying while the store is away."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from services.codec import Record
from services.engine import (
    BotLevel,
    CreateGame,
    GameState,
    Phase,
    Ruleset,
    SeatAssignment,
    execute,
    initial_state,
    legal_commands,
    to_act,
)
from services.notifications import (
    BotTookOver,
    GameNotifier,
    GameOver,
    GameStarted,
    GameStarting,
    InMemoryNotifications,
    LobbyNotifier,
    Notification,
    Notifications,
    NotificationsUnavailable,
    Published,
    Publisher,
    Received,
    TableFull,
    TimerRunningOut,
    YourTurn,
    game_notifications,
)
from tests.support.waiting import wait_until

SEATS = (
    SeatAssignment("palice", "Alice"),
    SeatAssignment("pbot", "Bot", BotLevel.NORMAL),
    SeatAssignment("pcarol", "Carol"),
)
PEOPLE = {0: "palice", 2: "pcarol"}


def new_game(seats: tuple[SeatAssignment, ...] = SEATS) -> tuple[GameState, Record]:
    events, state = execute(
        initial_state(), CreateGame(Ruleset.standard(3), bytes(32), None, seats)
    )
    return state, Record(events[0])


def play(state: GameState, rng: random.Random) -> tuple[GameState, Record]:
    """One decision of the first seat to act, chosen at random."""
    command = rng.choice(legal_commands(state, to_act(state)[0]))
    events, after = execute(state, command)
    return after, Record(events[0], "c")


def kinds(found: Sequence[Notification]) -> list[tuple[str, object]]:
    return [(n.player_id, n.kind) for n in found]


def test_each_person_who_must_decide_hears_your_turn_and_bots_hear_nothing() -> None:
    rng = random.Random(3)
    state, first = new_game()
    seen_bot_turn = False
    while state.phase is not Phase.GAME_OVER:
        found = game_notifications("g1", state, first, at_ms=7, table_id="t1")
        expected = [
            (PEOPLE[seat], YourTurn(seat, state.version)) for seat in to_act(state) if seat != 1
        ]
        assert kinds(found) == expected
        assert all(n.key == f"your_turn:g1:{n.kind.seat}:{state.version}" for n in found)  # type: ignore[union-attr]
        assert all((n.game_id, n.table_id, n.at_ms) == ("g1", "t1", 7) for n in found)
        seen_bot_turn |= 1 in to_act(state)
        state, first = play(state, rng)
    assert seen_bot_turn


def test_the_deadline_of_a_timed_decision_is_passed_on() -> None:
    state, first = new_game()
    found = game_notifications("g1", state, first, at_ms=7, deadline_ms=99_000)
    assert all(n.kind.deadline_ms == 99_000 for n in found)  # type: ignore[union-attr]


def test_a_sandbox_game_without_seating_tells_nobody() -> None:
    state, first = new_game(seats=())
    assert game_notifications("g1", state, first, at_ms=7) == []


def finished_game() -> tuple[GameState, Record]:
    rng = random.Random(11)
    state, first = new_game()
    while state.phase is not Phase.GAME_OVER:
        state, first = play(state, rng)
    return state, first


def test_the_end_tells_every_person_their_final_vp_and_rank() -> None:
    state, first = finished_game()
    found = game_notifications("g1", state, first, at_ms=7)

    best = max(state.vp)
    assert [n.player_id for n in found] == ["palice", "pcarol"]
    for notification in found:
        over = notification.kind
        assert isinstance(over, GameOver)
        assert over.final_vp == state.vp[over.seat]
        assert over.winners == state.winners
        assert (over.rank == 1) == (state.vp[over.seat] == best)
        assert over.rank == 1 + sum(vp > over.final_vp for vp in state.vp)
        assert notification.key == f"game_over:g1:{over.seat}"


def test_a_finished_game_loaded_cold_tells_nothing_again() -> None:
    """A cold load or a watcher's arrival may come weeks after the end: no GameOver again."""
    state, first = finished_game()
    assert game_notifications("g1", state, first, at_ms=7, again=True) == []
    assert game_notifications("g1", state, None, at_ms=7, again=True) == []


async def test_the_ends_look_publishes_what_the_replica_that_appended_it_did_not() -> None:
    """The one look at a game's end (services/game/timers.py) repeats its GameOver: the same
    notifications as the end's announcement, so nothing new goes out unless it was lost."""
    state, first = finished_game()
    assert game_notifications("g1", state, None, at_ms=7) == game_notifications(
        "g1", state, first, at_ms=7
    )
    notifications = InMemoryNotifications()
    publisher = Publisher(notifications)
    notifier = GameNotifier(publisher)
    notifier.announce("g1", state, first)
    notifier.announce("g1", state, first)  # the end was announced: nothing new
    notifier.announce("g2", state, first)  # its replica died before announcing
    await publisher.drain()
    assert (publisher.published, publisher.duplicates) == (4, 2)
    received = await stored(notifications, "pcarol")
    assert [(r.notification.game_id, type(r.notification.kind)) for r in received] == [
        ("g1", GameOver),
        ("g2", GameOver),
    ]


def test_a_decision_a_bot_took_on_a_timeout_tells_the_seat_a_bot_took_over() -> None:
    rng = random.Random(5)
    state, _ = new_game()
    while to_act(state)[0] != 0:
        state, _ = play(state, rng)
    command = rng.choice(legal_commands(state, 0))
    events, after = execute(state, command)
    first = Record(events[0], "bot:g1:0", turn_timer_expired=True)

    found = game_notifications("g1", after, first, at_ms=7)
    assert kinds(found)[0] == ("palice", BotTookOver(0, after.version))
    assert found[0].key == f"bot_took_over:g1:0:{after.version}"
    assert all(isinstance(n.kind, YourTurn) for n in found[1:])
    # Announced again (a cold load, a watcher's arrival, a look): the same facts, deduplicated.
    assert game_notifications("g1", after, first, at_ms=7, again=True) == found


async def stored(notifications: Notifications, player_id: str) -> list[Received]:
    return await notifications.read(player_id, "0-0", 100)


async def test_the_game_notifier_publishes_each_fact_once_with_the_table_it_came_from() -> None:
    notifications = InMemoryNotifications()
    publisher = Publisher(notifications)
    notifier = GameNotifier(publisher, table_of=lambda game_id: game_id[1:], clock=lambda: 1.5)
    state, first = new_game()

    notifier.announce("gt1", state, first)
    notifier.announce("gt1", state, first, again=True)  # a replica loading the game cold
    await publisher.drain()

    people = [seat for seat in to_act(state) if seat in PEOPLE]
    (received,) = await stored(notifications, PEOPLE[people[0]])
    assert received.notification.kind == YourTurn(people[0], state.version)
    assert (received.notification.table_id, received.notification.at_ms) == ("t1", 1500)
    assert (publisher.published, publisher.duplicates) == (1, 1)


async def test_timer_running_out_is_told_once_per_seat_and_version() -> None:
    notifications = InMemoryNotifications()
    publisher = Publisher(notifications)
    notifier = GameNotifier(publisher, clock=lambda: 2.0)

    notifier.timer_running_out("palice", "g1", 0, 12, 60_000)
    notifier.timer_running_out("palice", "g1", 0, 12, 60_000)
    notifier.timer_running_out("palice", "g1", 0, 14, 90_000)
    await publisher.drain()

    assert [r.notification.kind for r in await stored(notifications, "palice")] == [
        TimerRunningOut(0, 12, 60_000),
        TimerRunningOut(0, 14, 90_000),
    ]
    assert publisher.duplicates == 1


async def test_the_lobby_notifier_tells_the_people_seated_full_starting_started() -> None:
    notifications = InMemoryNotifications()
    publisher = Publisher(notifications)
    lobby = LobbyNotifier(publisher, clock=lambda: 3.0)

    lobby.table_full("t1", 4, PEOPLE)
    lobby.table_full("t1", 4, PEOPLE)  # the same change reported again
    lobby.game_starting("t1", PEOPLE)
    lobby.game_started("t1", "gt1", PEOPLE)
    lobby.table_full("t2", 2, {1: "palice"})
    await publisher.drain()

    alice = [r.notification for r in await stored(notifications, "palice")]
    assert [(n.table_id, n.game_id, n.kind) for n in alice] == [
        ("t1", "", TableFull()),
        ("t1", "", GameStarting()),
        ("t1", "gt1", GameStarted(0)),
        ("t2", "", TableFull()),
    ]
    carol = [r.notification.kind for r in await stored(notifications, "pcarol")]
    assert carol == [TableFull(), GameStarting(), GameStarted(2)]


class Flaky(InMemoryNotifications):
    """Unreachable for the first `failures` publishes (the reply may be lost after storing)."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def publish_each(self, notifications: Sequence[Notification]) -> list[Published]:
        if self.failures:
            self.failures -= 1
            await super().publish_each(notifications[:1])  # stored, but the reply never came
            raise NotificationsUnavailable("connection reset")
        return await super().publish_each(notifications)


async def test_the_publisher_retries_while_the_store_is_away_and_keeps_the_order() -> None:
    notifications = Flaky(failures=3)
    publisher = Publisher(notifications)
    lobby = LobbyNotifier(publisher)

    for version in range(1, 6):
        lobby.table_full("t1", version, {0: "palice"})
    await publisher.drain()

    keys = [r.notification.key for r in await stored(notifications, "palice")]
    assert keys == [f"table_full:t1:{version}" for version in range(1, 6)]
    assert notifications.failures == 0


@pytest.mark.parametrize("reachable", [True, False])
async def test_closing_the_publisher_gives_up_on_what_it_cannot_store(reachable: bool) -> None:
    notifications = Flaky(failures=0 if reachable else 10_000)
    publisher = Publisher(notifications)
    LobbyNotifier(publisher).table_full("t1", 1, {0: "palice"})
    await publisher.close(timeout=0.2)
    assert publisher.published == (1 if reachable else 0)


class TwoStores(InMemoryNotifications):
    """Players' notifications on two stores, "up" and "down" (as two masters of a Redis
    Cluster): while `down` is away its players' notifications come back unavailable, each
    attempt counted; `moved` sends players to the other store (a failover)."""

    def __init__(self, down_players: set[str]) -> None:
        super().__init__()
        self.down_players = down_players
        self.away = True
        self.moved: set[str] = set()
        self.attempts_on_down = 0

    def route(self, player_id: str) -> str:
        on_down = player_id in self.down_players and player_id not in self.moved
        return "down" if on_down else "up"

    async def publish_each(self, notifications: Sequence[Notification]) -> list[Published]:
        published: list[Published] = []
        for notification in notifications:
            if self.away and self.route(notification.player_id) == "down":
                self.attempts_on_down += 1
                published.append(NotificationsUnavailable("the master is away"))
            else:
                published += await super().publish_each([notification])
        return published


def tables(player_id: str, versions: range) -> list[Notification]:
    return [Notification(player_id, f"table_full:t1:{v}", TableFull(), 1, "t1") for v in versions]


async def test_a_store_away_holds_up_its_own_players_only_and_their_order_survives() -> None:
    notifications = TwoStores({"pstuck"})
    publisher = Publisher(notifications)

    # More than two batches of the unreachable store's, sent before the other's.
    publisher.send(tables("pstuck", range(1, 251)))
    publisher.send(tables("pfree", range(1, 4)))
    await wait_until(lambda: publisher.published == 3, "the reachable store's are published")
    assert [r.notification.key for r in await stored(notifications, "pfree")] == [
        f"table_full:t1:{v}" for v in range(1, 4)
    ]
    await wait_until(lambda: notifications.attempts_on_down > 250, "the other is retried")
    assert publisher.queued == 250

    notifications.away = False
    await publisher.drain()
    keys = [r.notification.key for r in await notifications.read("pstuck", "0-0", 1000)]
    assert keys == [f"table_full:t1:{v}" for v in range(1, 251)]


async def test_players_whose_store_changed_leave_the_lane_of_the_store_away() -> None:
    """A failover moves a player to another master: their waiting notifications follow, in
    order, instead of waiting behind the players still unreachable."""
    notifications = TwoStores({"pstuck", "pmoving"})
    publisher = Publisher(notifications)
    publisher.send(tables("pstuck", range(1, 151)))
    publisher.send(tables("pmoving", range(1, 6)))
    await wait_until(lambda: notifications.attempts_on_down >= 100, "the store away is tried")

    notifications.moved.add("pmoving")
    await wait_until(lambda: publisher.published == 5, "the moved player's are published")
    keys = [r.notification.key for r in await stored(notifications, "pmoving")]
    assert keys == [f"table_full:t1:{v}" for v in range(1, 6)]
    assert publisher.queued == 150
    await publisher.close(timeout=0)


async def test_a_full_queue_drops_the_oldest_of_the_longest_lane() -> None:
    notifications = TwoStores({"pstuck"})
    publisher = Publisher(notifications, max_queued=120)
    publisher.send(tables("pstuck", range(1, 101)))
    await wait_until(lambda: notifications.attempts_on_down >= 100, "the store away is tried")
    publisher.send(tables("pfree", range(1, 3)))
    publisher.send(tables("pstuck", range(101, 131)))  # 132 waiting: 12 too many
    await wait_until(lambda: publisher.published == 2, "the reachable store's are published")

    notifications.away = False
    await publisher.drain()
    keys = [r.notification.key for r in await notifications.read("pstuck", "0-0", 1000)]
    assert keys == [f"table_full:t1:{v}" for v in range(13, 131)]  # the oldest 12 dropped
