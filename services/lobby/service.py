"""The lobby application service: players and their credentials, tables, quick match, starting
games, and each player's list of games to come back to.

A game starts in three steps so that starting twice creates one game and a crash in between
loses nothing: the table goes FULL -> STARTING (seats fixed, the game id fixed as "g" + table
id), the game is created in the game service (a repeat answers ALREADY_EXISTS, which is fine),
then STARTING -> STARTED. Any later StartGame on a STARTING table simply finishes the job, and
so does the lobby's sweep once a table has been STARTING for START_GRACE_S (an auto-started
table whose start was cut off has nobody to call StartGame).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from services.engine import PLAYER_COUNTS, PLAYER_COUNTS_TEXT, BotLevel, SeatAssignment
from services.errors import Reason, ServiceError
from services.notifications import LobbyNotifier
from services.rpc import Identity, RateLimit, RateLimiter, TokenIssuer, checked_id
from services.tasks import cancel_and_wait

from . import credentials, model
from .model import GameProgress, Player, Table, TableStatus
from .progress import GameSummary, ProgressBoard
from .store import FINISHED_KEPT, LobbyStore

log = logging.getLogger("verrater.lobby")

LIST_LIMIT_DEFAULT = 50
LIST_LIMIT_MAX = 200
BOT_FILL_SWEEP_SECONDS = 0.25
#: How long a table may be STARTING before the sweep finishes its start: longer than a start
#: takes (the game's creation gives up after 10 s).
START_GRACE_S = 15.0
#: Tables one player may host before any of them starts (keeps one client from flooding the
#: lobby). Checked before the write, so two simultaneous creates may both pass: a soft limit.
#: The same holds for the tables per network peer (LobbyLimits.tables_per_peer).
MAX_HOSTED_TABLES = 3
#: The most tables ListMyGames looks at (newest first).
MY_TABLES_LOOKED_AT = 50


#: The turn timer of quick-match tables, by default.
QUICK_MATCH_TURN_SECONDS = 60


@dataclass(frozen=True, slots=True)
class LobbyLimits:
    """Limits per network peer, per player id and overall (0: none). Rates allow bursts of four
    times as many; they are kept per lobby process, like the per-player rate limits."""

    guests_per_peer_minute: float = 0
    guests_per_second: float = 0
    sign_ins_per_player_minute: float = 0
    sign_ins_per_peer_minute: float = 0
    tables_per_peer: int = 0

    def rates(self) -> dict[str, RateLimit]:
        """The token buckets, by what they count (named as their refusals say it)."""
        guests, sign_ins = self.guests_per_peer_minute, self.sign_ins_per_player_minute
        peer_sign_ins = self.sign_ins_per_peer_minute
        wanted = {
            _GUESTS_PER_PEER: RateLimit("guest (per network address)", guests / 60, 4 * guests),
            _GUESTS: RateLimit("guest", self.guests_per_second, 4 * self.guests_per_second),
            _SIGN_INS_PER_PLAYER: RateLimit("sign-in (per player)", sign_ins / 60, 4 * sign_ins),
            _SIGN_INS_PER_PEER: RateLimit(
                "sign-in (per network address)", peer_sign_ins / 60, 4 * peer_sign_ins
            ),
        }
        return {kind: limit for kind, limit in wanted.items() if limit.per_second > 0}


_GUESTS_PER_PEER = "guests per peer"
_GUESTS = "guests"
_SIGN_INS_PER_PLAYER = "sign-ins per player"
_SIGN_INS_PER_PEER = "sign-ins per peer"


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

    async def progress(self, game_id: str, seat: int | None) -> GameProgress | None:
        """Where the game stands for `seat` (None: as a spectator); None when the game service
        does not know the game. GAME_SERVICE_UNAVAILABLE when it cannot be asked."""


@dataclass(frozen=True, slots=True)
class IssuedToken:
    token: str
    expires_at: int


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A player's session: who, a fresh token, and the credential when it is new."""

    player: Player
    token: IssuedToken
    credential: str = ""


@dataclass(frozen=True, slots=True)
class MyGame:
    """One entry of a player's games list: a table, their seat, and the game's progress."""

    table: Table
    seat: int | None
    progress: GameProgress | None = None


