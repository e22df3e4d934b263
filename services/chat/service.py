"""Table chat as an application, independent of gRPC: who writes where, who reads what, the
limits, mutes and reports. The tables themselves are the lobby's: chat asks `Tables` (wired in
services/bootstrap.py), and learns when a game ended from the game's announcements
(`GameEndings`, a handler in services/handlers.py).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Protocol

from services.errors import Reason, ServiceError
from services.rpc import Identity, Role, checked_id
from services.tasks import cancel_and_wait

from .limits import DEFAULT_LIMITS, ChatLimits
from .model import (
    Channel,
    ChatMessage,
    NewMessage,
    Position,
    Reader,
    Report,
    TableFacts,
    check_open,
    parse_cursor,
    writable_channel,
)
from .store import ChatStore, rate_limited
from .text import clean, normalise

log = logging.getLogger("verrater.chat")

#: The most messages a WatchChat without a cursor may ask to see first.
MAX_BACKLOG = 200
#: Messages that may wait for a stream's client before it is cut off (SLOW_READER)...
DEFAULT_MAX_PENDING = 64
#: ...once it took none for this long (seconds).
STALL_LIMIT = 1.0
#: How long a player's mutes are trusted before they are read again: another replica may have
#: changed them (this replica's own changes apply at once).
MUTES_FRESH_SECONDS = 5.0
#: Players whose mutes are held in memory at most.
MUTES_CACHED = 100_000
#: Senders refused for their rate remembered at most (each until their wait is over).
SPENT_REMEMBERED = 100_000
#: WatchChat streams one server serves for one table at most: each message is sent on every
#: one of them, so this bounds what a message costs the server (TOO_MANY_STREAMS past it).
MAX_WATCHERS_PER_TABLE = 200


def too_many_watchers(table_id: str, limit: int) -> ServiceError:
    return ServiceError(
        Reason.TOO_MANY_STREAMS,
        f"table {table_id} has {limit} chat watchers on this server, the most it serves: "
        "watch again later",
        limit=str(limit),
        scope="table",
    )


class Watching:
    """A WatchChat stream's messages (an async iterator) holding its place among the table's
    watchers until `aclose`, which its caller must await whether or not it read any."""

    def __init__(self, messages: AsyncGenerator[ChatMessage, None], release: Callable[[], None]):
        self._messages = messages
        self._release: Callable[[], None] | None = release

    def __aiter__(self) -> Watching:
        return self

    async def __anext__(self) -> ChatMessage:
        return await anext(self._messages)

    async def aclose(self) -> None:
        try:
            await self._messages.aclose()
        finally:
            if self._release is not None:
                self._release()
                self._release = None


class Tables(Protocol):
    """What chat asks the lobby."""

    async def facts(self, table_id: str) -> TableFacts:
        """The table as chat needs it; TABLE_NOT_FOUND for a table the lobby does not know."""

    async def display_name(self, player_id: str) -> str:
        """The player's display name; PLAYER_NOT_FOUND for a player the lobby does not know."""

    def table_of_game(self, game_id: str) -> str:
        """The table whose game `game_id` is; "" for a game the lobby did not start."""


def _not_a_bot(identity: Identity) -> None:
    if identity.role is Role.SERVICE:
        raise ServiceError(Reason.BOTS_DO_NOT_CHAT, "bots and the platform's services do not chat")


def chatter(identity: Identity, facts: TableFacts) -> str:
    """Who chats at the table with this token: a player token's player, or a seat token's at
    its own game's table (PLAYER_TOKEN_REQUIRED elsewhere); never a bot (BOTS_DO_NOT_CHAT)."""
    _not_a_bot(identity)
    if identity.game_id is not None and identity.game_id != facts.game_id:
        raise ServiceError(
            Reason.PLAYER_TOKEN_REQUIRED,
            "this seat token is good for its own game's table only: chat elsewhere with your "
            "player token",
        )
    if identity.subject in facts.bots:
        raise ServiceError(Reason.BOTS_DO_NOT_CHAT, "bots do not chat")
    return identity.subject


