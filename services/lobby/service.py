"""The lobby application service: guests, tables, quick match, and starting games.

A game starts in three steps so that starting twice creates one game and a crash in between
loses nothing: the table goes FULL -> STARTING (seats fixed, the game id fixed as "g" + table
id), the game is created in the game service (a repeat answers ALREADY_EXISTS, which is fine),
then STARTING -> STARTED. Any later StartGame on a STARTING table simply finishes the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from services.engine import PLAYER_COUNTS, PLAYER_COUNTS_TEXT, BotLevel, SeatAssignment
from services.errors import Reason, ServiceError
from services.notifications import LobbyNotifier
from services.rpc import Identity, TokenIssuer

from . import model
from .model import Player, Table, TableStatus
from .store import LobbyStore

log = logging.getLogger("verrater.lobby")

LIST_LIMIT_DEFAULT = 50
LIST_LIMIT_MAX = 200
BOT_FILL_SWEEP_SECONDS = 0.25
#: Tables one player may host before any of them starts (keeps one client from flooding the
#: lobby). Checked before the write, so two simultaneous creates may both pass: a soft limit.
MAX_HOSTED_TABLES = 3


class GameGateway(Protocol):
    """How the lobby creates games (the game service's CreateGame, over gRPC)."""

    async def create_game(
        self,
        game_id: str,
        *,
        players: int,
        builder_may_move: bool,
        setup: dict[str, Any] | None,
        seats: tuple[SeatAssignment, ...],
        ranked: bool,
        turn_seconds: int,
    ) -> None:
        """Create the game; creating an existing game id again is not an error."""


@dataclass(frozen=True, slots=True)
class IssuedToken:
    token: str
    expires_at: int


class LobbyApplication:
    """Everything the Lobby service does, independent of gRPC."""

    def __init__(
        self,
        store: LobbyStore,
        issuer: TokenIssuer,
        games: GameGateway,
        *,
        validate_setup: Callable[[int, dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.time,
        notifier: LobbyNotifier | None = None,
    ) -> None:
        """`notifier` hears of every table that became full, starting or started."""
        self.store = store
        self.issuer = issuer
        self.games = games
        self._validate_setup = validate_setup
        self._clock = clock
        self._notifier = notifier
        self._sweeper: asyncio.Task[None] | None = None

    # --- players ------------------------------------------------------------------------

    def _token(self, player_id: str, **claims: Any) -> IssuedToken:
        now = self._clock()
        token = self.issuer.mint(player_id, now=now, **claims)
        return IssuedToken(token, int(now) + self.issuer.ttl_seconds)

    async def register_guest(self, display_name: str) -> tuple[Player, IssuedToken]:
        player = Player(f"p{secrets.token_hex(8)}", model.validate_name(display_name))
        await self.store.add_player(player)
        return player, self._token(player.player_id)

    async def player(self, identity: Identity) -> Player:
        player = await self.store.player(identity.subject)
        if player is None:
            raise ServiceError(
                Reason.PLAYER_NOT_FOUND,
                "the token names no player this lobby knows: register again",
            )
        return player

    async def refresh(self, identity: Identity) -> tuple[Player, IssuedToken]:
        player = await self.player(identity)
        return player, self._token(player.player_id)

    # --- tables -------------------------------------------------------------------------

    async def create_table(
        self,
        identity: Identity,
        *,
        size: int,
        private: bool = False,
        builder_may_move: bool = False,
        auto_start: bool = False,
        setup: dict[str, Any] | None = None,
        turn_seconds: int = 0,
        fill_with_bots_after_s: int = 0,
        bot_level: BotLevel = BotLevel.NORMAL,
        host_sits_out: bool = False,
    ) -> Table:
        player = await self.player(identity)
        if await self.store.hosted_tables(player.player_id) >= MAX_HOSTED_TABLES:
            raise ServiceError(
                Reason.TOO_MANY_TABLES,
                f"you already host {MAX_HOSTED_TABLES} tables that have not started: "
                "start, fill or leave one first",
            )
        if setup is not None and self._validate_setup is not None:
            self._validate_setup(size, setup)
        if fill_with_bots_after_s < 0 or fill_with_bots_after_s > 3600:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION,
                "bot fill wait must be between 0 and 3600 s",
                field="fill_with_bots_after_seconds",
            )
        now_ms = int(self._clock() * 1000)
        table = model.new_table(
            player,
            size=size,
            private=private,
            builder_may_move=builder_may_move,
            auto_start=auto_start,
            setup=setup,
            turn_seconds=turn_seconds,
            now_ms=now_ms,
            host_sits_out=host_sits_out,
        )
        if fill_with_bots_after_s:
            table = replace(
                table,
                fill_bots_at_ms=now_ms + fill_with_bots_after_s * 1000,
                fill_bot_level=bot_level,
            )
        return await self.store.create_table(table)

    async def table(self, table_id: str) -> Table:
        table = await self.store.table(table_id)
        if table is None:
            raise ServiceError(Reason.TABLE_NOT_FOUND, f"no table with id {table_id!r}")
        return table

    async def join(self, identity: Identity, table_id: str, invite_code: str = "") -> Table:
        player = await self.player(identity)
        table = await self.store.update_table(
            table_id, lambda t: model.join(t, player, invite_code)
        )
        return await self._auto_start(table)

    async def leave(self, identity: Identity, table_id: str) -> Table:
        return await self.store.update_table(table_id, lambda t: model.leave(t, identity.subject))

    async def add_bot(self, identity: Identity, table_id: str, level: BotLevel) -> Table:
        table = await self.store.update_table(
            table_id, lambda t: model.add_bot(t, identity.subject, level)
        )
        return await self._auto_start(table)

    async def list_tables(self, size: int | None, limit: int) -> list[Table]:
        if size is not None and size not in PLAYER_COUNTS:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION, "size must be 3, 4 or 0 (any)", field="size"
            )
        limit = LIST_LIMIT_DEFAULT if limit <= 0 else min(limit, LIST_LIMIT_MAX)
        return await self.store.open_tables(size, limit)

    async def quick_match(
        self, identity: Identity, size: int, fill_with_bots_after_s: int, bot_level: BotLevel
    ) -> Table:
        """Join the oldest open public table of this size, else open one (auto-starting)."""
        player = await self.player(identity)
        if size not in PLAYER_COUNTS:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION, f"a table has {PLAYER_COUNTS_TEXT} seats", field="size"
            )
        for candidate in await self.store.open_tables(size, LIST_LIMIT_MAX):
            if candidate.seat_of(player.player_id) is not None or not candidate.auto_start:
                continue
            try:
                table = await self.store.update_table(
                    candidate.table_id, lambda t: model.join(t, player, "")
                )
            except ServiceError:
                continue  # filled or closed meanwhile: try the next one
            return await self._auto_start(table)
        return await self.create_table(
            identity,
            size=size,
            auto_start=True,
            fill_with_bots_after_s=fill_with_bots_after_s,
            bot_level=bot_level,
        )

    # --- starting -------------------------------------------------------------------------

    async def start(self, identity: Identity | None, table_id: str) -> Table:
        """Start a full table's game: by its host, or automatically (identity None)."""
        player_id = identity.subject if identity is not None else None
        table = await self.store.update_table(table_id, lambda t: model.begin_start(t, player_id))
        if table.status is TableStatus.STARTED:
            return table
        self._announce(table)
        await self.games.create_game(
            table.game_id,
            players=table.size,
            builder_may_move=table.builder_may_move,
            setup=table.setup,
            seats=tuple(
                SeatAssignment(seat.player_id, seat.name, seat.bot_level) for seat in table.seats
            ),
            ranked=table.ranked,
            turn_seconds=table.turn_seconds,
        )
        table = await self.store.update_table(table_id, model.finish_start)
        self._announce(table)
        return table

    async def _auto_start(self, table: Table) -> Table:
        """After a seat was taken: tell the table it is full, and start it if it starts itself."""
        self._announce(table)
        if table.auto_start and table.status is TableStatus.FULL:
            return await self.start(None, table.table_id)
        return table

    def _announce(self, table: Table) -> None:
        """Tell the people seated that the table is full, starting or started (the notifier
        tells each change once, however often it is reported)."""
        if self._notifier is None:
            return
        people = {
            seat: held.player_id
            for seat, held in enumerate(table.seats)
            if held.player_id and held.bot_level is None
        }
        if table.status is TableStatus.FULL:
            self._notifier.table_full(table.table_id, table.version, people)
        elif table.status is TableStatus.STARTING:
            self._notifier.game_starting(table.table_id, people)
        elif table.status is TableStatus.STARTED:
            self._notifier.game_started(table.table_id, table.game_id, people)

    async def seat_token(self, identity: Identity, table_id: str) -> tuple[Table, int, IssuedToken]:
        table = await self.table(table_id)
        seat = table.seat_of(identity.subject)
        if seat is None:
            raise ServiceError(Reason.NOT_YOUR_SEAT, f"you do not sit at table {table_id}")
        if table.status is not TableStatus.STARTED:
            raise ServiceError(Reason.GAME_NOT_STARTED, f"table {table_id}'s game has not started")
        return table, seat, self._token(identity.subject, game_id=table.game_id, seat=seat)

    async def watch(self, table_id: str) -> AsyncIterator[Table]:
        """The table now and after every change, until its game starts or it closes."""
        async with self.store.subscription(table_id) as ticks:
            last_version = 0
            while True:
                table = await self.table(table_id)
                if table.version != last_version:
                    last_version = table.version
                    yield table
                if table.status in (TableStatus.STARTED, TableStatus.CLOSED):
                    return
                await ticks.get()

    # --- bots that fill quick-match tables after a wait -----------------------------------

    async def fill_due_tables(self) -> None:
        """Seat bots at every table whose wait is over, then start it (runs in every replica)."""
        for table_id in await self.store.tables_due_for_bots(int(self._clock() * 1000)):
            try:
                table = await self.store.update_table(table_id, _fill_if_due)
                await self._auto_start(table)
            except ServiceError as error:
                log.info("bot fill skipped for table %s: %s", table_id, error.message)

    def start_background(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            try:
                await self.fill_due_tables()
            except Exception:  # a sweep failure (store down) must not end the sweeper
                log.exception("bot-fill sweep failed; retrying")
            await asyncio.sleep(BOT_FILL_SWEEP_SECONDS)

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None


def _fill_if_due(table: Table) -> Table:
    if not table.fill_bots_at_ms:
        return table
    if table.status is not TableStatus.OPEN:  # filled by people meanwhile
        return replace(table, fill_bots_at_ms=0, version=table.version + 1)
    return model.fill_all_with_bots(table)