class LobbyApplication:
    """Everything the Lobby service does, independent of gRPC."""

    def __init__(
        self,
        store: LobbyStore,
        issuer: TokenIssuer,
        games: GameGateway,
        *,
        validate_setup: Callable[[int, dict[str, Any]], None] | None = None,
        limits: LobbyLimits = LobbyLimits(),
        quick_match_turn_seconds: int = QUICK_MATCH_TURN_SECONDS,
        clock: Callable[[], float] = time.time,
        notifier: LobbyNotifier | None = None,
        progress: ProgressBoard | None = None,
    ) -> None:
        """`quick_match_turn_seconds`: the turn timer of the tables QuickMatch opens (strangers
        play there: nobody may stall a game); `notifier` hears of every table that became full,
        starting or started; `progress` is where the game replicas keep each game's summary
        (ListMyGames asks the game service only of a game it has none of)."""
        self.store = store
        self.progress = progress
        self._quick_match_turn_seconds = quick_match_turn_seconds
        self.issuer = issuer
        self.games = games
        self._validate_setup = validate_setup
        self._limits = limits
        self._rates = RateLimiter(limits.rates())
        self._clock = clock
        self._notifier = notifier
        self._sweeper: asyncio.Task[None] | None = None
        #: Tables seen STARTING by the sweep, and since when (this replica's clock).
        self._starting_since: dict[str, float] = {}

    # --- players ------------------------------------------------------------------------

    def _token(self, player_id: str, **claims: Any) -> IssuedToken:
        now = self._clock()
        token = self.issuer.mint(player_id, now=now, **claims)
        return IssuedToken(token, int(now) + self.issuer.ttl_seconds)

    async def register_guest(self, display_name: str, peer: str) -> SignedIn:
        """A new guest with a token and the credential to sign in with later (shown once)."""
        player = Player(f"p{secrets.token_hex(8)}", model.validate_name(display_name))
        self._rates.check(_GUESTS_PER_PEER, peer)
        self._rates.check(_GUESTS, "")
        credential = credentials.new_credential()
        digest = credentials.digest(credential)
        await self.store.add_player(player, digest)
        return SignedIn(player, self._player_token(player.player_id, digest), credential)

    async def sign_in(self, player_id: str, credential: str, peer: str) -> SignedIn:
        """A fresh token for the holder of the player's credential. Unknown player and wrong
        credential get the same answer; attempts are limited per peer and per player id."""
        self._rates.check(_SIGN_INS_PER_PEER, peer)
        checked_id(player_id, "player_id")
        self._rates.check(_SIGN_INS_PER_PLAYER, player_id)
        stored = await self.store.credential_digest(player_id)
        player = await self.store.player(player_id) if stored is not None else None
        # `matches` first: it takes as long for an unknown player as for a wrong credential.
        if not credentials.matches(credential, stored) or stored is None or player is None:
            raise ServiceError(
                Reason.CREDENTIAL_INVALID,
                "no player with this id and credential: check both, or register anew",
            )
        return SignedIn(player, self._player_token(player_id, stored))

    async def rotate_credential(self, identity: Identity) -> SignedIn:
        """A new credential for the caller; the old one stops working at once, and so does
        every token issued under it, for this and for RefreshToken."""
        player, _ = await self._account(identity)
        credential = credentials.new_credential()
        digest = credentials.digest(credential)
        await self.store.replace_credential(player.player_id, digest)
        return SignedIn(player, self._player_token(player.player_id, digest), credential)

    async def _account(self, identity: Identity) -> tuple[Player, str]:
        """The caller's player and the stored digest of their credential; CREDENTIAL_INVALID
        when their token was issued under one rotated away since (a lost phone's tokens end
        here)."""
        player = await self.player(identity)
        stored = await self.store.credential_digest(identity.subject)
        tag = identity.credential_tag
        if stored is None or (tag is not None and tag != credentials.tag(stored)):
            raise ServiceError(
                Reason.CREDENTIAL_INVALID,
                "this token was issued under a credential that has since been rotated: sign in "
                "with the current credential",
            )
        return player, stored

    def _player_token(self, player_id: str, stored: str) -> IssuedToken:
        return self._token(player_id, credential_tag=credentials.tag(stored))

    async def player(self, identity: Identity) -> Player:
        player = await self.store.player(identity.subject)
        if player is None:
            raise ServiceError(
                Reason.PLAYER_NOT_FOUND,
                "the token names no player this lobby knows: register again",
            )
        return player

    async def refresh(self, identity: Identity) -> SignedIn:
        """A fresh player token, under the credential the caller's token was issued under while
        it is still the current one."""
        player, stored = await self._account(identity)
        return SignedIn(player, self._player_token(player.player_id, stored))

    # --- tables -------------------------------------------------------------------------

    async def create_table(
        self,
        identity: Identity,
        *,
        peer: str,
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
        limit = self._limits.tables_per_peer
        if limit and await self.store.peer_tables(peer) >= limit:
            raise ServiceError(
                Reason.TOO_MANY_TABLES,
                f"players from your network address already host {limit} tables that have "
                "not started: start, fill or leave one first",
            )
        if fill_with_bots_after_s < 0 or fill_with_bots_after_s > 3600:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION,
                "bot fill wait must be between 0 and 3600 s",
                field="fill_with_bots_after_seconds",
            )
        now_ms = int(self._clock() * 1000)
        # The table's own options first: a setup is checked for a table of a size that exists.
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
            opened_from=peer,
        )
        if setup is not None and self._validate_setup is not None:
            self._validate_setup(table.size, setup)
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
        self,
        identity: Identity,
        size: int,
        fill_with_bots_after_s: int,
        bot_level: BotLevel,
        *,
        peer: str,
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
            peer=peer,
            size=size,
            auto_start=True,
            turn_seconds=self._quick_match_turn_seconds,
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

    async def my_games(self, identity: Identity) -> list[MyGame]:
        """The caller's running games, then their open tables, then their newest finished
        games, each group newest first: where to go back to after a restart.

        Two round trips to the stores when no game has ended since the last look: the player's
        table ids and kept results together, then those tables' records together with their
        games' summaries on the progress board (looked up by the game id every table gets
        when it starts; no game is loaded). Only a game the board has no summary of is asked
        of the game service. A game seen finished moves to the player's results (the newest
        FINISHED_KEPT), so it is not read again. A game service that cannot be reached when it
        must be asked fails the whole list (GAME_SERVICE_UNAVAILABLE: retry) rather than
        leaving games out.
        """
        player_id = identity.subject
        listed = await self.store.player_games(player_id, MY_TABLES_LOOKED_AT)
        kept = dict(listed.finished)
        mine = set(listed.tables)
        read, summaries = await asyncio.gather(
            self.store.tables([*listed.tables, *(t for t in kept if t not in mine)]),
            self._summaries([model.game_id_of(table_id) for table_id in listed.tables]),
        )
        by_id = {table.table_id: table for table in read}
        tables = [by_id[table_id] for table_id in listed.tables if table_id in by_id]
        started = [t for t in tables if t.status is TableStatus.STARTED]
        progress = await self._progress(started, player_id, summaries)
        running: list[MyGame] = []
        ended: list[tuple[Table, GameProgress]] = []
        for table in started:
            game = progress[table.game_id]
            if game is not None and game.finished:
                ended.append((table, game))
            else:
                running.append(MyGame(table, table.seat_of(player_id), game))
        await asyncio.gather(*(self.store.record_finished(player_id, *end) for end in ended))
        waiting = [MyGame(t, t.seat_of(player_id)) for t in tables if t.waiting]
        seen = {table.table_id for table, _ in ended}
        earlier = [(by_id[t], result) for t, result in kept.items() if t in by_id and t not in seen]
        finished = [
            MyGame(table, table.seat_of(player_id), game) for table, game in ended + earlier
        ]
        finished.sort(key=lambda game: game.table.created_at_ms, reverse=True)
        return running + waiting + finished[:FINISHED_KEPT]

    async def _summaries(self, game_ids: list[str]) -> dict[str, GameSummary]:
        """The board's summaries of these games (none without a board)."""
        return await self.progress.summaries(game_ids) if self.progress is not None else {}

    async def _progress(
        self, started: list[Table], player_id: str, summaries: dict[str, GameSummary]
    ) -> dict[str, GameProgress | None]:
        """Where each started game stands for the player's seat (None: the game service does
        not know the game), from its summary, else from the game service."""
        found: dict[str, GameProgress | None] = {
            table.game_id: summaries[table.game_id].progress(table.seat_of(player_id))
            for table in started
            if table.game_id in summaries
        }
        asked = [table for table in started if table.game_id not in summaries]
        answers = await asyncio.gather(
            *(self.games.progress(t.game_id, t.seat_of(player_id)) for t in asked),
            return_exceptions=True,
        )
        for table, answer in zip(asked, answers, strict=True):
            if isinstance(answer, BaseException):
                raise answer
            found[table.game_id] = answer
        return found

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

    async def finish_cut_off_starts(self) -> None:
        """Finish the start of every table seen STARTING for `START_GRACE_S` or more (runs in
        every replica): its lobby died, or the game service did not answer, half-way through
        a start, and nobody may call StartGame again (an auto-started table). Starting twice
        makes one game, so a start still under way elsewhere is finished twice, harmlessly."""
        now = self._clock()
        starting = await self.store.tables_starting()
        seen = {table_id: self._starting_since.get(table_id, now) for table_id in starting}
        self._starting_since = seen
        for table_id, since in seen.items():
            if now - since < START_GRACE_S:
                continue
            try:
                await self.start(None, table_id)
                log.info("finished the cut-off start of table %s", table_id)
            except ServiceError as error:
                log.info("the start of table %s is still cut off: %s", table_id, error.message)

    def start_background(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            try:
                await self.store.repair_indexes()
                await self.fill_due_tables()
                await self.finish_cut_off_starts()
            except Exception:  # a sweep failure (store down) must not end the sweeper
                log.exception("bot-fill sweep failed; retrying")
            await asyncio.sleep(BOT_FILL_SWEEP_SECONDS)

    async def close(self) -> None:
        if self._sweeper is not None:
            await cancel_and_wait(self._sweeper)
            self._sweeper = None


def _fill_if_due(table: Table) -> Table:
    if not table.fill_bots_at_ms:
        return table
    if table.status is not TableStatus.OPEN:  # filled by people meanwhile
        return replace(table, fill_bots_at_ms=0, version=table.version + 1)
    return model.fill_all_with_bots(table)
