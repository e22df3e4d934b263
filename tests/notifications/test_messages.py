"""Notifications as `verrater.v1.Notification` messages, both ways."""

from __future__ import annotations

import pytest

from services.notifications import (
    KIND_NAMES,
    BotTookOver,
    GameOver,
    GameStarted,
    GameStarting,
    Kind,
    Notification,
    TableFull,
    TimerRunningOut,
    YourTurn,
    notification_from_proto,
    notification_to_proto,
)


@pytest.mark.parametrize(
    "kind",
    [
        YourTurn(0, 0),
        YourTurn(2, 31, 1_800_000_000_123),
        TableFull(),
        GameStarting(),
        GameStarted(0),
        GameOver(0, 0, 1, ()),
        GameOver(3, 17, 2, (0, 1)),
        TimerRunningOut(0, 0, 0),
        BotTookOver(0, 5),
    ],
)
def test_every_kind_names_itself_and_comes_back_whole_even_with_zero_fields(kind: Kind) -> None:
    notification = Notification("palice", "some:key", kind, 1_800_000_000_000, "t1", "gt1")
    message = notification_to_proto(notification, "1800000000000-3")

    assert message.WhichOneof("kind") == KIND_NAMES[type(kind)] == notification.kind_name
    assert message.cursor == "1800000000000-3"
    assert notification_from_proto(message, "palice", "some:key") == notification


def test_a_turn_without_timer_has_no_deadline() -> None:
    message = notification_to_proto(Notification("palice", "k", YourTurn(1, 2), 3))
    assert not message.your_turn.HasField("deadline")
