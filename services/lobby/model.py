"""Lobby domain: players and tables, and the rules for seating (pure, no I/O).

Every change to a table is a pure function `Table -> Table` that raises `ServiceError` when the
change is not allowed; the store applies it atomically (compare-and-set on the table version),
so two players racing for the last seat can never both get it.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from services.engine import (
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    PLAYER_COUNTS,
    PLAYER_COUNTS_TEXT,
    BotLevel,
    valid_turn_seconds,
)
from services.errors import Reason, ServiceError

NAME_MIN = 3
NAME_MAX = 24
_NAME_CHARS = re.compile(r"^[\w .\-]+$")
#: Random bytes of a table id (its hex is twice as long).
TABLE_ID_BYTES = 6
#: The id of a table's game: "g" + the table id (what `table_of_game` reads back).
_TABLE_GAME = re.compile(rf"g([0-9a-f]{{{2 * TABLE_ID_BYTES}}})")


class TableStatus(StrEnum):
    OPEN = "open"
    FULL = "full"
    STARTING = "starting"
    STARTED = "started"
    CLOSED = "closed"


def validate_name(raw: str) -> str:
    """A display name: 3-24 letters, digits, spaces, '-', '_', '.'; trimmed; not all spaces."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ServiceError(
            Reason.INVALID_DISPLAY_NAME,
            f"display name must be {NAME_MIN}-{NAME_MAX} characters long",
        )
    if not _NAME_CHARS.match(name):
        raise ServiceError(
            Reason.INVALID_DISPLAY_NAME,
            "display name may use letters, digits, spaces, '-', '_' and '.' only",
        )
    return name


