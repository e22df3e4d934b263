"""The `ChatStore` port: every table's chat stream, kept a while, read from a cursor and
followed live; each player's mutes; the operators' reports. Two adapters: in memory (embedded
`verrater serve`, tests) and on Redis (standalone or Cluster).

A table's chat is a stream of its own, beside the game's event log and never inside it: the
rules log, its hash chain and the audit know nothing of chat. A message is stored together with
the table's rate limit (one atomic step per message), so replicas share the limit.

Following a table live: catch up by reading, then take what the adapter's fan-out hands over
to the follower's `services.mailbox.Mailbox` (the one the notifications' subscriptions use
too). What waits for a follower is bounded: past its inbox it re-reads from its last position
when it pulls again (nothing lost, memory bounded); a follower that stopped taking messages
while more than `max_waiting` arrived for `stall_limit` seconds is cut off with SLOW_READER.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial

from services.errors import Reason, ServiceError
from services.mailbox import Mailbox, drain

from .model import (
    ORIGIN,
    ChatMessage,
    NewMessage,
    Position,
    Report,
    format_cursor,
    invalid_cursor,
)

#: Messages a live follower may have waiting before it re-reads instead.
DEFAULT_INBOX_LIMIT = 256
#: How many messages one catch-up read asks for.
READ_BATCH = 200
#: How far a cursor's time may be ahead of this process's clock.
CURSOR_CLOCK_SKEW_MS = 10 * 60 * 1000
#: Reports kept (the newest; about, on Redis).
KEEP_REPORTS = 10_000
#: How long a request id is remembered: a retry within it answers the first copy's message.
REQUEST_KEPT_MS = 10 * 60 * 1000
#: How long the end of a table's game is remembered (its channels stay closed that long).
ENDED_KEPT_SECONDS = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class Rate:
    """At most `per_second` messages a second, in bursts of up to `burst`."""

    per_second: float
    burst: float


def rate_limited(scope: str, wait_ms: int, rate: Rate) -> ServiceError:
    return ServiceError(
        Reason.RATE_LIMITED,
        f"too many chat messages ({scope}): at most {rate.per_second:g} a second (bursts of "
        f"{rate.burst:g}); retry in {wait_ms} ms",
        retry_after_ms=str(wait_ms),
        scope=scope,
    )


def too_many_muted(limit: int) -> ServiceError:
    return ServiceError(
        Reason.TOO_MANY_MUTED,
        f"you have muted {limit} players, as many as allowed: unmute one first",
        limit=str(limit),
    )


def earlier_copy(message: NewMessage, position: Position, fingerprint: str) -> ChatMessage:
    """The message that `message`'s request id stored at `position` (its first copy, whose
    `fingerprint` it was); REQUEST_ID_REUSED when that was another request."""
    if fingerprint != message.fingerprint:
        raise ServiceError(
            Reason.REQUEST_ID_REUSED,
            f"request_id {message.request_id!r} was used for another message at this table: "
            "use a new request_id for a new message",
            field="request_id",
        )
    return ChatMessage(
        position,
        message.table_id,
        message.channel,
        message.sender_id,
        message.display_name,
        message.text,
    )


class ChatUnavailable(ServiceError):
    def __init__(self, why: str) -> None:
        super().__init__(Reason.STORE_UNAVAILABLE, f"chat is unavailable ({why}); retry shortly")


class ChatCursorExpired(ServiceError):
    def __init__(self, cursor: str) -> None:
        super().__init__(
            Reason.CURSOR_EXPIRED,
            f"chat after cursor {cursor} is no longer kept: watch again without a cursor",
            cursor=cursor,
        )


class SlowChatReader(ServiceError):
    def __init__(self, waiting: int) -> None:
        super().__init__(
            Reason.SLOW_READER,
            f"{waiting} chat messages waited for this stream's client, which does not read "
            "them: read every message, then watch again from the last cursor you handled",
            max_pending=str(waiting),
        )


def check_resumable(
    position: Position, *, now_ms: int, exists: bool, last: Position, deleted: Position
) -> None:
    """Refuse to read after `position` unless everything after it is still kept: `deleted` is
    the table's last message trimmed away, `last` its last message ever stored (`exists`
    false: nothing kept, then any cursor but the origin has expired)."""
    if position[0] > now_ms + CURSOR_CLOCK_SKEW_MS:
        raise invalid_cursor(format_cursor(position), "is dated in the future")
    if not exists:
        if position > ORIGIN:
            raise ChatCursorExpired(format_cursor(position))
        return
    if position < deleted:
        raise ChatCursorExpired(format_cursor(position))
    if position > last:
        raise invalid_cursor(format_cursor(position), "is beyond the table's last message")


class ChatStore(ABC):
    """Every table's chat, the players' mutes and the reports (see the module docstring)."""

    inbox_limit: int = DEFAULT_INBOX_LIMIT

    @abstractmethod
    async def spend_player_rate(self, player_id: str, rate: Rate, now_ms: int) -> None:
        """Take one message from the player's rate, shared by every replica of the store
        (RATE_LIMITED, scope "player", when it is spent: nothing taken)."""

    @abstractmethod
    async def append(self, message: NewMessage, table_rate: Rate, now_ms: int) -> ChatMessage:
        """Store the message at the end of its table's chat, unless the table's rate is spent
        (RATE_LIMITED, scope "table", nothing stored); trims the chat to what is kept. A
        message with a request id that a copy of it stored within REQUEST_KEPT_MS (same
        sender, same table) is that copy's message, and nothing is stored or spent
        (REQUEST_ID_REUSED when the copy was another message: `earlier_copy`)."""

    @abstractmethod
    async def stored_request(self, message: NewMessage) -> ChatMessage | None:
        """The message an earlier copy of `message` stored under its request id, if one did
        within REQUEST_KEPT_MS (as `append` finds it, without storing anything)."""

    @abstractmethod
    async def read_after(self, table_id: str, after: Position, limit: int) -> list[ChatMessage]:
        """At most `limit` messages after `after`, oldest first: ChatCursorExpired when what
        followed it is no longer kept, MALFORMED_REQUEST for a position never handed out."""

    @abstractmethod
    async def latest(self, table_id: str, count: int) -> list[ChatMessage]:
        """The table's last `count` messages, oldest first."""

    @abstractmethod
    async def head(self, table_id: str) -> Position:
        """The position of the table's last message (the origin before any)."""

    @abstractmethod
    async def message(self, table_id: str, position: Position) -> ChatMessage | None:
        """The message at `position`, if kept."""

    @abstractmethod
    async def game_ended(self, table_id: str, at_ms: int) -> None:
        """Remember when the table's game ended (the first time told wins)."""

    @abstractmethod
    async def ended_at(self, table_id: str) -> int | None:
        """When the table's game ended (Unix ms), None while it runs or before it starts."""

    @abstractmethod
    async def mutes(self, player_id: str) -> frozenset[str]:
        """The players `player_id` muted."""

    @abstractmethod
    async def set_muted(
        self, player_id: str, other: str, muted: bool, limit: int
    ) -> frozenset[str]:
        """Mute or unmute `other` for `player_id`; the mutes after. TOO_MANY_MUTED (nothing
        changed) when muting one more would pass `limit`."""

    @abstractmethod
    async def add_report(
        self, reporter_id: str, note: str, message: ChatMessage, now_ms: int
    ) -> Report:
        """Keep a report of `message` by `reporter_id`; the same reporter reporting the same
        message again gets the first report back."""

    @abstractmethod
    async def reports(self, after: str = "0-0", limit: int = 100) -> list[Report]:
        """The reports after the report id `after`, oldest first."""

    @abstractmethod
    async def _join(self, mailbox: Mailbox[ChatMessage]) -> None:
        """Start handing the table's new messages to `mailbox` (setting its `resync` when the
        table is already past `mailbox.delivered`)."""

    @abstractmethod
    def _leave(self, mailbox: Mailbox[ChatMessage]) -> None:
        """Stop handing messages to `mailbox` (it may have left already)."""

    @property
    @abstractmethod
    def live_followers(self) -> int:
        """Followers in this process that caught up and wait for news."""

    @abstractmethod
    async def close(self) -> None:
        """End live followers and release connections. Idempotent."""

    async def follow(
        self,
        table_id: str,
        after: Position,
        *,
        max_waiting: int | None = None,
        stall_limit: float = 1.0,
        on_cut: Callable[[ServiceError], None] | None = None,
    ) -> AsyncGenerator[ChatMessage, None]:
        """The table's messages after `after`, then each new one as it is stored, until the
        caller stops. Nothing is missed or repeated (see the module docstring for a follower
        that does not keep up)."""
        delivered = after
        async for message in self._catch_up(table_id, delivered):
            delivered = message.position
            yield message
        mailbox: Mailbox[ChatMessage] = Mailbox(
            table_id,
            delivered,
            self.inbox_limit if max_waiting is None else max_waiting,
            slow=SlowChatReader,
            stall_limit=None if max_waiting is None else stall_limit,
            on_cut=on_cut,
        )
        await self._join(mailbox)
        try:
            async with aclosing(drain(mailbox, partial(self._catch_up, table_id))) as live:
                async for message in live:
                    yield message
        finally:
            self._leave(mailbox)

    async def _catch_up(self, table_id: str, after: Position) -> AsyncGenerator[ChatMessage, None]:
        while True:
            batch = await self.read_after(table_id, after, READ_BATCH)
            for message in batch:
                after = message.position
                yield message
            if len(batch) < READ_BATCH:
                return
