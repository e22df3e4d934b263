"""Chat's values and its rules, without I/O: the channels, who may read and write which, when a
channel is open, and the cursor a message is found by.

A table's chat is one stream of messages, the two channels' messages interleaved, each entry
naming its channel: one cursor resumes both, and what a reader may see is decided as each
message reaches them (`Reader.may_read`), never by which stream they read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeAlias

from services.errors import Reason, ServiceError

#: How long a table's channels stay open for writing after its game ended (30 minutes).
OPEN_AFTER_GAME_SECONDS = 30 * 60
#: Messages kept per table (about, on Redis, which trims whole stream nodes).
KEEP_PER_TABLE = 500
#: How long a table's chat is kept after its last message (2 days).
KEEP_SECONDS = 2 * 24 * 3600

Position: TypeAlias = tuple[int, int]
"""Where a message stands in its table's chat: (Unix ms when stored, sequence), as Redis
numbers stream entries; a cursor is its text "<ms>-<seq>"."""
ORIGIN: Position = (0, 0)
_CURSOR = re.compile(r"(\d{1,15})-(\d{1,15})")


class Channel(StrEnum):
    TABLE = "table"
    SPECTATORS = "spectators"


def invalid_cursor(cursor: str, why: str) -> ServiceError:
    return ServiceError(
        Reason.MALFORMED_REQUEST,
        f"cursor {cursor[:48]!r} {why}: pass the cursor of a chat message you received",
        field="cursor",
    )


def parse_cursor(cursor: str) -> Position:
    """The position a cursor names; MALFORMED_REQUEST for anything else."""
    match = _CURSOR.fullmatch(cursor)
    if match is None:
        raise invalid_cursor(cursor, "is not a chat cursor")
    return int(match.group(1)), int(match.group(2))


def format_cursor(position: Position) -> str:
    return f"{position[0]}-{position[1]}"


@dataclass(frozen=True, slots=True)
class NewMessage:
    """A message to store: normalised, its sender allowed to write it to its channel."""

    table_id: str
    channel: Channel
    sender_id: str
    display_name: str
    text: str
    #: Named by a client that may retry ("": none): a retry stores nothing (`ChatStore.append`).
    request_id: str = ""

    @property
    def fingerprint(self) -> str:
        """What a retry under the same request id must repeat: the channel and the text."""
        return hashlib.sha256(f"{self.channel}\0{self.text}".encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A message as stored, with its position in its table's chat."""

    position: Position
    table_id: str
    channel: Channel
    sender_id: str
    display_name: str
    text: str

    @property
    def cursor(self) -> str:
        return format_cursor(self.position)

    @property
    def sent_at_ms(self) -> int:
        return self.position[0]


@dataclass(frozen=True, slots=True)
class Report:
    """A message reported to the operators, by whom, why and when."""

    report_id: str
    reported_at_ms: int
    reporter_id: str
    note: str
    message: ChatMessage


@dataclass(frozen=True, slots=True)
class TableFacts:
    """What chat needs to know of a table (the lobby's, through `Tables`)."""

    table_id: str
    host: str
    #: The people seated: player id -> display name.
    seated: Mapping[str, str] = field(default_factory=dict)
    #: The bots' ids (bots never chat).
    bots: frozenset[str] = frozenset()
    #: The game's id once the table is starting or started ("" before).
    game_id: str = ""
    #: The seats are fixed (the table is starting or started).
    seats_fixed: bool = False
    #: The game has been created.
    started: bool = False
    #: Closed before a game started.
    closed: bool = False


def writable_channel(facts: TableFacts, player_id: str, wanted: Channel | None) -> Channel:
    """The channel `player_id` writes to (`wanted`, else their own: the table's for the seated
    and the host, the spectators' for everybody else); CHAT_NOT_ALLOWED when it is not theirs."""
    insider = player_id in facts.seated or player_id == facts.host
    channel = wanted or (Channel.TABLE if insider else Channel.SPECTATORS)
    if channel is Channel.TABLE and not insider:
        raise ServiceError(
            Reason.CHAT_NOT_ALLOWED,
            "the table's channel is for its seated players and its host: spectators write to "
            "CHAT_CHANNEL_SPECTATORS",
            channel=str(channel),
        )
    if channel is Channel.SPECTATORS and player_id in facts.seated:
        raise ServiceError(
            Reason.CHAT_NOT_ALLOWED,
            "the seated players do not write to the spectators' channel",
            channel=str(channel),
        )
    return channel


def check_open(facts: TableFacts, channel: Channel, ended_at_ms: int | None, now_ms: int) -> None:
    """CHAT_CLOSED unless `channel` of the table takes messages at `now_ms`."""
    if facts.closed:
        raise ServiceError(
            Reason.CHAT_CLOSED, "the table closed without a game: its chat is closed"
        )
    if channel is Channel.SPECTATORS and not facts.started:
        raise ServiceError(
            Reason.CHAT_CLOSED,
            "the spectators' channel opens when the table's game starts",
            channel=str(channel),
        )
    if ended_at_ms is not None and now_ms >= ended_at_ms + OPEN_AFTER_GAME_SECONDS * 1000:
        raise ServiceError(
            Reason.CHAT_CLOSED,
            f"the table's chat closed {OPEN_AFTER_GAME_SECONDS // 60} minutes after its game ended",
            channel=str(channel),
        )


@dataclass(slots=True)
class Reader:
    """Who reads a table's chat, and what they may see of it. `game_over` is learnt as the
    stream goes: a seated player reads the spectators' channel once the game is over."""

    player_id: str
    facts: TableFacts
    game_over: bool

    @property
    def seated(self) -> bool:
        return self.player_id in self.facts.seated

    @property
    def settled(self) -> bool:
        """Nothing that decides what this reader may see can change any more."""
        return self.facts.seats_fixed and (self.game_over or not self.seated)

    def may_read(self, message: ChatMessage) -> bool:
        if message.table_id != self.facts.table_id:
            return False
        if message.channel is Channel.SPECTATORS:
            return not self.seated or self.game_over
        return True