@dataclass(frozen=True, slots=True)
class Player:
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class GameProgress:
    """Where a started game stands for one of its seats (from that seat's view of the game)."""

    round: int
    version: int
    #: The seat must decide now.
    your_turn: bool = False
    #: When the awaited decision is due (Unix ms); None without a turn timer.
    deadline_ms: int | None = None
    finished: bool = False
    #: Once finished: the seat's final VP and rank (1 for the winners, equal VP share a rank).
    final_vp: int = 0
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        """What the store keeps of a finished game's result (no turn, no deadline)."""
        return {
            "round": self.round,
            "version": self.version,
            "finished": self.finished,
            "final_vp": self.final_vp,
            "rank": self.rank,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameProgress:
        return cls(
            round=int(data["round"]),
            version=int(data["version"]),
            finished=bool(data["finished"]),
            final_vp=int(data["final_vp"]),
            rank=int(data["rank"]),
        )


@dataclass(frozen=True, slots=True)
class Seat:
    """A table seat: free (empty player_id), a person, or a bot of a level."""

    player_id: str = ""
    name: str = ""
    bot_level: BotLevel | None = None

    @property
    def free(self) -> bool:
        return not self.player_id


@dataclass(frozen=True, slots=True)
class Table:
    table_id: str
    host: str
    size: int
    seats: tuple[Seat, ...]
    private: bool = False
    invite_code: str = ""
    builder_may_move: bool = False
    auto_start: bool = False
    setup: dict[str, Any] | None = None
    turn_seconds: int = 0
    status: TableStatus = TableStatus.OPEN
    game_id: str = ""
    version: int = 1
    created_at_ms: int = 0
    fill_bots_at_ms: int = 0
    fill_bot_level: BotLevel | None = None
    #: The network peer the table was opened from (its quota of waiting tables).
    opened_from: str = ""

    @property
    def ranked(self) -> bool:
        """Games with bots or a hand-made setup do not count for ratings."""
        return self.setup is None and not any(seat.bot_level for seat in self.seats)

    @property
    def waiting(self) -> bool:
        """Not started and not closed: the table still occupies its host."""
        return self.status in (TableStatus.OPEN, TableStatus.FULL, TableStatus.STARTING)

    @property
    def listed(self) -> bool:
        """Whether the open-tables projection shows this table."""
        return self.status is TableStatus.OPEN and not self.private

    @property
    def members(self) -> frozenset[str]:
        """The people whose games list shows this table: the host and the seated players (a
        closed table concerns nobody any more)."""
        if self.status is TableStatus.CLOSED:
            return frozenset()
        people = {seat.player_id for seat in self.seats if seat.player_id and not seat.bot_level}
        return frozenset({self.host, *people})

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.player_id == player_id and not seat.bot_level:
                return index
        return None

    def free_seats(self) -> list[int]:
        return [index for index, seat in enumerate(self.seats) if seat.free]

    def to_dict(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "host": self.host,
            "size": self.size,
            "seats": [[s.player_id, s.name, s.bot_level or ""] for s in self.seats],
            "private": self.private,
            "invite_code": self.invite_code,
            "builder_may_move": self.builder_may_move,
            "auto_start": self.auto_start,
            "setup": self.setup,
            "turn_seconds": self.turn_seconds,
            "status": str(self.status),
            "game_id": self.game_id,
            "version": self.version,
            "created_at_ms": self.created_at_ms,
            "fill_bots_at_ms": self.fill_bots_at_ms,
            "fill_bot_level": self.fill_bot_level or "",
            "opened_from": self.opened_from,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        return cls(
            table_id=data["table_id"],
            host=data["host"],
            size=int(data["size"]),
            seats=tuple(
                Seat(player_id, name, BotLevel(level) if level else None)
                for player_id, name, level in data["seats"]
            ),
            private=bool(data["private"]),
            invite_code=data["invite_code"],
            builder_may_move=bool(data["builder_may_move"]),
            auto_start=bool(data["auto_start"]),
            setup=data.get("setup"),
            turn_seconds=int(data.get("turn_seconds", 0)),
            status=TableStatus(data["status"]),
            game_id=data["game_id"],
            version=int(data["version"]),
            created_at_ms=int(data["created_at_ms"]),
            fill_bots_at_ms=int(data.get("fill_bots_at_ms", 0)),
            fill_bot_level=BotLevel(data["fill_bot_level"]) if data.get("fill_bot_level") else None,
            opened_from=data.get("opened_from", ""),
        )


def new_table(
    host: Player,
    *,
    size: int,
    private: bool,
    builder_may_move: bool,
    auto_start: bool,
    setup: dict[str, Any] | None,
    turn_seconds: int,
    now_ms: int,
    host_sits_out: bool = False,
    opened_from: str = "",
) -> Table:
    """A table with its host in seat 0 (or with every seat free, when the host sits out)."""
    if size not in PLAYER_COUNTS:
        raise ServiceError(
            Reason.INVALID_TABLE_OPTION, f"a table has {PLAYER_COUNTS_TEXT} seats", field="size"
        )
    if not valid_turn_seconds(turn_seconds):
        raise ServiceError(
            Reason.INVALID_TABLE_OPTION,
            f"turn_seconds must be 0 (no timer) or {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS} (14 days)",
            field="turn_seconds",
        )
    seats = (
        (Seat(),) * size
        if host_sits_out
        else (Seat(host.player_id, host.name),) + (Seat(),) * (size - 1)
    )
    return Table(
        table_id=secrets.token_hex(TABLE_ID_BYTES),
        host=host.player_id,
        size=size,
        seats=seats,
        private=private,
        invite_code=secrets.token_urlsafe(6) if private else "",
        builder_may_move=builder_may_move,
        auto_start=auto_start,
        setup=setup,
        turn_seconds=turn_seconds,
        created_at_ms=now_ms,
        opened_from=opened_from,
    )


def _seated(table: Table, seats: tuple[Seat, ...]) -> Table:
    full = all(not seat.free for seat in seats)
    status = TableStatus.FULL if full else TableStatus.OPEN
    return replace(table, seats=seats, status=status, version=table.version + 1)


def _require_waiting(table: Table) -> None:
    if table.status not in (TableStatus.OPEN, TableStatus.FULL):
        raise ServiceError(
            Reason.SEATS_FIXED, f"table {table.table_id} is {table.status}: seats are fixed"
        )


def join(table: Table, player: Player, invite_code: str) -> Table:
    """Take the first free seat."""
    _require_waiting(table)
    if table.seat_of(player.player_id) is not None:
        raise ServiceError(Reason.ALREADY_SEATED, f"you already sit at table {table.table_id}")
    # Compared as bytes: compare_digest refuses str with anything but ASCII in it (TypeError).
    if table.private and not secrets.compare_digest(
        invite_code.encode(), table.invite_code.encode()
    ):
        raise ServiceError(Reason.WRONG_INVITE_CODE, "wrong invite code for this private table")
    free = table.free_seats()
    if not free:
        raise ServiceError(Reason.TABLE_FULL, f"table {table.table_id} is full")
    seats = list(table.seats)
    seats[free[0]] = Seat(player.player_id, player.name)
    return _seated(table, tuple(seats))


def leave(table: Table, player_id: str) -> Table:
    """Give up a seat; the host's leaving hands the table to the next person, or closes it
    when no person is seated (bots do not count). A host who sits out leaves the same way."""
    _require_waiting(table)
    index = table.seat_of(player_id)
    if index is None and table.host != player_id:
        raise ServiceError(Reason.NOT_SEATED, f"you do not sit at table {table.table_id}")
    seats = list(table.seats)
    if index is not None:
        seats[index] = Seat()
    people = [seat.player_id for seat in seats if seat.player_id and not seat.bot_level]
    if not people and table.host == player_id:
        return replace(
            table, seats=tuple(seats), status=TableStatus.CLOSED, version=table.version + 1
        )
    host = table.host if table.host != player_id or not people else people[0]
    return replace(_seated(table, tuple(seats)), host=host)


def add_bot(table: Table, player_id: str, level: BotLevel) -> Table:
    """The host seats a bot in the first free seat."""
    require_host(table, player_id)
    return fill_with_bot(table, level)


def fill_with_bot(table: Table, level: BotLevel) -> Table:
    _require_waiting(table)
    free = table.free_seats()
    if not free:
        raise ServiceError(Reason.TABLE_FULL, f"table {table.table_id} is full")
    seats = list(table.seats)
    seats[free[0]] = Seat(f"bot-{secrets.token_hex(4)}", f"Bot {free[0] + 1} ({level})", level)
    return _seated(table, tuple(seats))


def fill_all_with_bots(table: Table) -> Table:
    while table.free_seats():
        table = fill_with_bot(table, table.fill_bot_level or BotLevel.NORMAL)
    return replace(table, fill_bots_at_ms=0)


def require_host(table: Table, player_id: str) -> None:
    if table.host != player_id:
        raise ServiceError(Reason.NOT_HOST, "only the table's host may do that")


def game_id_of(table_id: str) -> str:
    """The id of the table's game, fixed when the table starts (so starting twice is one game)."""
    return f"g{table_id}"


def table_of_game(game_id: str) -> str:
    """The table whose game `game_id` is; "" for a game the lobby did not start (a sandbox)."""
    match = _TABLE_GAME.fullmatch(game_id)
    return match.group(1) if match else ""


def begin_start(table: Table, player_id: str | None) -> Table:
    """FULL -> STARTING (seats fixed); `player_id` None means the auto-start of a full table."""
    if player_id is not None:  # checked first: a started table is no business of a guest's
        require_host(table, player_id)
    if table.status in (TableStatus.STARTING, TableStatus.STARTED):
        return table
    if table.status is not TableStatus.FULL:
        raise ServiceError(
            Reason.TABLE_NOT_FULL,
            f"table {table.table_id} has {len(table.free_seats())} free seats: "
            "fill them (or add bots) before starting",
        )
    return replace(
        table,
        status=TableStatus.STARTING,
        game_id=game_id_of(table.table_id),
        version=table.version + 1,
    )


def finish_start(table: Table) -> Table:
    if table.status is TableStatus.STARTED:
        return table
    return replace(table, status=TableStatus.STARTED, version=table.version + 1)
