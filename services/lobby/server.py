"""The Lobby gRPC service: a thin entry point over `LobbyApplication`.

Each handler decodes its request, calls the application and encodes the table or session; the
mutating ones run once per request id (`requests.py`, through `_once`). Refusals are raised
with their reasons and leave through the rpc edge's one table: INVALID_ARGUMENT (bad name, size,
level, id), NOT_FOUND (unknown table), PERMISSION_DENIED (not the host, wrong invite code),
FAILED_PRECONDITION (full table, not seated, not started, a reused request id), ALREADY_EXISTS
(already seated), UNAUTHENTICATED (token, credential), RESOURCE_EXHAUSTED (limits),
UNAVAILABLE (retry); and for WatchNotifications OUT_OF_RANGE (an expired cursor) and
RESOURCE_EXHAUSTED (too many streams, a client that does not read).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from google.protobuf.message import Message

from services.api.verrater.v1 import lobby_pb2, lobby_pb2_grpc
from services.codec import bot_level_from_proto, bot_level_to_proto
from services.engine import BotLevel
from services.errors import Reason, ServiceError
from services.notifications import NotificationStreams, received_to_proto
from services.rpc import (
    Context,
    Identity,
    TrustedProxies,
    authenticated,
    checked_id,
    cutting_off,
    peer_address,
    send_headers,
)

from .gateway import setup_to_dict
from .model import Table, TableStatus
from .requests import GUEST_SCOPE, Requests
from .service import LobbyApplication, MyGame, SignedIn

_STATUS = {
    TableStatus.OPEN: lobby_pb2.TABLE_STATUS_OPEN,
    TableStatus.FULL: lobby_pb2.TABLE_STATUS_FULL,
    TableStatus.STARTING: lobby_pb2.TABLE_STATUS_STARTING,
    TableStatus.STARTED: lobby_pb2.TABLE_STATUS_STARTED,
    TableStatus.CLOSED: lobby_pb2.TABLE_STATUS_CLOSED,
}


def _level(wire: int, field: str) -> BotLevel:
    """A requested bot level; unspecified is NORMAL."""
    return bot_level_from_proto(wire, field) or BotLevel.NORMAL


def _table_id(value: str) -> str:
    return checked_id(value, "table_id")


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
                bot_level=bot_level_to_proto(seat.bot_level),
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


def _session(signed_in: SignedIn) -> lobby_pb2.Session:
    return lobby_pb2.Session(
        player_id=signed_in.player.player_id,
        display_name=signed_in.player.name,
        token=signed_in.token.token,
        expires_at=signed_in.token.expires_at,
        credential=signed_in.credential,
    )


def _my_game(game: MyGame, viewer: str) -> lobby_pb2.MyGame:
    table, progress = game.table, game.progress
    entry = lobby_pb2.MyGame(
        table_id=table.table_id,
        game_id=table.game_id if table.status is TableStatus.STARTED else "",
        seat=game.seat,
        status=_STATUS[table.status],
        table=table_to_proto(table, viewer),
    )
    if progress is not None:
        entry.round = progress.round
        entry.version = progress.version
        entry.your_turn = progress.your_turn
        entry.finished = progress.finished
        entry.final_vp = progress.final_vp
        entry.rank = progress.rank
        if progress.deadline_ms is not None:
            entry.deadline.FromMilliseconds(progress.deadline_ms)
    return entry


Servicer = TypeVar("Servicer", bound="LobbyServicer")
Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response", bound=Message)
Handler = Callable[[Servicer, Request, Context], Awaitable[Response]]


def _once(
    scope: Callable[[], str],
) -> Callable[[Handler[Servicer, Request, Response]], Handler[Servicer, Request, Response]]:
    """The handler, run once per request id of the caller `scope()` names: a retry answers the
    first copy's answer (see requests.py). Every mutating RPC has its own `<Name>Response`."""

    def decorate(
        handler: Handler[Servicer, Request, Response],
    ) -> Handler[Servicer, Request, Response]:
        response_type: type[Response] = getattr(lobby_pb2, f"{handler.__name__}Response")

        @functools.wraps(handler)
        async def once(self: Servicer, request: Request, context: Context) -> Response:
            return await self.requests.once(
                scope(), request, response_type, lambda: handler(self, request, context)
            )

        return once

    return decorate


