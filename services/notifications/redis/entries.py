"""Stream entries as the publish script writes them, read back: a player's inbox entries as
:class:`Received`, the outbound feed's as :class:`OutboundEntry`.

Shared by the store's reads and the live reader's ``XREAD`` replies: one stored format, one
parser. The layout is described in :mod:`services.notifications.redis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redis.typing import EncodableT, FieldT

from services.api.verrater.v1 import lobby_pb2

from ..kinds import Position, Received, parse_cursor
from ..messages import notification_from_proto, notification_to_proto
from ..port import OutboundEntry


def position_of(entry_id: bytes | str) -> Position:
    """The position an entry id names."""
    return parse_cursor(entry_id.decode() if isinstance(entry_id, bytes) else entry_id)


def received_from(player_id: str, entry_id: bytes, fields: Mapping[bytes, bytes]) -> Received:
    """An inbox entry (raw bytes fields) as the notification it stores."""
    message = lobby_pb2.Notification.FromString(fields[b"n"])
    notification = notification_from_proto(message, player_id, fields[b"k"].decode())
    return Received(position_of(entry_id), notification)


def last_deleted(info: Mapping[str, Any]) -> Position:
    """The last entry retention removed from a stream, from its ``XINFO STREAM``."""
    first = info["first-entry"]
    if first is None:  # everything removed (not something publishing leaves behind)
        return position_of(info["last-generated-id"])
    return position_of(first[1][b"p"])


def decode_outbound(entry_id: bytes | str, fields: Mapping[bytes, bytes]) -> OutboundEntry:
    """An outbound feed entry as ``XRANGE``/``XREADGROUP`` return it (raw bytes fields), for a
    push gateway written in Python, and for the tests."""
    message = lobby_pb2.Notification.FromString(fields[b"n"])
    notification = notification_from_proto(
        message, fields[b"player_id"].decode(), fields[b"key"].decode()
    )
    return OutboundEntry(position_of(entry_id), message.cursor, notification)


def outbound_fields(received: Received) -> dict[FieldT, EncodableT]:
    """The outbound feed entry of a stored notification, as the publish script writes it on a
    standalone Redis: ``n`` is the whole Notification, its cursor (field 1, a string: the byte
    0x0A, the length, the id) prepended to the message stored without it."""
    notification = received.notification
    cursor = received.cursor.encode()
    message = notification_to_proto(notification).SerializeToString()
    return {
        "player_id": notification.player_id,
        "kind": notification.kind_name,
        "game_id": notification.game_id,
        "table_id": notification.table_id,
        "cursor": cursor,
        "key": notification.key,
        "n": b"\x0a" + bytes([len(cursor)]) + cursor + message,
    }
