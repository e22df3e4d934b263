"""Chat on Redis (standalone or Cluster): every replica reads and writes the same chat.

Keys (prefix ``verrater``), a table's all tagged with its game's tag, so they sit in the slot of
the game's event log (``verrater:{g<table>}:events``), beside it and never inside it:

- ``verrater:{<tag>}:chat``: the table's messages, a stream (fields ``c`` channel, ``s`` sender,
  ``n`` display name, ``t`` text, ``p`` the previous entry's id), ``MAXLEN ~ 500`` (whole stream
  nodes are trimmed: about 500 kept), expiring 2 days after its last message;
- ``verrater:{<tag>}:chat-rate``: the table's token bucket (`append.lua` spends it and stores
  the message in one step, so every replica shares it);
- ``verrater:{<tag>}:chat-req:<sender>:<request id>``: the entry a request id stored and the
  message's fingerprint (`append.lua` reads and writes it in the same step), kept 10 minutes;
- ``verrater:{<tag>}:chat-meta``: when the table's game ended (kept 30 days);
- ``verrater:{<tag>}:chat-reported``: who reported which message (report ids), per table;
- ``verrater:{chat-mutes:<player>}``: a player's mutes (a set, in the player's slot);
- ``verrater:{chat-rate:<player>}``: a player's token bucket (`spend.lua`, before the message's
  own script: every replica spends the same);
- ``verrater:chat:reports``: every report, a stream (``MAXLEN ~ 10000``), its own slot: a shard
  that fails stops reports only.

Live: one subscription per followed table and process on the shared live reader
(services/redislive), decoded once and handed to every follower's mailbox a slice of followers
at a time (`services.mailbox.FanOut`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from redis.exceptions import ResponseError

from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, redis_client
from services.mailbox import FanOut, Mailbox
from services.redislive import Batch, LiveReader, ReaderClosed, ReaderFailed, Subscription

from .model import (
    KEEP_PER_TABLE,
    KEEP_SECONDS,
    ORIGIN,
    Channel,
    ChatMessage,
    NewMessage,
    Position,
    Report,
    format_cursor,
    parse_cursor,
)
from .store import (
    DEFAULT_INBOX_LIMIT,
    ENDED_KEPT_SECONDS,
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


def _script(name: str) -> str:
    """A script of this package with the token bucket's function before it."""
    here = resources.files(__package__)
    return here.joinpath("bucket.lua").read_text() + here.joinpath(name).read_text()


APPEND_SCRIPT = _script("append.lua")
SPEND_SCRIPT = _script("spend.lua")
#: Beyond every position: a feed that lost its place makes every joiner re-read.
_UNKNOWN: Position = (1 << 62, 0)


def _position(entry_id: bytes | str) -> Position:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return parse_cursor(text)


def _message(table_id: str, entry_id: bytes, fields: dict[bytes, bytes]) -> ChatMessage:
    return ChatMessage(
        _position(entry_id),
        table_id,
        Channel(fields[b"c"].decode()),
        fields[b"s"].decode(),
        fields[b"n"].decode(),
        fields[b"t"].decode(),
    )


def _earlier(message: NewMessage, record: bytes) -> ChatMessage:
    """The message a copy under `message`'s request id stored (its record: '<id> <fingerprint>')."""
    entry_id, _, fingerprint = record.decode().partition(" ")
    return earlier_copy(message, _position(entry_id), fingerprint)


def _fields(raw: list[bytes] | dict[bytes, bytes]) -> dict[bytes, bytes]:
    if isinstance(raw, dict):
        return raw
    return dict(zip(raw[::2], raw[1::2], strict=True))


class _Feed:
    """One table followed in this process: one subscription, every follower's mailbox."""

    def __init__(self, subscription: Subscription, position: Position) -> None:
        self.subscription = subscription
        self.position = position
        self.followers: FanOut[ChatMessage] = FanOut()
        self.task: asyncio.Task[None] | None = None


