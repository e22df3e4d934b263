"""Notifications: what a player is told across all their tables and games, from a cursor, live,
and on an outbound feed for push gateways.

`Notifications` is the port (stored per player, exactly once per dedupe key, cursors, live
subscriptions fanned out once per process), with an in-memory and a Redis adapter. The producers
turn the game's announcements and the lobby's table changes into notifications; a `Publisher`
publishes them in order, in the background. `NotificationStreams` is WatchNotifications without
gRPC: bounded streams per player, slow readers cut off. Other packages import only from here.
"""

from .kinds import (
    KIND_NAMES,
    BotTookOver,
    GameOver,
    GameStarted,
    GameStarting,
    InvalidCursor,
    Kind,
    Notification,
    Position,
    Received,
    TableFull,
    TimerRunningOut,
    YourTurn,
    format_cursor,
    parse_cursor,
)
from .memory import InMemoryNotifications
from .messages import notification_from_proto, notification_to_proto, received_to_proto
from .port import (
    DEDUPE_SECONDS,
    DEFAULT_OUTBOUND_MAXLEN,
    KEEP_PER_PLAYER,
    KEEP_SECONDS,
    CursorExpired,
    NotificationRefused,
    Notifications,
    NotificationsUnavailable,
    OutboundEntry,
    Published,
    SlowReader,
)
from .producers import GameNotifier, LobbyNotifier, Publisher, game_notifications
from .redis import RedisNotifications, decode_outbound
from .watch import DEFAULT_MAX_PENDING, DEFAULT_MAX_STREAMS, NotificationStreams, TooManyStreams

__all__ = [
    "DEDUPE_SECONDS",
    "DEFAULT_MAX_PENDING",
    "DEFAULT_MAX_STREAMS",
    "DEFAULT_OUTBOUND_MAXLEN",
    "KEEP_PER_PLAYER",
    "KEEP_SECONDS",
    "KIND_NAMES",
    "BotTookOver",
    "CursorExpired",
    "GameNotifier",
    "GameOver",
    "GameStarted",
    "GameStarting",
    "InMemoryNotifications",
    "InvalidCursor",
    "Kind",
    "LobbyNotifier",
    "Notification",
    "NotificationRefused",
    "NotificationStreams",
    "Notifications",
    "NotificationsUnavailable",
    "OutboundEntry",
    "Position",
    "Published",
    "Publisher",
    "Received",
    "RedisNotifications",
    "SlowReader",
    "TableFull",
    "TimerRunningOut",
    "TooManyStreams",
    "YourTurn",
    "decode_outbound",
    "format_cursor",
    "game_notifications",
    "notification_from_proto",
    "notification_to_proto",
    "parse_cursor",
    "received_to_proto",
]
