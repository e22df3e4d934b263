"""The stored record of one event: the event and the command id of the decision it records.

The bytes in a game's stream are a `verrater.v1.GameEvent` (see proto/verrater/v1/events.proto),
serialized deterministically: the auditor re-encodes every record it reads and expects the same
bytes back, so one event has exactly one stored form. The decision event of each batch also
carries the client's command id, so retries are recognised from the log alone.
"""

from __future__ import annotations

from typing import NamedTuple

from google.protobuf.message import DecodeError

from services.api.verrater.v1 import events_pb2
from services.engine import Event, deciding_seat

from .enums import MalformedMessage
from .events import event_from_proto, event_to_proto


class Record(NamedTuple):
    """An event as stored: the client's command id, whether a bot decided because the seat's
    turn timer ran out, and when the batch was appended (all three on the event that starts a
    batch: the creation, or a decision).

    Immutable; a named tuple because every event read is decoded into one (see StoredEvent).
    """

    event: Event
    command_id: str = ""
    turn_timer_expired: bool = False
    #: Unix milliseconds of the append (0 on the events after a batch's first, and in logs
    #: written before times were recorded).
    recorded_at_ms: int = 0

    @property
    def seat(self) -> int:
        seat = deciding_seat(self.event)
        return -1 if seat is None else seat


def encode_record(record: Record) -> bytes:
    """The record's bytes in the log: its GameEvent, serialized deterministically."""
    message = event_to_proto(record.event)
    message.command_id = record.command_id
    message.turn_timer_expired = record.turn_timer_expired
    message.recorded_at_ms = record.recorded_at_ms
    return message.SerializeToString(deterministic=True)


def decode_record(data: bytes) -> Record:
    """The record `encode_record` stored; MalformedMessage if the bytes are not one."""
    try:
        message = events_pb2.GameEvent.FromString(data)
    except DecodeError as error:
        raise MalformedMessage("event", f"not a GameEvent: {error}") from None
    return Record(
        event_from_proto(message),
        message.command_id,
        message.turn_timer_expired,
        message.recorded_at_ms,
    )
