"""The Lobby gRPC service: a thin entry point over `LobbyApplication`.

Refusals map to statuses a client can act on: INVALID_ARGUMENT (bad name, size, level),
NOT_FOUND (unknown table), PERMISSION_DENIED (not the host, wrong invite code),
FAILED_PRECONDITION (full table, not seated, not started), ALREADY_EXISTS (already seated),
UNAUTHENTICATED (missing, forged or expired token; the interceptor), UNAVAILABLE (retry).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NoReturn, TypeVar

import grpc

from services.api.verrater.v1 import lobby_pb2, lobby_pb2_grpc
from services.rpc.interceptor import Context, caller
from services.rpc.tokens import Identity

from .gateway import setup_to_dict
from .model import ErrorKind, LobbyError, Player, Table, TableStatus
from .service import IssuedToken, LobbyApplication
from .store import LobbyUnavailable

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_STATUS = {
    TableStatus.OPEN: lobby_pb2.TABLE_STATUS_OPEN,
    TableStatus.FULL: lobby_pb2.TABLE_STATUS_FULL,
    TableStatus.STARTING: lobby_pb2.TABLE_STATUS_FULL,
    TableStatus.STARTED: lobby_pb2.TABLE_STATUS_STARTED,
    TableStatus.CLOSED: lobby_pb2.TABLE_STATUS_CLOSED,
}
_LEVELS: dict[int, str] = {
    lobby_pb2.BOT_LEVEL_EASY: "easy",
    lobby_pb2.BOT_LEVEL_NORMAL: "normal",
    lobby_pb2.BOT_LEVEL_HARD: "hard",
}
_LEVEL_WIRE: dict[str, lobby_pb2.BotLevel.ValueType] = {
    name: lobby_pb2.BotLevel.ValueType(wire) for wire, name in _LEVELS.items()
}
_CODES = {kind: getattr(grpc.StatusCode, kind.value) for kind in ErrorKind}

T = TypeVar("T")


def _level(wire: int, *, default: str | None = None) -> str:
    if wire == lobby_pb2.BOT_LEVEL_UNSPECIFIED and default is not None:
        return default
    if wire not in _LEVELS:
        raise LobbyError(ErrorKind.INVALID, "bot level must be EASY, NORMAL or HARD")
    return _LEVELS[wire]


def _table_id(value: str) -> str:
    if not TABLE_ID.match(value):
        raise LobbyError(ErrorKind.INVALID, "table_id must be 1-64 letters, digits, '-' or '_'")
    return value


def _identity() -> Identity:
    identity = caller()
    if identity is None:
        raise LobbyError(ErrorKind.DENIED, "this call needs a valid token")
    return identity


def table_to_proto(table: Table, viewer: str | None) -> lobby_pb2.Table:
    """A table as `viewer` may see it: the invite code only for the seated and the host."""
    insider = viewer is not None and (table.host == viewer or table.seat_of(viewer) is not None)
    return lobby_pb2.Table(
        table_id=table.table_id,
        host_player_id=table.host,
        size=table.size,
        seats=[
            lobby_pb2.TableSeat(
                seat=index,
                player_id=seat.player_id,
                display_name=seat.name,
                bot_level=_LEVEL_WIRE.get(seat.bot_level, lobby_pb2.BOT_LEVEL_UNSPECIFIED),
            )
            for index, seat in enumerate(table.seats)
        ],
        private=table.private,
        invite_code=table.invite_code if insider else "",
        builder_may_move=table.builder_may_move,
        auto_start=table.auto_start,
        status=_STATUS[table.status],
        game_id=table.game_id if table.status is TableStatus.STARTED else "",
        ranked=table.ranked,
        version=table.version,
        created_at_ms=table.created_at_ms,
        turn_seconds=table.turn_seconds,
    )


def _session(player: Player, issued: IssuedToken) -> lobby_pb2.Session:
    return lobby_pb2.Session(
        player_id=player.player_id,
        display_name=player.name,
        token=issued.token,
        expires_at=issued.expires_at,
    )


async def _answer(context: Context, work: Callable[[], Awaitable[T]]) -> T:
    try:
        return await work()
    except LobbyError as error:
        await _abort(context, _CODES[error.kind], error.message)
    except LobbyUnavailable as error:
        await _abort(context, grpc.StatusCode.UNAVAILABLE, str(error))


async def _abort(context: Context, code: grpc.StatusCode, message: str) -> NoReturn:
    await context.abort(code, message)
    raise AssertionError("context.abort returns only by raising")


class LobbyServicer(lobby_pb2_grpc.LobbyServicer):
    """The Lobby service's RPCs."""

    def __init__(self, app: LobbyApplication) -> None:
        self.app = app

    async def RegisterGuest(
        self, request: lobby_pb2.RegisterGuestRequest, context: Context
    ) -> lobby_pb2.Session:
        """A new guest player and their token (no token needed)."""

        async def work() -> lobby_pb2.Session:
            player, issued = await self.app.register_guest(request.display_name)
            return _session(player, issued)

        return await _answer(context, work)

    async def RefreshToken(
        self, request: lobby_pb2.RefreshTokenRequest, context: Context
    ) -> lobby_pb2.Session:
        """A fresh token for the caller."""

        async def work() -> lobby_pb2.Session:
            player, issued = await self.app.refresh(_identity())
            return _session(player, issued)

        return await _answer(context, work)

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.Table:
        """Open a table with the caller as host in seat 0."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            table = await self.app.create_table(
                identity,
                size=request.size,
                private=request.private,
                builder_may_move=request.builder_may_move,
                auto_start=request.auto_start,
                setup=setup_to_dict(request.setup) if request.HasField("setup") else None,
                turn_seconds=request.turn_seconds,
                host_sits_out=request.host_sits_out,
            )
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.Table:
        """Take a free seat."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            table = await self.app.join(identity, _table_id(request.table_id), request.invite_code)
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.Table:
        """Give up a seat before the game starts."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            table = await self.app.leave(identity, _table_id(request.table_id))
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def AddBot(self, request: lobby_pb2.AddBotRequest, context: Context) -> lobby_pb2.Table:
        """The host seats a bot."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            table = await self.app.add_bot(
                identity, _table_id(request.table_id), _level(request.level)
            )
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        """Open public tables, oldest first."""

        async def work() -> lobby_pb2.ListTablesResponse:
            identity = _identity()
            tables = await self.app.list_tables(request.size or None, request.limit)
            return lobby_pb2.ListTablesResponse(
                tables=[table_to_proto(t, identity.subject) for t in tables]
            )

        return await _answer(context, work)

    async def QuickMatch(
        self, request: lobby_pb2.QuickMatchRequest, context: Context
    ) -> lobby_pb2.Table:
        """Join the oldest fitting open table, else open one."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            if not 0 <= request.fill_with_bots_after_seconds <= 3600:
                raise LobbyError(ErrorKind.INVALID, "bot fill wait must be 0-3600 seconds")
            table = await self.app.quick_match(
                identity,
                request.size,
                request.fill_with_bots_after_seconds,
                _level(request.bot_level, default="normal"),
            )
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def StartGame(
        self, request: lobby_pb2.StartGameRequest, context: Context
    ) -> lobby_pb2.Table:
        """Start a full table's game (the host only); starting twice creates one game."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            table = await self.app.start(identity, _table_id(request.table_id))
            return table_to_proto(table, identity.subject)

        return await _answer(context, work)

    async def GetSeatToken(
        self, request: lobby_pb2.GetSeatTokenRequest, context: Context
    ) -> lobby_pb2.SeatToken:
        """The caller's seat token for the started game of their table."""

        async def work() -> lobby_pb2.SeatToken:
            table, seat, issued = await self.app.seat_token(
                _identity(), _table_id(request.table_id)
            )
            return lobby_pb2.SeatToken(
                game_id=table.game_id, seat=seat, token=issued.token, expires_at=issued.expires_at
            )

        return await _answer(context, work)

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.Table:
        """One table, as the caller may see it."""

        async def work() -> lobby_pb2.Table:
            identity = _identity()
            return table_to_proto(
                await self.app.table(_table_id(request.table_id)), identity.subject
            )

        return await _answer(context, work)

    async def WatchTable(
        self, request: lobby_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[lobby_pb2.Table]:
        """The table now and at every change, until its game starts."""
        try:
            identity = _identity()
            async for table in self.app.watch(_table_id(request.table_id)):
                yield table_to_proto(table, identity.subject)
        except LobbyError as error:
            await _abort(context, _CODES[error.kind], error.message)
        except LobbyUnavailable as error:
            await _abort(context, grpc.StatusCode.UNAVAILABLE, str(error))
