"""Notifications as `verrater.v1.Notification` messages: what WatchNotifications sends, what the
Redis adapter stores (field `n`), and what the outbound feed carries for push gateways.

The message holds everything but the player and the dedupe key, which travel beside it (the
stream is the player's; the outbound entry has both as fields).
"""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

from services.api.verrater.v1 import lobby_pb2

from .kinds import (
    BotTookOver,
    GameOver,
    GameStarted,
    GameStarting,
    Kind,
    Notification,
    Received,
    TableFull,
    TimerRunningOut,
    YourTurn,
)


def _timestamp(millis: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(millis)
    return stamp


def notification_to_proto(notification: Notification, cursor: str = "") -> lobby_pb2.Notification:
    """The message for `notification` (the cursor empty where it is not known yet)."""
    message = lobby_pb2.Notification(
        cursor=cursor,
        at=_timestamp(notification.at_ms),
        table_id=notification.table_id,
        game_id=notification.game_id,
    )
    match notification.kind:
        case YourTurn(seat, version, deadline_ms):
            message.your_turn.CopyFrom(
                lobby_pb2.YourTurn(
                    seat=seat,
                    version=version,
                    deadline=None if deadline_ms is None else _timestamp(deadline_ms),
                )
            )
        case TableFull():
            message.table_full.SetInParent()
        case GameStarting():
            message.game_starting.SetInParent()
        case GameStarted(seat):
            message.game_started.CopyFrom(lobby_pb2.GameStarted(seat=seat))
        case GameOver(seat, final_vp, rank, winners):
            message.game_over.CopyFrom(
                lobby_pb2.GameOver(seat=seat, final_vp=final_vp, rank=rank, winners=winners)
            )
        case TimerRunningOut(seat, version, deadline_ms):
            message.timer_running_out.CopyFrom(
                lobby_pb2.TimerRunningOut(
                    seat=seat, version=version, deadline=_timestamp(deadline_ms)
                )
            )
        case BotTookOver(seat, version):
            message.bot_took_over.CopyFrom(lobby_pb2.BotTookOver(seat=seat, version=version))
    return message


def received_to_proto(received: Received) -> lobby_pb2.Notification:
    """What WatchNotifications sends for a stored notification."""
    return notification_to_proto(received.notification, received.cursor)


def _kind_from_proto(message: lobby_pb2.Notification) -> Kind:
    match message.WhichOneof("kind"):
        case "your_turn":
            turn = message.your_turn
            deadline = turn.deadline.ToMilliseconds() if turn.HasField("deadline") else None
            return YourTurn(turn.seat, turn.version, deadline)
        case "table_full":
            return TableFull()
        case "game_starting":
            return GameStarting()
        case "game_started":
            return GameStarted(message.game_started.seat)
        case "game_over":
            over = message.game_over
            return GameOver(over.seat, over.final_vp, over.rank, tuple(over.winners))
        case "timer_running_out":
            timer = message.timer_running_out
            return TimerRunningOut(timer.seat, timer.version, timer.deadline.ToMilliseconds())
        case "bot_took_over":
            return BotTookOver(message.bot_took_over.seat, message.bot_took_over.version)
        case other:
            raise ValueError(f"a stored notification of no known kind ({other!r})")


def notification_from_proto(
    message: lobby_pb2.Notification, player_id: str, key: str
) -> Notification:
    """The notification a stored message describes (its player and key come beside it)."""
    return Notification(
        player_id,
        key,
        _kind_from_proto(message),
        message.at.ToMilliseconds(),
        message.table_id,
        message.game_id,
    )
