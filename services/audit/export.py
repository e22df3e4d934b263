"""The export format of a game's log: JSON Lines, documented in docs/LOG_FORMAT.md.

The first line is a header naming the format; every further line is one stored event: its
version, its link in the hash chain, the exact stored bytes (base64) and, for people and for
tools without protobuf, the event as plain JSON. The payload is authoritative: the JSON is
derived from it, and the audit reports a line whose JSON says something else.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message

from services.api.verrater.v1 import events_pb2
from services.codec import MalformedMessage, Record, decode_record
from services.eventstore import StoredEvent

FORMAT = "verrater-game-log"
FORMAT_VERSION = 1


class LogFormatError(ValueError):
    """A file or entry that is not a game log in this format; the message says where."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One stored event: its 1-based version, its hash chain link and the exact stored bytes.

    `claimed_event` is the event JSON an export file stated next to the payload (None when the
    entry did not come from a file); it is kept only so that the audit can compare it with what
    the payload says.
    """

    version: int
    prev_hash: str
    hash: str
    payload: bytes
    claimed_event: dict[str, Any] | None = field(default=None, compare=False)

    @classmethod
    def from_stored(cls, stored: StoredEvent) -> LogEntry:
        return cls(stored.version, stored.prev_hash, stored.hash, stored.payload)

    def record(self) -> Record:
        """The stored record the payload holds; LogFormatError if it holds none."""
        try:
            return decode_record(self.payload)
        except MalformedMessage as error:
            raise LogFormatError(f"version {self.version}: {error}") from None


@dataclass(frozen=True, slots=True)
class ExportedLog:
    """An export file's content: the game id of its header and its entries, first first."""

    game_id: str
    entries: list[LogEntry]


def records_of(entries: Iterable[LogEntry]) -> list[Record]:
    """Every entry's record, in order; LogFormatError at the first unreadable payload."""
    return [entry.record() for entry in entries]


# --- the event as plain JSON ---------------------------------------------------------------


def event_json(payload: bytes) -> dict[str, Any] | None:
    """The event a payload holds as plain JSON; None when the bytes are not a GameEvent.

    ``{"type": <message name>, <fields of that message>...}`` in the proto3 JSON mapping with the
    proto's own field names: enums by name, bytes as base64, every field without presence
    written even when zero, absent optional (hidden) fields left out, fields in proto order.
    ``command_id`` and ``turn_timer_expired`` follow the fields when the event carries them.
    """
    try:
        message = events_pb2.GameEvent.FromString(payload)
    except DecodeError:
        return None
    kind = message.WhichOneof("event")
    if kind is None:
        return None
    inner: Message = getattr(message, kind)
    fields = json_format.MessageToDict(
        inner, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    out: dict[str, Any] = {"type": inner.DESCRIPTOR.name}
    out.update(_in_proto_order(inner.DESCRIPTOR, fields))
    if message.command_id:
        out["command_id"] = message.command_id
    if message.turn_timer_expired:
        out["turn_timer_expired"] = True
    return out


def _in_proto_order(descriptor: Descriptor, data: dict[str, Any]) -> dict[str, Any]:
    """`data` (a message as JSON) with its keys in the order the proto declares the fields."""
    ordered: dict[str, Any] = {}
    for proto_field in descriptor.fields:
        if proto_field.name not in data:
            continue
        value = data[proto_field.name]
        nested = proto_field.message_type
        if nested is not None and proto_field.type == FieldDescriptor.TYPE_MESSAGE:
            if isinstance(value, list):
                value = [_in_proto_order(nested, item) for item in value]
            else:
                value = _in_proto_order(nested, value)
        ordered[proto_field.name] = value
    return ordered


# --- writing and reading ---------------------------------------------------------------------


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False) + "\n"


def write_jsonl(entries: Iterable[LogEntry], file: TextIO, *, game_id: str = "") -> None:
    """Write the header line, then one line per entry (the event JSON derived from the payload)."""
    file.write(_line({"format": FORMAT, "format_version": FORMAT_VERSION, "game_id": game_id}))
    for entry in entries:
        file.write(
            _line(
                {
                    "version": entry.version,
                    "prev_hash": entry.prev_hash,
                    "hash": entry.hash,
                    "payload": base64.b64encode(entry.payload).decode("ascii"),
                    "event": event_json(entry.payload),
                }
            )
        )


def read_log(file: TextIO) -> ExportedLog:
    """The header's game id and the entries of an export file; LogFormatError names the line."""
    lines = iter(enumerate(file, start=1))
    header = next(lines, None)
    if header is None:
        raise LogFormatError("the file is empty: a game log starts with its header line")
    data = _json_object(*header)
    if data.get("format") != FORMAT:
        raise LogFormatError(f"line 1: not a {FORMAT} file (format is {data.get('format')!r})")
    if data.get("format_version") != FORMAT_VERSION:
        raise LogFormatError(
            f"line 1: format_version {data.get('format_version')!r} is not supported "
            f"(this reader knows version {FORMAT_VERSION})"
        )
    game_id = data.get("game_id", "")
    if not isinstance(game_id, str):
        raise LogFormatError("line 1: game_id must be a string")
    entries = [_entry(number, text) for number, text in lines if text.strip()]
    return ExportedLog(game_id, entries)


def read_jsonl(file: TextIO) -> list[LogEntry]:
    """The entries of an export file, first first; LogFormatError names the offending line."""
    return read_log(file).entries


def _json_object(number: int, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise LogFormatError(f"line {number}: not JSON: {error}") from None
    if not isinstance(data, dict):
        raise LogFormatError(f"line {number}: expected a JSON object")
    return data


def _entry(number: int, text: str) -> LogEntry:
    data = _json_object(number, text)
    version = data.get("version")
    if type(version) is not int:
        raise LogFormatError(f"line {number}: version must be an integer")
    for name in ("prev_hash", "hash", "payload"):
        if not isinstance(data.get(name), str):
            raise LogFormatError(f"line {number}: {name} must be a string")
    try:
        payload = base64.b64decode(data["payload"], validate=True)
    except binascii.Error as error:
        raise LogFormatError(f"line {number}: payload is not base64: {error}") from None
    claimed = data.get("event")
    if claimed is not None and not isinstance(claimed, dict):
        raise LogFormatError(f"line {number}: event must be a JSON object or null")
    return LogEntry(version, data["prev_hash"], data["hash"], payload, claimed)
