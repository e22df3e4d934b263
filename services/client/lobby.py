"""From a name to a seat token, through the Lobby service: sign in with the stored credential
(or register a guest and store it), find the running games to go back to, open a table with
bots (or join one, or quick-match), wait until the game starts, fetch the seat token.

Every lobby call that changes something carries a request id, so a retry after a lost answer
changes nothing more (docs/CLIENTS.md, "Retrying lobby calls").
"""

from __future__ import annotations

import contextlib
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2

from .connection import NO_AUTH, Auth, ClientError, Connection, Issued, ServerRefused
from .identity import IdentityError, IdentityStore, StoredIdentity
from .shell import verrater_command

LEVELS = {
    "easy": events_pb2.BOT_LEVEL_EASY,
    "normal": events_pb2.BOT_LEVEL_NORMAL,
    "hard": events_pb2.BOT_LEVEL_HARD,
    "expert": events_pb2.BOT_LEVEL_EXPERT,
}
#: A quick-match table this client opens fills its free seats with bots after this wait.
QUICK_FILL_SECONDS = 10
#: The turn timer of a new table where people may join (other people wait for each other),
#: unless the player asks for another. A table of the player and bots has none: nobody waits.
PEOPLE_TURN_SECONDS = 120
#: How long the first call waits for an unreachable server before saying so.
FIRST_CONTACT_PATIENCE_S = 5.0
#: A token with less life than this left is renewed by SignIn rather than RefreshToken (which
#: needs the token to be valid when it arrives).
REFRESH_NEEDS_S = 1.0
CREDENTIAL_INVALID = "CREDENTIAL_INVALID"
_NAME = re.compile(r"^[\w .\-]{3,24}$")


@dataclass(frozen=True, slots=True)
class TableChoice:
    """How `verrater play` finds its table."""

    players: int = 4
    bots: int | None = None  # None: fill every other seat
    level: str = "normal"
    join: str | None = None  # TABLE_ID or TABLE_ID:INVITE_CODE
    quick: bool = False
    turn_seconds: int | None = None  # None: see `timer`

    def __post_init__(self) -> None:
        if self.bots is not None and not 0 <= self.bots <= self.players - 1:
            raise ClientError(
                f"a table of {self.players} has room for 0 to {self.players - 1} bots"
            )

    @property
    def timer(self) -> int:
        """The turn timer of a new table: as asked, else none when every other seat is a bot
        (nobody else waits for the player), else PEOPLE_TURN_SECONDS."""
        if self.turn_seconds is not None:
            return self.turn_seconds
        only_bots = self.bots is None or self.bots == self.players - 1
        return 0 if only_bots else PEOPLE_TURN_SECONDS


@dataclass(frozen=True, slots=True)
class Player:
    """The signed-in player: their token (renewing itself) and whether the credential is kept,
    so that another run of `verrater play` gets back into their games."""

    player_id: str
    display_name: str
    auth: Auth
    returning: bool  # signed in with a stored credential
    kept: bool  # the credential is stored for this server


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """A seat in a started game and the token that acts for it (renewing itself)."""

    game_id: str
    seat: int
    table_id: str
    auth: Auth


def default_name(login: str) -> str:
    """A display name the lobby accepts, from the login name when that fits."""
    return login if _NAME.match(login) and login.strip() else "Player"


def request_id() -> str:
    """A fresh request id: random, so that nobody else's retry can answer ours."""
    return uuid.uuid4().hex


def _player_auth(conn: Connection, identity: StoredIdentity, first: Issued) -> Auth:
    """The player's token: RefreshToken while it is valid, SignIn with the credential after."""

    def renew(current: Issued | None) -> Issued:
        if current is not None and current.expires_at - time.time() > REFRESH_NEEDS_S:
            with contextlib.suppress(ServerRefused):
                session = conn.call(
                    conn.lobby.RefreshToken,
                    lobby_pb2.RefreshTokenRequest(),
                    auth=Auth.fixed(current.token),
                ).session
                return Issued(session.token, session.expires_at)
        session = conn.call(
            conn.lobby.SignIn,
            lobby_pb2.SignInRequest(player_id=identity.player_id, credential=identity.credential),
            auth=NO_AUTH,
        ).session
        return Issued(session.token, session.expires_at)

    return Auth(renew, first)


