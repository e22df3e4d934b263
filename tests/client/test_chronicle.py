"""The chronicle: what the events tell beyond the view."""

from __future__ import annotations

from services.api.verrater.v1 import events_pb2
from services.client.chronicle import Chronicle, timed_out_seat

from .recorded import NAMES, record_game


def test_names_and_the_turn_timer_come_from_the_first_event() -> None:
    game = record_game(11)
    chronicle = Chronicle.of(update.event for update in game.updates[:1])
    assert chronicle.names == list(NAMES)
    assert chronicle.turn_seconds == 60


def test_trading_post_bonus_is_kept_apart_from_the_points_of_conflicts() -> None:
    game = record_game(12)
    chronicle = Chronicle.of(update.event for update in game.updates)
    bonus = {
        update.event.points_awarded.seat: update.event.points_awarded.points
        for update in game.updates
        if update.event.points_awarded.reason == events_pb2.SCORE_REASON_TRADING_POSTS
    }
    for seat in range(len(NAMES)):
        assert chronicle.trading_post_bonus.get(seat, 0) == bonus.get(seat, 0)
    assert chronicle.ended is not None
    assert "The game is over" in chronicle.recent[-1]


def test_a_decision_taken_for_a_timed_out_seat_is_told() -> None:
    chronicle = Chronicle(names=list(NAMES))
    event = events_pb2.GameEvent(
        supply_played=events_pb2.SupplyPlayed(seat=2, cards=[3]), turn_timer_expired=True
    )
    assert timed_out_seat(event) == 2
    chronicle.apply(event)
    assert list(chronicle.recent) == [
        "Cleo's turn timer ran out: a bot decided",
        "Cleo played supply 3",
    ]
    assert timed_out_seat(events_pb2.GameEvent(supply_played=events_pb2.SupplyPlayed())) is None
