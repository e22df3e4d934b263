"""From a name to a seat token, through the Lobby service: register a guest, open a table with
bots (or join one, or quick-match), wait until the game starts, fetch the seat token."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2

from .connection import ClientError, Connection, ServerRefused

LEVELS = {
    "easy": events_pb2.BOT_LEVEL_EASY,
    "normal": events_pb2.BOT_LEVEL_NORMAL,
    "hard": events_pb2.BOT_LEVEL_HARD,
}
#: A quick-match table this client opens fills its free seats with bots after this wait.
QUICK_FILL_SECONDS = 10
#: How long the first call waits for an unreachable server before saying so.
FIRST_CONTACT_PATIENCE_S = 5.0
_NAME = re.compile(r"^[\w .\-]{3,24}$")


@dataclass(frozen=True, slots=True)
class TableChoice:
    """How `verrater play` finds its table."""

    players: int = 4
    bots: int | None = None  # None: fill every other seat
    level: str = "normal"
    join: str | None = None  # TABLE_ID or TABLE_ID:INVITE_CODE
    quick: bool = False
    turn_seconds: int = 120

    def __post_init__(self) -> None:
        if self.bots is not None and not 0 <= self.bots <= self.players - 1:
            raise ClientError(
                f"a table of {self.players} has room for 0 to {self.players - 1} bots"
            )


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """A seat in a started game and the token that acts for it."""

    game_id: str
    seat: int
    token: str
    table_id: str


def default_name(login: str) -> str:
    """A display name the lobby accepts, from the login name when that fits."""
    return login if _NAME.match(login) and login.strip() else "Player"


def register(conn: Connection, display_name: str) -> lobby_pb2.Session:
    """A guest session; the connection calls with its token from now on."""
    session = conn.call(
        conn.lobby.RegisterGuest,
        lobby_pb2.RegisterGuestRequest(display_name=display_name),
        patience_s=FIRST_CONTACT_PATIENCE_S,
        idempotent=False,
    ).session
    conn.token = session.token
    return session


def open_table(conn: Connection, choice: TableChoice) -> lobby_pb2.Table:
    """Open, join or quick-match a table as `choice` says."""
    if choice.join:
        table_id, _, code = choice.join.partition(":")
        return conn.call(
            conn.lobby.JoinTable,
            lobby_pb2.JoinTableRequest(table_id=table_id.strip(), invite_code=code.strip()),
            idempotent=False,
        ).table
    level = LEVELS[choice.level]
    if choice.quick:
        return conn.call(
            conn.lobby.QuickMatch,
            lobby_pb2.QuickMatchRequest(
                size=choice.players,
                fill_with_bots_after_seconds=QUICK_FILL_SECONDS,
                bot_level=level,
            ),
            idempotent=False,
        ).table
    bots = choice.players - 1 if choice.bots is None else choice.bots
    table = conn.call(
        conn.lobby.CreateTable,
        lobby_pb2.CreateTableRequest(
            size=choice.players, auto_start=True, turn_seconds=choice.turn_seconds
        ),
        idempotent=False,
    ).table
    for _ in range(bots):
        table = conn.call(
            conn.lobby.AddBot,
            lobby_pb2.AddBotRequest(table_id=table.table_id, level=level),
            idempotent=False,
        ).table
    return table


def wait_for_start(
    conn: Connection, table: lobby_pb2.Table, say: Callable[[str], None]
) -> lobby_pb2.Table:
    """Follow the table (WatchTable) until its game has started, saying who sits down."""
    seen = -1
    request = lobby_pb2.WatchTableRequest(table_id=table.table_id)
    if table.status != lobby_pb2.TABLE_STATUS_STARTED:
        # The stream sends the table now and at every change, and ends once the game runs.
        for update in conn.stream(conn.lobby.WatchTable, lambda: request):
            table = update.table
            if table.status in (lobby_pb2.TABLE_STATUS_STARTED, lobby_pb2.TABLE_STATUS_CLOSED):
                break
            if table.version != seen:
                seen = table.version
                say(_waiting(table))
    if table.status == lobby_pb2.TABLE_STATUS_CLOSED:
        raise ServerRefused(grpc.StatusCode.FAILED_PRECONDITION, "the table was closed")
    if table.status != lobby_pb2.TABLE_STATUS_STARTED:
        raise ServerRefused(grpc.StatusCode.FAILED_PRECONDITION, "the table's game did not start")
    return table


def _waiting(table: lobby_pb2.Table) -> str:
    free = sum(1 for seat in table.seats if not seat.player_id)
    seated = ", ".join(seat.display_name for seat in table.seats if seat.player_id) or "nobody"
    join = table.table_id + (f":{table.invite_code}" if table.invite_code else "")
    if free:
        return (
            f"Table {table.table_id}: {seated} seated, {free} seat(s) free. Others join with "
            f"`verrater play --join {join}`."
        )
    if table.auto_start:
        return f"Table {table.table_id} is full ({seated}); the game is starting."
    return f"Table {table.table_id} is full ({seated}); waiting for the host to start it."


def take_seat(conn: Connection, choice: TableChoice, say: Callable[[str], None]) -> SeatTicket:
    """Open / join the table, wait for the start, and fetch this player's seat token."""
    table = open_table(conn, choice)
    try:
        table = wait_for_start(conn, table, say)
    except KeyboardInterrupt:
        leave_table(conn, table.table_id)
        raise
    seat = conn.call(
        conn.lobby.GetSeatToken, lobby_pb2.GetSeatTokenRequest(table_id=table.table_id)
    )
    return SeatTicket(seat.game_id, seat.seat, seat.token, table.table_id)


def leave_table(conn: Connection, table_id: str) -> None:
    """Give up the seat of a table that has not started (best effort: we are leaving anyway)."""
    with contextlib.suppress(grpc.RpcError):
        conn.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=conn.metadata(), timeout=3
        )