def sign_in(
    conn: Connection, store: IdentityStore, display_name: str, say: Callable[[str], None]
) -> Player:
    """Sign in with the credential stored for this server, or register a guest named
    `display_name` and store its credential before anything else (it is shown only once)."""
    try:
        stored = store.load(conn.address)
    except IdentityError as problem:
        say(f"{problem}: registering a new player.")
        stored = None
    if stored is not None:
        try:
            session = conn.call(
                conn.lobby.SignIn,
                lobby_pb2.SignInRequest(player_id=stored.player_id, credential=stored.credential),
                auth=NO_AUTH,
                patience_s=FIRST_CONTACT_PATIENCE_S,
            ).session
        except ServerRefused as refusal:
            if refusal.reason != CREDENTIAL_INVALID:
                raise
            say(
                f"The server at {conn.address} no longer knows the player stored for it "
                "(a new server, or the credential was replaced): registering a new player."
            )
        else:
            identity = StoredIdentity(stored.player_id, stored.credential, session.display_name)
            first = Issued(session.token, session.expires_at)
            auth = _player_auth(conn, identity, first)
            return Player(identity.player_id, session.display_name, auth, True, True)
    session = conn.call(
        conn.lobby.RegisterGuest,
        lobby_pb2.RegisterGuestRequest(display_name=display_name, request_id=request_id()),
        auth=NO_AUTH,
        patience_s=FIRST_CONTACT_PATIENCE_S,
    ).session
    identity = StoredIdentity(session.player_id, session.credential, session.display_name)
    kept = True
    try:
        store.save(conn.address, identity)
    except IdentityError as problem:
        kept = False
        say(f"{problem}: without it, a game you leave cannot be resumed from another run.")
    auth = _player_auth(conn, identity, Issued(session.token, session.expires_at))
    return Player(identity.player_id, session.display_name, auth, False, kept)


def running_games(conn: Connection, player: Player) -> list[lobby_pb2.MyGame]:
    """The games the player sits in that are still running, newest first."""
    games = conn.call(
        conn.lobby.ListMyGames, lobby_pb2.ListMyGamesRequest(), auth=player.auth
    ).games
    return [
        game
        for game in games
        if game.status == lobby_pb2.TABLE_STATUS_STARTED
        and not game.finished
        and game.HasField("seat")
    ]


def seat_ticket(conn: Connection, player: Player, table_id: str) -> SeatTicket:
    """The seat token of the player's seat at a started table, renewed through the lobby."""

    def renew(current: Issued | None) -> Issued:
        seat = conn.call(
            conn.lobby.GetSeatToken,
            lobby_pb2.GetSeatTokenRequest(table_id=table_id),
            auth=player.auth,
        )
        return Issued(seat.token, seat.expires_at)

    seat = conn.call(
        conn.lobby.GetSeatToken, lobby_pb2.GetSeatTokenRequest(table_id=table_id), auth=player.auth
    )
    auth = Auth(renew, Issued(seat.token, seat.expires_at))
    return SeatTicket(seat.game_id, seat.seat, table_id, auth)


def open_table(conn: Connection, player: Player, choice: TableChoice) -> lobby_pb2.Table:
    """Open, join or quick-match a table as `choice` says."""
    auth = player.auth
    if choice.join:
        table_id, _, code = choice.join.partition(":")
        return conn.call(
            conn.lobby.JoinTable,
            lobby_pb2.JoinTableRequest(
                table_id=table_id.strip(), invite_code=code.strip(), request_id=request_id()
            ),
            auth=auth,
        ).table
    level = LEVELS[choice.level]
    if choice.quick:
        return conn.call(
            conn.lobby.QuickMatch,
            lobby_pb2.QuickMatchRequest(
                size=choice.players,
                fill_with_bots_after_seconds=QUICK_FILL_SECONDS,
                bot_level=level,
                request_id=request_id(),
            ),
            auth=auth,
        ).table
    bots = choice.players - 1 if choice.bots is None else choice.bots
    table = conn.call(
        conn.lobby.CreateTable,
        lobby_pb2.CreateTableRequest(
            size=choice.players,
            auto_start=True,
            turn_seconds=choice.timer,
            request_id=request_id(),
        ),
        auth=auth,
    ).table
    for _ in range(bots):
        table = conn.call(
            conn.lobby.AddBot,
            lobby_pb2.AddBotRequest(table_id=table.table_id, level=level, request_id=request_id()),
            auth=auth,
        ).table
    return table


def wait_for_start(
    conn: Connection, player: Player, table: lobby_pb2.Table, say: Callable[[str], None]
) -> lobby_pb2.Table:
    """Follow the table (WatchTable) until its game has started, saying who sits down."""
    seen = -1
    request = lobby_pb2.WatchTableRequest(table_id=table.table_id)
    if table.status != lobby_pb2.TABLE_STATUS_STARTED:
        conn.auth = player.auth
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
            f"`{verrater_command()} play --join {join}`."
        )
    if table.auto_start:
        return f"Table {table.table_id} is full ({seated}); the game is starting."
    return f"Table {table.table_id} is full ({seated}); waiting for the host to start it."


def take_seat(
    conn: Connection, player: Player, choice: TableChoice, say: Callable[[str], None]
) -> SeatTicket:
    """Open / join the table, wait for the start, and fetch this player's seat token."""
    table = open_table(conn, player, choice)
    try:
        table = wait_for_start(conn, player, table, say)
    except KeyboardInterrupt:
        leave_table(conn, player, table.table_id)
        raise
    return seat_ticket(conn, player, table.table_id)


def leave_table(conn: Connection, player: Player, table_id: str) -> None:
    """Give up the seat of a table that has not started (best effort: we are leaving anyway)."""
    with contextlib.suppress(grpc.RpcError, ClientError):
        conn.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=table_id, request_id=request_id()),
            metadata=player.auth.metadata(),
            timeout=3,
        )