class ChatApplication:
    """Everything the Chat service does (see the module docstring)."""

    def __init__(
        self,
        store: ChatStore,
        tables: Tables,
        *,
        limits: ChatLimits = DEFAULT_LIMITS,
        max_pending: int = DEFAULT_MAX_PENDING,
        stall_limit: float = STALL_LIMIT,
        max_watchers: int = MAX_WATCHERS_PER_TABLE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.tables = tables
        self.limits = limits
        self._max_pending = max_pending
        self._stall_limit = stall_limit
        #: WatchChat streams this server serves per table (TOO_MANY_STREAMS past them).
        self.max_watchers = max_watchers
        self._watchers: dict[str, int] = {}  # table id -> WatchChat streams open here
        # Senders the store refused for their rate, and until when (oldest first).
        self._spent: OrderedDict[str, float] = OrderedDict()
        self._clock = clock
        self._mutes: OrderedDict[str, tuple[frozenset[str], float]] = OrderedDict()

    def table_named(self, table_id: str, game_id: str) -> str:
        """The table a request names: by its id, or by its game's id (exactly one of the two)."""
        if table_id and game_id:
            raise ServiceError(
                Reason.MALFORMED_REQUEST,
                "give table_id or game_id, not both",
                field="game_id",
            )
        if not game_id:
            return checked_id(table_id, "table_id")
        table = self.tables.table_of_game(checked_id(game_id, "game_id"))
        if not table:
            raise ServiceError(
                Reason.TABLE_NOT_FOUND,
                f"game {game_id} has no table (a sandbox game): only the lobby's games have a chat",
            )
        return table

    async def send(
        self,
        identity: Identity,
        table_id: str,
        channel: Channel | None,
        text: str,
        request_id: str = "",
    ) -> ChatMessage:
        """Store one message (see the ChatService contract for every refusal); a retry under
        the same `request_id` answers the message its first copy stored."""
        _not_a_bot(identity)
        if request_id:
            checked_id(request_id, "request_id")
        # A sender the store found over their rate is refused again, until the wait it named
        # is over, before anything is looked up: a flood of refused messages costs the server
        # as little as it can (their bucket cannot fill sooner, whichever replica they use).
        # Not a retry, which may find its first copy stored.
        refused_until = self._spent.get(identity.subject)
        if not request_id and refused_until is not None and self._clock() < refused_until:
            wait_ms = math.ceil((refused_until - self._clock()) * 1000)
            raise rate_limited("player", wait_ms, self.limits.player)
        text = normalise(text)
        facts = await self.tables.facts(table_id)
        sender = chatter(identity, facts)
        channel = writable_channel(facts, sender, channel)
        now = self._clock()
        check_open(facts, channel, await self.store.ended_at(table_id), int(now * 1000))
        name = facts.seated.get(sender) or await self.tables.display_name(sender)
        message = NewMessage(table_id, channel, sender, name, text, request_id)
        earlier = await self.store.stored_request(message)
        if earlier is not None:
            return earlier  # a retry: neither the player's rate nor the table's is spent again
        try:
            await self.store.spend_player_rate(sender, self.limits.player, int(now * 1000))
        except ServiceError as refused:
            if refused.reason is Reason.RATE_LIMITED:
                self._remember_spent(sender, now + int(refused.metadata["retry_after_ms"]) / 1000)
            raise
        return await self.store.append(message, self.limits.table, int(now * 1000))

    def _remember_spent(self, player_id: str, until: float) -> None:
        self._spent.pop(player_id, None)
        self._spent[player_id] = until
        while len(self._spent) > SPENT_REMEMBERED:
            self._spent.popitem(last=False)

    async def watch(
        self,
        identity: Identity,
        table_id: str,
        cursor: str,
        backlog: int = 0,
        on_cut: Callable[[ServiceError], None] | None = None,
    ) -> Watching:
        """The messages of the table the caller may read after `cursor` (empty: the latest
        `backlog`, then from now), then live; muted senders left out. Refusals are raised
        here (TOO_MANY_STREAMS for a table with `max_watchers` watchers here), and "now" is
        fixed here, before the first message is asked for."""
        if not 0 <= backlog <= MAX_BACKLOG:
            raise ServiceError(
                Reason.MALFORMED_REQUEST, f"backlog must be 0 to {MAX_BACKLOG}", field="backlog"
            )
        after = parse_cursor(cursor) if cursor else None
        reader = await self._reader(identity, table_id)
        first: list[ChatMessage] = []
        if after is None:
            first = await self.store.latest(table_id, backlog) if backlog else []
            after = first[-1].position if first else await self.store.head(table_id)
        else:
            await self.store.read_after(table_id, after, 0)  # an expired cursor fails here
        watching = self._watchers.get(table_id, 0)
        if watching >= self.max_watchers:
            raise too_many_watchers(table_id, self.max_watchers)
        self._watchers[table_id] = watching + 1
        return Watching(self._stream(reader, first, after, on_cut), lambda: self._unwatch(table_id))

    def _unwatch(self, table_id: str) -> None:
        left = self._watchers.pop(table_id, 1) - 1
        if left:
            self._watchers[table_id] = left

    def watchers(self, table_id: str) -> int:
        """The WatchChat streams of the table open on this server."""
        return self._watchers.get(table_id, 0)

    async def _stream(
        self,
        reader: Reader,
        first: list[ChatMessage],
        after: Position,
        on_cut: Callable[[ServiceError], None] | None,
    ) -> AsyncGenerator[ChatMessage, None]:
        for message in first:
            if await self._shown(reader, message):
                yield message
        following = self.store.follow(
            reader.facts.table_id,
            after,
            max_waiting=self._max_pending,
            stall_limit=self._stall_limit,
            on_cut=on_cut,
        )
        try:
            async for message in following:
                if await self._shown(reader, message):
                    yield message
                del message  # not held while the next is awaited
        finally:
            await following.aclose()

    async def _reader(self, identity: Identity, table_id: str) -> Reader:
        facts = await self.tables.facts(table_id)
        reader_id = chatter(identity, facts)
        return Reader(reader_id, facts, await self.store.ended_at(table_id) is not None)

    async def _shown(self, reader: Reader, message: ChatMessage) -> bool:
        """Whether the reader sees the message: its channel (a seated player's view of the
        spectators' one changes once the game is over), and their mutes."""
        if message.channel is Channel.SPECTATORS and not reader.settled:
            reader.facts = await self.tables.facts(reader.facts.table_id)
            reader.game_over = await self.store.ended_at(reader.facts.table_id) is not None
        if not reader.may_read(message):
            return False
        return message.sender_id not in await self.muted_by(reader.player_id)

    async def muted_by(self, player_id: str) -> frozenset[str]:
        """The players `player_id` muted, as this replica last read them (see
        MUTES_FRESH_SECONDS)."""
        now = time.monotonic()
        cached = self._mutes.get(player_id)
        if cached is not None and now - cached[1] < MUTES_FRESH_SECONDS:
            return cached[0]
        return self._remember_mutes(player_id, await self.store.mutes(player_id))

    def _remember_mutes(self, player_id: str, mutes: frozenset[str]) -> frozenset[str]:
        self._mutes.pop(player_id, None)
        self._mutes[player_id] = (mutes, time.monotonic())
        while len(self._mutes) > MUTES_CACHED:
            self._mutes.popitem(last=False)
        return mutes

    async def mute(self, identity: Identity, other: str, muted: bool) -> frozenset[str]:
        """Mute or unmute `other` for the caller; the caller's mutes after."""
        _not_a_bot(identity)
        checked_id(other, "player_id")
        if other == identity.subject:
            raise ServiceError(
                Reason.MALFORMED_REQUEST, "you cannot mute yourself", field="player_id"
            )
        if muted:
            await self.tables.display_name(other)  # PLAYER_NOT_FOUND for an unknown player
        mutes = await self.store.set_muted(identity.subject, other, muted, self.limits.max_muted)
        return self._remember_mutes(identity.subject, mutes)

    async def report(self, identity: Identity, table_id: str, cursor: str, note: str) -> Report:
        """Report a message the caller can read; the same report again answers the first."""
        _not_a_bot(identity)
        note = clean(note, "note")
        position = parse_cursor(cursor)
        reader = await self._reader(identity, table_id)
        message = await self.store.message(table_id, position)
        if message is None or not reader.may_read(message):
            raise ServiceError(
                Reason.CHAT_MESSAGE_NOT_FOUND,
                f"no message you can read has cursor {cursor} at table {table_id}",
                cursor=cursor,
            )
        return await self.store.add_report(
            reader.player_id, note, message, int(self._clock() * 1000)
        )


class GameEndings:
    """Tells the chat store when a table's game ended, in a task (a handler never waits).
    Remembers the games it told of lately, so a game announced again is not written again; a
    failed write is logged and forgotten (the next announcement of the game tries again)."""

    def __init__(
        self,
        ended: Callable[[str, int], Awaitable[None]],
        table_of: Callable[[str], str],
        memory: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self._ended = ended
        self._table_of = table_of
        self._memory = memory
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    def game_over(self, game_id: str, at_ms: int) -> None:
        """The game ended at `at_ms` (0: not known, now)."""
        at_ms = at_ms or int(self._clock() * 1000)
        table_id = self._table_of(game_id)
        if not table_id or game_id in self._recent:
            return
        self._recent[game_id] = None
        while len(self._recent) > self._memory:
            self._recent.popitem(last=False)
        task = asyncio.get_running_loop().create_task(self._tell(game_id, table_id, at_ms))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell(self, game_id: str, table_id: str, at_ms: int) -> None:
        try:
            await self._ended(table_id, at_ms)
        except Exception:
            self._recent.pop(game_id, None)
            log.exception("could not close the chat of table %s", table_id)

    async def settled(self) -> None:
        """Wait for the writes under way (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            await cancel_and_wait(task)
