"""Chat in memory: the embedded server's and the tests' adapter. It behaves as the Redis adapter
does, cursors included, so clients cannot tell them apart; it is lost when the process ends."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from services.mailbox import FanOut, Mailbox

from .limits import TokenBuckets
from .model import (
    KEEP_PER_TABLE,
    KEEP_SECONDS,
    ORIGIN,
    ChatMessage,
    NewMessage,
    Position,
    Report,
    parse_cursor,
)
from .store import (
    DEFAULT_INBOX_LIMIT,
    KEEP_REPORTS,
    REQUEST_KEPT_MS,
    ChatStore,
    ChatUnavailable,
    Rate,
    check_resumable,
    earlier_copy,
    rate_limited,
    too_many_muted,
)

#: Request ids remembered at most (the oldest go first), whatever their age.
REQUESTS_KEPT = 100_000


def next_position(last: Position, now_ms: int) -> Position:
    """The position after `last` at `now_ms`, as Redis numbers stream entries."""
    return (now_ms, 0) if now_ms > last[0] else (last[0], last[1] + 1)


@dataclass(eq=False)
class _Chat:
    messages: deque[ChatMessage] = field(default_factory=deque)
    last: Position = ORIGIN
    deleted: Position = ORIGIN
    written_ms: int = 0


class InMemoryChat(ChatStore):
    """:class:`ChatStore` in this process's memory."""

    def __init__(
        self,
        *,
        keep: int = KEEP_PER_TABLE,
        keep_seconds: float = KEEP_SECONDS,
        inbox_limit: int = DEFAULT_INBOX_LIMIT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._keep = keep
        self._keep_ms = int(keep_seconds * 1000)
        self._clock = clock
        self.inbox_limit = inbox_limit
        self._chats: dict[str, _Chat] = {}
        self._ended: dict[str, int] = {}
        self._mutes: dict[str, set[str]] = {}
        self._reports: deque[Report] = deque(maxlen=KEEP_REPORTS)
        self._reported: dict[tuple[str, str, str], Report] = {}
        self._report_last: Position = ORIGIN
        self._table_buckets = TokenBuckets()
        self._player_buckets = TokenBuckets()
        self._followers: dict[str, FanOut[ChatMessage]] = {}
        # (table, sender, request id) -> (position, fingerprint, until when), oldest first.
        self._requests: OrderedDict[tuple[str, str, str], tuple[Position, str, int]] = OrderedDict()
        self._closed = False

    def _chat(self, table_id: str) -> _Chat | None:
        """The table's chat, unless nothing was written to it for the time chat is kept."""
        chat = self._chats.get(table_id)
        if chat is not None and chat.written_ms < self._clock() * 1000 - self._keep_ms:
            del self._chats[table_id]
            return None
        return chat

    async def spend_player_rate(self, player_id: str, rate: Rate, now_ms: int) -> None:
        self._check_open()
        wait = self._player_buckets.take(player_id, rate, now_ms / 1000)
        if wait is not None:
            raise rate_limited("player", wait, rate)

    def _request(self, message: NewMessage) -> tuple[str, str, str]:
        return (message.table_id, message.sender_id, message.request_id)

    async def stored_request(self, message: NewMessage) -> ChatMessage | None:
        self._check_open()
        if not message.request_id:
            return None
        record = self._requests.get(self._request(message))
        if record is None or record[2] <= self._clock() * 1000:
            return None
        return earlier_copy(message, record[0], record[1])

    async def append(self, message: NewMessage, table_rate: Rate, now_ms: int) -> ChatMessage:
        earlier = await self.stored_request(message)
        if earlier is not None:
            return earlier
        wait = self._table_buckets.take(message.table_id, table_rate, now_ms / 1000)
        if wait is not None:
            raise rate_limited("table", wait, table_rate)
        chat = self._chat(message.table_id) or self._chats.setdefault(message.table_id, _Chat())
        chat.last = next_position(chat.last, now_ms)
        chat.written_ms = now_ms
        stored = ChatMessage(
            chat.last,
            message.table_id,
            message.channel,
            message.sender_id,
            message.display_name,
            message.text,
        )
        chat.messages.append(stored)
        while len(chat.messages) > self._keep:
            chat.deleted = chat.messages.popleft().position
        if message.request_id:
            key = self._request(message)
            self._requests.pop(key, None)
            until = int(self._clock() * 1000) + REQUEST_KEPT_MS  # as Redis's PX: from now
            self._requests[key] = (stored.position, message.fingerprint, until)
            while len(self._requests) > REQUESTS_KEPT:
                self._requests.popitem(last=False)
        followers = self._followers.get(message.table_id)
        if followers is not None:
            followers.publish((stored,))
        return stored

    async def read_after(self, table_id: str, after: Position, limit: int) -> list[ChatMessage]:
        self._check_open()
        chat = self._chat(table_id)
        check_resumable(
            after,
            now_ms=int(self._clock() * 1000),
            exists=chat is not None,
            last=chat.last if chat else ORIGIN,
            deleted=chat.deleted if chat else ORIGIN,
        )
        if chat is None or limit <= 0:
            return []
        found = []
        for message in chat.messages:
            if message.position > after:
                found.append(message)
                if len(found) == limit:
                    break
        return found

    async def latest(self, table_id: str, count: int) -> list[ChatMessage]:
        self._check_open()
        chat = self._chat(table_id)
        if chat is None or count <= 0:
            return []
        return list(chat.messages)[-count:]

    async def head(self, table_id: str) -> Position:
        self._check_open()
        chat = self._chat(table_id)
        return ORIGIN if chat is None else chat.last

    async def message(self, table_id: str, position: Position) -> ChatMessage | None:
        chat = self._chat(table_id)
        found = [m for m in chat.messages if m.position == position] if chat else []
        return found[0] if found else None

    async def game_ended(self, table_id: str, at_ms: int) -> None:
        self._check_open()
        self._ended.setdefault(table_id, at_ms)

    async def ended_at(self, table_id: str) -> int | None:
        self._check_open()
        return self._ended.get(table_id)

    async def mutes(self, player_id: str) -> frozenset[str]:
        self._check_open()
        return frozenset(self._mutes.get(player_id, ()))

    async def set_muted(
        self, player_id: str, other: str, muted: bool, limit: int
    ) -> frozenset[str]:
        self._check_open()
        mutes = self._mutes.setdefault(player_id, set())
        if muted and other not in mutes and len(mutes) >= limit:
            raise too_many_muted(limit)
        if muted:
            mutes.add(other)
        else:
            mutes.discard(other)
        return frozenset(mutes)

    async def add_report(
        self, reporter_id: str, note: str, message: ChatMessage, now_ms: int
    ) -> Report:
        self._check_open()
        key = (reporter_id, message.table_id, message.cursor)
        if key in self._reported:
            return self._reported[key]
        self._report_last = next_position(self._report_last, now_ms)
        report = Report(
            f"{self._report_last[0]}-{self._report_last[1]}", now_ms, reporter_id, note, message
        )
        if len(self._reports) == self._reports.maxlen:
            oldest = self._reports[0]
            del self._reported[(oldest.reporter_id, oldest.message.table_id, oldest.message.cursor)]
        self._reports.append(report)
        self._reported[key] = report
        return report

    async def reports(self, after: str = "0-0", limit: int = 100) -> list[Report]:
        position = parse_cursor(after)
        return [r for r in self._reports if parse_cursor(r.report_id) > position][:limit]

    async def _join(self, mailbox: Mailbox[ChatMessage]) -> None:
        self._check_open()
        if await self.head(mailbox.key) > mailbox.delivered:
            mailbox.resync = True
        self._followers.setdefault(mailbox.key, FanOut()).mailboxes.add(mailbox)

    def _leave(self, mailbox: Mailbox[ChatMessage]) -> None:
        followers = self._followers.get(mailbox.key)
        if followers is not None:
            followers.mailboxes.discard(mailbox)
            if not followers.mailboxes:
                del self._followers[mailbox.key]

    @property
    def live_followers(self) -> int:
        return sum(len(followers.mailboxes) for followers in self._followers.values())

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for followers in self._followers.values():
            followers.fail(ChatUnavailable("the server is shutting down"))
            await followers.close()
        self._followers.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise ChatUnavailable("the server is shutting down")
