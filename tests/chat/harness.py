"""A whole backend on loopback for the chat's end-to-end tests, with a clock the tests move:
players, tables, games, and WatchChat streams collected as they arrive."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from grpc import aio

from services.api.verrater.v1 import chat_pb2, chat_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.bootstrap import Backend, start_backend
from services.chat import ChatStore
from services.config import Config
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import bearer

SECRET = "chat-test-secret-at-least-32-bytes-long!"
Metadata = tuple[tuple[str, str], ...]
#: How long a test waits for a condition (a loaded machine is slow, never wrong).
PATIENCE_S = 60.0


@dataclass
class Clock:
    now: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.now


@dataclass
class Player:
    player_id: str
    name: str
    metadata: Metadata


@dataclass
class ChatStack:
    backend: Backend
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    chat: chat_pb2_grpc.ChatServiceAsyncStub
    clock: Clock
    channel: aio.Channel

    @property
    def store(self) -> ChatStore:
        assert self.backend.chat is not None
        return self.backend.chat

    async def player(self, name: str) -> Player:
        answer = await self.lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=name))
        session = answer.session
        return Player(session.player_id, name, bearer(session.token))

    async def table(self, host: Player, *others: Player, start: bool = True) -> str:
        """A table of `host` and `others` (3 or 4 in all), started unless `start` is false."""
        created = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=1 + len(others)), metadata=host.metadata
        )
        table_id = created.table.table_id
        for other in others:
            await self.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id), metadata=other.metadata
            )
        if start:
            await self.lobby.StartGame(
                lobby_pb2.StartGameRequest(table_id=table_id), metadata=host.metadata
            )
        return table_id

    async def say(
        self,
        who: Player | Metadata,
        table_id: str,
        text: str,
        channel: int = chat_pb2.CHAT_CHANNEL_UNSPECIFIED,
        game_id: str = "",
    ) -> chat_pb2.ChatMessage:
        """Send `text` to the table (or, with `game_id`, to the table of that game)."""
        metadata = who.metadata if isinstance(who, Player) else who
        answer = await self.chat.SendChatMessage(
            chat_pb2.SendChatMessageRequest(
                table_id=table_id, channel=channel, text=text, game_id=game_id
            ),
            metadata=metadata,
        )
        return answer.message

    @asynccontextmanager
    async def watching(
        self, who: Player, table_id: str, cursor: str = "", backlog: int = 0, game_id: str = ""
    ) -> AsyncIterator[Watcher]:
        """A WatchChat stream of the table (or, with `game_id`, of that game's table)."""
        watcher = Watcher()
        call = self.chat.WatchChat(
            chat_pb2.WatchChatRequest(
                table_id=table_id, cursor=cursor, backlog=backlog, game_id=game_id
            ),
            metadata=who.metadata,
        )
        watcher.task = asyncio.create_task(watcher.collect(call))
        try:
            await asyncio.wait_for(call.wait_for_connection(), PATIENCE_S)
            yield watcher
        finally:
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher.task


@dataclass
class Watcher:
    """What one WatchChat stream received, in order."""

    messages: list[chat_pb2.ChatMessage] = field(default_factory=list)
    error: BaseException | None = None
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def collect(self, call: Any) -> None:
        try:
            async for response in call:
                self.messages.append(response.message)
                self._changed.set()
        except aio.AioRpcError as error:
            self.error = error
            self._changed.set()

    @property
    def texts(self) -> list[str]:
        return [message.text for message in self.messages]

    async def until(self, condition: Callable[[list[chat_pb2.ChatMessage]], bool]) -> None:
        async def waited() -> None:
            while not condition(self.messages):
                if self.error is not None:
                    raise self.error
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(waited(), PATIENCE_S)

    async def got(self, text: str) -> None:
        """Wait until a message with `text` arrived."""
        await self.until(lambda messages: any(m.text == text for m in messages))


@asynccontextmanager
async def running(
    kind: str = "memory", redis_url: str | None = None, **settings: Any
) -> AsyncIterator[ChatStack]:
    """A backend on `kind` ("memory" or "redis") stores, rate limits of the edge off, and
    `settings` (Config's) as given."""
    clock = Clock()
    config = Config(
        bind="127.0.0.1:0", token_secret=SECRET, redis_url=redis_url, command_rate=0, **settings
    )
    stores: dict[str, Any] = {}
    if kind == "memory":
        stores = {"event_store": InMemoryEventStore(), "lobby_store": InMemoryLobbyStore()}
    else:
        assert redis_url is not None
        stores = {
            "event_store": RedisEventStore.from_url(redis_url),
            "lobby_store": RedisLobbyStore.from_url(redis_url),
        }
    backend = await start_backend(replace(config), clock=clock, **stores)
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield ChatStack(
            backend,
            lobby_pb2_grpc.LobbyServiceStub(channel),  # type: ignore[arg-type]
            chat_pb2_grpc.ChatServiceStub(channel),  # type: ignore[arg-type]
            clock,
            channel,
        )
    finally:
        await channel.close()
        await backend.stop(None)
