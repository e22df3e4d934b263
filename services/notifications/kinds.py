"""What a player is told: one value per kind of notification (the proto's `Notification.kind`),
the notification with its dedupe key, and the notification as stored, with its cursor.

The dedupe key says which fact a notification reports, so that reporting the same fact twice (a
replica that reloads a game announces its state again, a publish retried after a lost reply)
stores it once. The constructors below are the one place that spells each key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from services.errors import Reason, ServiceError


@dataclass(frozen=True, slots=True)
class YourTurn:
    """The seat must decide on the view at `version`: one per version at which it must."""

    seat: int
    version: int
    #: When the decision is due (Unix ms); None without a turn timer.
    deadline_ms: int | None = None


@dataclass(frozen=True, slots=True)
class TableFull:
    """Every seat of the table is taken."""


@dataclass(frozen=True, slots=True)
class GameStarting:
    """The table's game is being created; its seats are fixed."""


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The game runs; the player sits at `seat`."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended: the seat's final VP and rank (1 for the winners, ties share a rank)."""

    seat: int
    final_vp: int
    rank: int
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TimerRunningOut:
    """The turn timer of the decision at `version` runs out soon (at `deadline_ms`)."""

    seat: int
    version: int
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class BotTookOver:
    """The seat's turn timer ran out and a bot decided for it, bringing the game to `version`."""

    seat: int
    version: int


Kind: TypeAlias = (
    YourTurn | TableFull | GameStarting | GameStarted | GameOver | TimerRunningOut | BotTookOver
)

#: Each kind's name: the field of the proto's `Notification.kind` oneof, and the outbound feed's
#: `kind` field.
KIND_NAMES: dict[type[Kind], str] = {
    YourTurn: "your_turn",
    TableFull: "table_full",
    GameStarting: "game_starting",
    GameStarted: "game_started",
    GameOver: "game_over",
    TimerRunningOut: "timer_running_out",
    BotTookOver: "bot_took_over",
}


@dataclass(frozen=True, slots=True)
class Notification:
    """One thing to tell one player. `key` is unique per player and fact (see the module)."""

    player_id: str
    key: str
    kind: Kind
    #: When it happened, Unix ms.
    at_ms: int
    table_id: str = ""
    game_id: str = ""

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[type(self.kind)]


def your_turn(
    player_id: str,
    game_id: str,
    seat: int,
    version: int,
    *,
    at_ms: int,
    table_id: str = "",
    deadline_ms: int | None = None,
) -> Notification:
    return Notification(
        player_id,
        f"your_turn:{game_id}:{seat}:{version}",
        YourTurn(seat, version, deadline_ms),
        at_ms,
        table_id,
        game_id,
    )


def game_over(
    player_id: str,
    game_id: str,
    result: GameOver,
    *,
    at_ms: int,
    table_id: str = "",
) -> Notification:
    return Notification(
        player_id, f"game_over:{game_id}:{result.seat}", result, at_ms, table_id, game_id
    )


def bot_took_over(
    player_id: str, game_id: str, seat: int, version: int, *, at_ms: int, table_id: str = ""
) -> Notification:
    return Notification(
        player_id,
        f"bot_took_over:{game_id}:{seat}:{version}",
        BotTookOver(seat, version),
        at_ms,
        table_id,
        game_id,
    )


def timer_running_out(
    player_id: str,
    game_id: str,
    seat: int,
    version: int,
    deadline_ms: int,
    *,
    at_ms: int,
    table_id: str = "",
) -> Notification:
    return Notification(
        player_id,
        f"timer_running_out:{game_id}:{seat}:{version}",
        TimerRunningOut(seat, version, deadline_ms),
        at_ms,
        table_id,
        game_id,
    )


def table_full(player_id: str, table_id: str, table_version: int, *, at_ms: int) -> Notification:
    # A table may fill, lose a player and fill again: each time is news.
    return Notification(
        player_id, f"table_full:{table_id}:{table_version}", TableFull(), at_ms, table_id
    )


def game_starting(player_id: str, table_id: str, *, at_ms: int) -> Notification:
    return Notification(player_id, f"game_starting:{table_id}", GameStarting(), at_ms, table_id)


def game_started(
    player_id: str, table_id: str, game_id: str, seat: int, *, at_ms: int
) -> Notification:
    return Notification(
        player_id, f"game_started:{table_id}:{seat}", GameStarted(seat), at_ms, table_id, game_id
    )


#: The kinds whose facts follow one another per game and seat, each at a later version: one
#: dedupe record per (player, game, seat) holds the newest version told (see `versioned`).
VERSIONED_KINDS = ("your_turn", "timer_running_out", "bot_took_over")


def versioned(key: str) -> tuple[str, int] | None:
    """A dedupe key `<kind>:<game>:<seat>:<version>` of a `VERSIONED_KINDS` kind as its
    record's name (`<kind>:<game>:<seat>`) and version; None for other keys.

    A decision awaited at version v is told once, and never after one at a later version: a
    store may keep one record per game and seat (the newest version told) instead of one per
    decision, which a game of a hundred decisions would keep for 15 days."""
    kind, _, rest = key.partition(":")
    if kind not in VERSIONED_KINDS:
        return None
    record, _, version = rest.rpartition(":")
    if not version.isdigit() or record.count(":") != 1:
        return None
    return f"{kind}:{record}", int(version)


# --- cursors -----------------------------------------------------------------------------------

#: Where a notification stands in its player's notifications: (milliseconds, sequence), the
#: parts of its cursor "<ms>-<seq>" (a Redis stream entry id). Compared as tuples.
Position: TypeAlias = tuple[int, int]

#: Before every notification: a cursor "0-0" asks for everything still kept.
ORIGIN: Position = (0, 0)

_CURSOR = re.compile(r"(\d{1,20})-(\d{1,20})")
_MAX_PART = 2**64 - 1


class InvalidCursor(ServiceError):
    """A cursor this server did not hand out: malformed, or beyond the player's last one."""

    def __init__(self, cursor: str, why: str) -> None:
        super().__init__(
            Reason.MALFORMED_REQUEST,
            f"cursor {cursor[:48]!r} {why}: pass the cursor of a notification you received, "
            "or none to watch from now",
            field="cursor",
        )


def parse_cursor(cursor: str) -> Position:
    """The position a cursor names; InvalidCursor when it is not of the form "<ms>-<seq>"."""
    match = _CURSOR.fullmatch(cursor)
    if match is None:
        raise InvalidCursor(cursor, "is not of the form <digits>-<digits>")
    millis, seq = int(match.group(1)), int(match.group(2))
    if millis > _MAX_PART or seq > _MAX_PART:
        raise InvalidCursor(cursor, "is out of range")
    return millis, seq


def format_cursor(position: Position) -> str:
    return f"{position[0]}-{position[1]}"


@dataclass(frozen=True, slots=True)
class Received:
    """A notification as stored for its player: with its position (its cursor)."""

    position: Position
    notification: Notification

    @property
    def cursor(self) -> str:
        return format_cursor(self.position)