class RedisChat(ChatStore):
    """:class:`ChatStore` on Redis; see the module docstring for the layout."""

    def __init__(
        self,
        url: str,
        *,
        tag_of: Callable[[str], str] = lambda table_id: table_id,
        key_prefix: str = "verrater",
        client_name: str = "verrater-chat",
        keep: int = KEEP_PER_TABLE,
        keep_seconds: float = KEEP_SECONDS,
        inbox_limit: int = DEFAULT_INBOX_LIMIT,
        command_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.redis: AnyRedis = redis_client(url, client_name=client_name)
        self._tag_of = tag_of
        self._prefix = key_prefix
        self._client_name = client_name
        self._keep = keep
        self._keep_ms = int(keep_seconds * 1000)
        self.inbox_limit = inbox_limit
        self._timeout = command_timeout
        self._append = self.redis.register_script(APPEND_SCRIPT)
        self._spend = self.redis.register_script(SPEND_SCRIPT)
        self._reader: LiveReader | None = None
        self._feeds: dict[str, _Feed] = {}
        self._closed = False

    # --- keys -------------------------------------------------------------------------------

    def _key(self, table_id: str, what: str) -> str:
        return f"{self._prefix}:{{{self._tag_of(table_id)}}}:{what}"

    def chat_key(self, table_id: str) -> str:
        """The table's chat stream."""
        return self._key(table_id, "chat")

    def _rate_key(self, player_id: str) -> str:
        return f"{self._prefix}:{{chat-rate:{player_id}}}"

    def _mutes_key(self, player_id: str) -> str:
        return f"{self._prefix}:{{chat-mutes:{player_id}}}"

    @property
    def reports_key(self) -> str:
        return f"{self._prefix}:chat:reports"

    async def _call(self, command: Callable[[], Any]) -> Any:
        """One command, its transient failures (and a store that does not answer within the
        command timeout) as STORE_UNAVAILABLE."""
        self._check_open()
        try:
            async with asyncio.timeout(self._timeout):
                return await command()
        except TRANSIENT_REDIS_ERRORS + (TimeoutError,) as error:
            raise ChatUnavailable(type(error).__name__) from error

    # --- messages ---------------------------------------------------------------------------

    async def spend_player_rate(self, player_id: str, rate: Rate, now_ms: int) -> None:
        wait = await self._call(
            lambda: self._spend(
                keys=[self._rate_key(player_id)],
                args=[now_ms, repr(rate.per_second), repr(rate.burst)],
            )
        )
        if int(wait):
            raise rate_limited("player", int(wait), rate)

    def _request_key(self, message: NewMessage) -> str:
        return self._key(message.table_id, f"chat-req:{message.sender_id}:{message.request_id}")

    async def stored_request(self, message: NewMessage) -> ChatMessage | None:
        if not message.request_id:
            return None
        record = await self._call(lambda: self.redis.get(self._request_key(message)))
        return None if record is None else _earlier(message, record)

    async def append(self, message: NewMessage, table_rate: Rate, now_ms: int) -> ChatMessage:
        table_id = message.table_id
        keys = [self.chat_key(table_id), self._key(table_id, "chat-rate")]
        if message.request_id:
            keys.append(self._request_key(message))
        answer = await self._call(
            lambda: self._append(
                keys=keys,
                args=[
                    now_ms,
                    repr(table_rate.per_second),
                    repr(table_rate.burst),
                    self._keep,
                    self._keep_ms,
                    REQUEST_KEPT_MS,
                    message.fingerprint,
                    "c",
                    str(message.channel),
                    "s",
                    message.sender_id,
                    "n",
                    message.display_name,
                    "t",
                    message.text,
                ],
            )
        )
        stored, value = int(answer[0]), answer[1]
        if stored == 2:
            return _earlier(message, value)
        if not stored:
            raise rate_limited("table", int(value), table_rate)
        return ChatMessage(
            _position(value),
            table_id,
            message.channel,
            message.sender_id,
            message.display_name,
            message.text,
        )

    async def _inspect(self, table_id: str, after: Position, limit: int) -> tuple[Any, Any]:
        key = self.chat_key(table_id)

        async def read() -> list[Any]:
            pipe = self.redis.pipeline(transaction=False)
            pipe.xrange(key, f"({format_cursor(after)}", "+", count=max(limit, 1))
            pipe.xinfo_stream(key)
            replies: list[Any] = await pipe.execute(raise_on_error=False)
            return replies

        entries, info = await self._call(read)
        if isinstance(entries, Exception):
            raise entries
        return entries, None if isinstance(info, ResponseError) else info

    async def read_after(self, table_id: str, after: Position, limit: int) -> list[ChatMessage]:
        """``XRANGE`` after the position, then ``XINFO STREAM``: what the read returned is whole
        unless retention dropped something after the position by the time of the info
        (retention only moves forward)."""
        entries, info = await self._inspect(table_id, after, limit)
        first = info["first-entry"] if info is not None else None
        check_resumable(
            after,
            now_ms=int(time.time() * 1000),
            exists=info is not None,
            last=_position(info["last-generated-id"]) if info is not None else ORIGIN,
            deleted=_position(_fields(first[1])[b"p"]) if first is not None else ORIGIN,
        )
        if limit <= 0:
            return []
        return [_message(table_id, entry_id, _fields(fields)) for entry_id, fields in entries]

    async def latest(self, table_id: str, count: int) -> list[ChatMessage]:
        if count <= 0:
            return []
        entries = await self._call(
            lambda: self.redis.xrevrange(self.chat_key(table_id), "+", "-", count=count)
        )
        return [
            _message(table_id, entry_id, _fields(fields)) for entry_id, fields in reversed(entries)
        ]

    async def head(self, table_id: str) -> Position:
        entries = await self._call(
            lambda: self.redis.xrevrange(self.chat_key(table_id), "+", "-", count=1)
        )
        return _position(entries[0][0]) if entries else ORIGIN

    async def message(self, table_id: str, position: Position) -> ChatMessage | None:
        cursor = format_cursor(position)
        entries = await self._call(
            lambda: self.redis.xrange(self.chat_key(table_id), cursor, cursor, count=1)
        )
        return _message(table_id, entries[0][0], _fields(entries[0][1])) if entries else None

    # --- the game's end, mutes, reports -----------------------------------------------------

    async def game_ended(self, table_id: str, at_ms: int) -> None:
        key = self._key(table_id, "chat-meta")

        async def write() -> None:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hsetnx(key, "ended_at", at_ms)
            pipe.expire(key, ENDED_KEPT_SECONDS)
            await pipe.execute()

        await self._call(write)

    async def ended_at(self, table_id: str) -> int | None:
        value = await self._call(
            lambda: self.redis.hget(self._key(table_id, "chat-meta"), "ended_at")
        )
        return None if value is None else int(value)

    async def mutes(self, player_id: str) -> frozenset[str]:
        members = await self._call(lambda: self.redis.smembers(self._mutes_key(player_id)))
        return frozenset(member.decode() for member in members)

    async def set_muted(
        self, player_id: str, other: str, muted: bool, limit: int
    ) -> frozenset[str]:
        key = self._mutes_key(player_id)
        if muted:
            mutes = await self.mutes(player_id)
            if other not in mutes and len(mutes) >= limit:  # a soft limit: two at once may pass
                raise too_many_muted(limit)
            await self._call(lambda: self.redis.sadd(key, other))
        else:
            await self._call(lambda: self.redis.srem(key, other))
        return await self.mutes(player_id)

    async def add_report(
        self, reporter_id: str, note: str, message: ChatMessage, now_ms: int
    ) -> Report:
        reported = self._key(message.table_id, "chat-reported")
        field = f"{message.cursor}:{reporter_id}"
        earlier = await self._call(lambda: self.redis.hget(reported, field))
        if earlier is not None:
            found = await self._report(earlier.decode())
            if found is not None:
                return found
        body = json.dumps(
            {
                "at": now_ms,
                "reporter": reporter_id,
                "note": note,
                "table": message.table_id,
                "cursor": message.cursor,
                "channel": str(message.channel),
                "sender": message.sender_id,
                "name": message.display_name,
                "text": message.text,
            }
        )
        report_id = (
            await self._call(
                lambda: self.redis.xadd(
                    self.reports_key, {"r": body}, maxlen=KEEP_REPORTS, approximate=True
                )
            )
        ).decode()
        if not await self._call(lambda: self.redis.hsetnx(reported, field, report_id)):
            # Another replica reported it meanwhile: keep theirs.
            await self._call(lambda: self.redis.xdel(self.reports_key, report_id))
            winner = await self._call(lambda: self.redis.hget(reported, field))
            found = await self._report(winner.decode())
            if found is not None:
                return found
        await self._call(lambda: self.redis.expire(reported, KEEP_SECONDS))
        return _report_from(report_id, body)

    async def _report(self, report_id: str) -> Report | None:
        entries = await self._call(
            lambda: self.redis.xrange(self.reports_key, report_id, report_id, count=1)
        )
        if not entries:
            return None
        return _report_from(report_id, _fields(entries[0][1])[b"r"].decode())

    async def reports(self, after: str = "0-0", limit: int = 100) -> list[Report]:
        parse_cursor(after)
        entries = await self._call(
            lambda: self.redis.xrange(self.reports_key, f"({after}", "+", count=limit)
        )
        return [
            _report_from(entry_id.decode(), _fields(fields)[b"r"].decode())
            for entry_id, fields in entries
        ]

    # --- live -------------------------------------------------------------------------------

    async def _join(self, mailbox: Mailbox[ChatMessage]) -> None:
        self._check_open()
        feed = self._feeds.get(mailbox.key)
        if feed is None:
            head = await self.head(mailbox.key)
            if self._reader is None:
                self._reader = LiveReader.on_client(
                    self.url, self.redis, client_name=self._client_name
                )
            subscription = await self._reader.subscribe(
                self.chat_key(mailbox.key), format_cursor(head)
            )
            feed = self._feeds.get(mailbox.key)  # another follower may have come meanwhile
            if feed is None:
                feed = self._feeds[mailbox.key] = _Feed(subscription, head)
                feed.task = asyncio.get_running_loop().create_task(self._pump(mailbox.key, feed))
            else:
                subscription.close()
        if feed.position > mailbox.delivered:
            mailbox.resync = True
        feed.followers.mailboxes.add(mailbox)

    async def _pump(self, table_id: str, feed: _Feed) -> None:
        """Hand what the live reader brings to every follower of the table, decoded once."""
        try:
            async for item in feed.subscription:
                if isinstance(item, Batch):
                    messages = [
                        _message(table_id, entry_id, _fields(fields))
                        for entry_id, fields in item.entries
                    ]
                    feed.position = messages[-1].position
                    feed.followers.publish(messages)
                else:  # some entries never reached this process's feed: everybody re-reads
                    feed.position = _UNKNOWN
                    feed.followers.missed()
        except (ReaderFailed, ReaderClosed) as error:
            feed.followers.fail(ChatUnavailable(str(error)))
            if self._feeds.get(table_id) is feed:
                del self._feeds[table_id]

    def _leave(self, mailbox: Mailbox[ChatMessage]) -> None:
        feed = self._feeds.get(mailbox.key)
        if feed is None:
            return
        feed.followers.mailboxes.discard(mailbox)
        if not feed.followers.mailboxes:
            del self._feeds[mailbox.key]
            feed.subscription.close()
            if feed.task is not None:
                feed.task.cancel()

    @property
    def live_followers(self) -> int:
        return sum(len(feed.followers.mailboxes) for feed in self._feeds.values())

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for feed in list(self._feeds.values()):
            feed.followers.fail(ChatUnavailable("the server is shutting down"))
            await feed.followers.close()
            feed.subscription.close()
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await feed.task
        self._feeds.clear()
        if self._reader is not None:
            await self._reader.close()
        await self.redis.aclose()

    def _check_open(self) -> None:
        if self._closed:
            raise ChatUnavailable("the server is shutting down")


def _report_from(report_id: str, body: str) -> Report:
    data = json.loads(body)
    return Report(
        report_id,
        int(data["at"]),
        data["reporter"],
        data["note"],
        ChatMessage(
            parse_cursor(data["cursor"]),
            data["table"],
            Channel(data["channel"]),
            data["sender"],
            data["name"],
            data["text"],
        ),
    )