def _player() -> Identity:
    """The caller, who must hold a player token: every lobby call acts for the player's account
    (tables, credential, tokens, games, notifications), which a seat token, handed to whatever
    plays that one seat, must not reach."""
    identity = authenticated()
    if identity.game_id is not None:
        raise ServiceError(
            Reason.PLAYER_TOKEN_REQUIRED,
            "this is a seat token, good for its game only: lobby calls need your player token "
            "(from RegisterGuest, SignIn or RefreshToken with a player token)",
        )
    return identity


def _caller_id() -> str:
    return _player().subject


def _guest_scope() -> str:
    return GUEST_SCOPE


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    """The Lobby service's RPCs."""

    def __init__(
        self, app: LobbyApplication, proxies: TrustedProxies, notifications: NotificationStreams
    ) -> None:
        self.app = app
        self.requests = Requests(app.store)
        self._proxies = proxies
        self.notifications = notifications

    def _peer(self, context: Context) -> str:
        return peer_address(context, self._proxies)

    @_once(_guest_scope)
    async def RegisterGuest(
        self, request: lobby_pb2.RegisterGuestRequest, context: Context
    ) -> lobby_pb2.RegisterGuestResponse:
        """A new guest player, their token and their credential (no token needed)."""
        signed_in = await self.app.register_guest(request.display_name, self._peer(context))
        return lobby_pb2.RegisterGuestResponse(session=_session(signed_in))

    async def SignIn(
        self, request: lobby_pb2.SignInRequest, context: Context
    ) -> lobby_pb2.SignInResponse:
        """A fresh token for the holder of a player's credential (no token needed)."""
        signed_in = await self.app.sign_in(
            request.player_id, request.credential, self._peer(context)
        )
        return lobby_pb2.SignInResponse(session=_session(signed_in))

    async def RefreshToken(
        self, request: lobby_pb2.RefreshTokenRequest, context: Context
    ) -> lobby_pb2.RefreshTokenResponse:
        """A fresh token for the caller."""
        return lobby_pb2.RefreshTokenResponse(session=_session(await self.app.refresh(_player())))

    @_once(_caller_id)
    async def RotateCredential(
        self, request: lobby_pb2.RotateCredentialRequest, context: Context
    ) -> lobby_pb2.RotateCredentialResponse:
        """A new credential for the caller; the old one stops working at once."""
        signed_in = await self.app.rotate_credential(_player())
        return lobby_pb2.RotateCredentialResponse(session=_session(signed_in))

    @_once(_caller_id)
    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        """Open a table with the caller as host in seat 0."""
        identity = _player()
        table = await self.app.create_table(
            identity,
            peer=self._peer(context),
            size=request.size,
            private=request.private,
            builder_may_move=request.builder_may_move,
            auto_start=request.auto_start,
            setup=setup_to_dict(request.setup) if request.HasField("setup") else None,
            turn_seconds=request.turn_seconds,
            host_sits_out=request.host_sits_out,
        )
        return lobby_pb2.CreateTableResponse(table=table_to_proto(table, identity.subject))

    @_once(_caller_id)
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        """Take a free seat."""
        identity = _player()
        table = await self.app.join(identity, _table_id(request.table_id), request.invite_code)
        return lobby_pb2.JoinTableResponse(table=table_to_proto(table, identity.subject))

    @_once(_caller_id)
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        """Give up a seat before the game starts."""
        identity = _player()
        table = await self.app.leave(identity, _table_id(request.table_id))
        return lobby_pb2.LeaveTableResponse(table=table_to_proto(table, identity.subject))

    @_once(_caller_id)
    async def AddBot(
        self, request: lobby_pb2.AddBotRequest, context: Context
    ) -> lobby_pb2.AddBotResponse:
        """The host seats a bot."""
        identity = _player()
        table = await self.app.add_bot(
            identity, _table_id(request.table_id), _level(request.level, "level")
        )
        return lobby_pb2.AddBotResponse(table=table_to_proto(table, identity.subject))

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        """Open public tables, oldest first."""
        identity = _player()
        tables = await self.app.list_tables(request.size or None, request.limit)
        return lobby_pb2.ListTablesResponse(
            tables=[table_to_proto(t, identity.subject) for t in tables]
        )

    @_once(_caller_id)
    async def QuickMatch(
        self, request: lobby_pb2.QuickMatchRequest, context: Context
    ) -> lobby_pb2.QuickMatchResponse:
        """Join the oldest fitting open table, else open one."""
        identity = _player()
        if not 0 <= request.fill_with_bots_after_seconds <= 3600:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION,
                "bot fill wait must be 0-3600 seconds",
                field="fill_with_bots_after_seconds",
            )
        table = await self.app.quick_match(
            identity,
            request.size,
            request.fill_with_bots_after_seconds,
            _level(request.bot_level, "bot_level"),
            peer=self._peer(context),
        )
        return lobby_pb2.QuickMatchResponse(table=table_to_proto(table, identity.subject))

    @_once(_caller_id)
    async def StartGame(
        self, request: lobby_pb2.StartGameRequest, context: Context
    ) -> lobby_pb2.StartGameResponse:
        """Start a full table's game (the host only); starting twice creates one game."""
        identity = _player()
        table = await self.app.start(identity, _table_id(request.table_id))
        return lobby_pb2.StartGameResponse(table=table_to_proto(table, identity.subject))

    async def GetSeatToken(
        self, request: lobby_pb2.GetSeatTokenRequest, context: Context
    ) -> lobby_pb2.GetSeatTokenResponse:
        """The caller's seat token for the started game of their table."""
        table, seat, issued = await self.app.seat_token(_player(), _table_id(request.table_id))
        return lobby_pb2.GetSeatTokenResponse(
            game_id=table.game_id, seat=seat, token=issued.token, expires_at=issued.expires_at
        )

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        """One table, as the caller may see it."""
        identity = _player()
        return lobby_pb2.GetTableResponse(
            table=table_to_proto(
                await self.app.table(_table_id(request.table_id)), identity.subject
            )
        )

    async def WatchTable(
        self, request: lobby_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[lobby_pb2.WatchTableResponse]:
        """The table now and at every change, until its game starts."""
        identity = _player()
        async for table in self.app.watch(_table_id(request.table_id)):
            yield lobby_pb2.WatchTableResponse(table=table_to_proto(table, identity.subject))

    async def ListMyGames(
        self, request: lobby_pb2.ListMyGamesRequest, context: Context
    ) -> lobby_pb2.ListMyGamesResponse:
        """The caller's running games, open tables and newest finished games."""
        identity = _player()
        games = await self.app.my_games(identity)
        return lobby_pb2.ListMyGamesResponse(
            games=[_my_game(game, identity.subject) for game in games]
        )

    async def WatchNotifications(
        self, request: lobby_pb2.WatchNotificationsRequest, context: Context
    ) -> AsyncIterator[lobby_pb2.WatchNotificationsResponse]:
        """The caller's notifications after `request.cursor` (empty: from now), then live."""
        identity = _player()
        await send_headers(context)  # so that a cut can end the stream (`cut_off`)
        async for received in self.notifications.watch(
            identity.subject, request.cursor, on_cut=cutting_off(context)
        ):
            yield lobby_pb2.WatchNotificationsResponse(notification=received_to_proto(received))
