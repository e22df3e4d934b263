"""The turn clock against the server's clock, the turn timer a new table asks for, and tokens
that renew themselves in time."""

from __future__ import annotations

from google.protobuf import timestamp_pb2

from services.client.clock import ServerClock, countdown
from services.client.connection import RENEW_AHEAD_S, Auth, Issued
from services.client.lobby import PEOPLE_TURN_SECONDS, TableChoice


class FakeTime:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_table_of_you_and_bots_has_no_turn_timer_unless_asked_for_one() -> None:
    assert TableChoice().timer == 0  # every other seat a bot: nobody else waits
    assert TableChoice(players=3, bots=2).timer == 0
    assert TableChoice(bots=3, turn_seconds=45).timer == 45  # the table option still sets one
    assert TableChoice(bots=1).timer == PEOPLE_TURN_SECONDS  # people may join: they wait
    assert TableChoice(bots=1, turn_seconds=0).timer == 0


def test_the_countdown_reads_like_a_clock() -> None:
    assert countdown(7.2) == "0:08"
    assert countdown(105) == "1:45"
    assert countdown(0.4) == "0:01"
    assert countdown(-3) == "0:00"
    assert countdown(2 * 3600 + 5 * 60) == "2 h 05 min"
    assert countdown(3 * 86400 + 4 * 3600) == "3 d 4 h"


def test_the_offset_to_the_server_is_measured_once_from_a_batch_that_just_arrived() -> None:
    local = FakeTime(1_000.0)
    clock = ServerClock(local)
    deadline = timestamp_pb2.Timestamp(seconds=1_100)
    assert clock.left(deadline) == 100  # no offset known yet: this clock's time
    clock.learn(recorded_at_ms=990_000)  # the server is 10 s behind this machine
    assert clock.left(deadline) == 110
    clock.learn(recorded_at_ms=500_000)  # later batches do not move it
    assert clock.left(deadline) == 110
    local.now += 30
    assert clock.left(deadline) == 80


def test_a_token_is_renewed_a_quarter_of_its_life_before_it_expires() -> None:
    now = FakeTime(0.0)
    issued: list[Issued | None] = []

    def renew(current: Issued | None) -> Issued:
        issued.append(current)
        return Issued(f"token-{len(issued)}", now.now + 100)

    auth = Auth(renew, Issued("token-0", 100), clock=now)
    now.now = 74
    assert auth.token() == "token-0"
    now.now = 75
    assert auth.token() == "token-1"
    assert issued == [Issued("token-0", 100)]


def test_a_long_lived_token_is_renewed_five_minutes_before_it_expires() -> None:
    now = FakeTime(0.0)
    auth = Auth(lambda current: Issued("new", now.now + 3600), Issued("old", 3600), clock=now)
    now.now = 3600 - RENEW_AHEAD_S - 1
    assert auth.token() == "old"
    now.now += 1
    assert auth.token() == "new"


def test_a_fixed_token_is_never_renewed() -> None:
    auth = Auth.fixed("given")
    assert not auth.renewable
    assert auth.metadata() == (("authorization", "Bearer given"),)
    assert Auth.fixed("").metadata() == ()
