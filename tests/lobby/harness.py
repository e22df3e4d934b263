"""A lobby and game service on loopback for the lobby's end-to-end tests, on either store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from services.api.verrater.v1 import game_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.bootstrap import Backend, start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.lobby import model
from services.lobby.model import Player, Table
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import DOMAIN, bearer

SECRET = "lobby-test-secret-at-least-32-bytes-long"
Metadata = tuple[tuple[str, str], ...]


@dataclass
class Stack:
    backend: Backend
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    game: game_pb2_grpc.GameServiceAsyncStub
    config: Config
    channel: aio.Channel

    def address(self) -> str:
        return f"127.0.0.1:{self.backend.port}"


@asynccontextmanager
async def running(kind: str, redis_url: str | None, **settings: Any) -> AsyncIterator[Stack]:
    """A whole backend on `kind` ("memory" or "redis") stores; `settings` override the Config
    (rate limits are off unless a test sets them)."""
    config = replace(
        Config(bind="127.0.0.1:0", token_secret=SECRET, redis_url=redis_url, command_rate=0),
        **settings,
    )
    if kind == "memory":
        backend = await start_backend(
            config, event_store=InMemoryEventStore(), lobby_store=InMemoryLobbyStore()
        )
    else:
        assert redis_url is not None
        backend = await start_backend(
            config,
            event_store=RedisEventStore.from_url(redis_url),
            lobby_store=RedisLobbyStore.from_url(redis_url),
        )
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield Stack(
            backend,
            lobby_pb2_grpc.LobbyServiceStub(channel),  # type: ignore[arg-type]
            game_pb2_grpc.GameServiceStub(channel),  # type: ignore[arg-type]
            config,
            channel,
        )
    finally:
        await channel.close()
        await backend.stop(None)


async def register(
    stack: Stack, name: str, metadata: Metadata = (), request_id: str = ""
) -> lobby_pb2.Session:
    answer = await stack.lobby.RegisterGuest(
        lobby_pb2.RegisterGuestRequest(display_name=name, request_id=request_id),
        metadata=metadata,
    )
    return answer.session


async def guest(stack: Stack, name: str) -> tuple[str, tuple[tuple[str, str]]]:
    session = await register(stack, name)
    return session.player_id, bearer(session.token)


async def expect(code: grpc.StatusCode, call: object) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == code, caught.value.details()
    details = caught.value.details()
    assert details
    return details


async def refused(code: grpc.StatusCode, reason: str, call: object) -> error_details_pb2.ErrorInfo:
    """Await `call`, which must fail with `code` and an ErrorInfo of `reason`; the ErrorInfo."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    error = caught.value
    assert error.code() == code, (error.code(), error.details())
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, f"{error.code()} without a rich status: {error.details()}"
    info = error_details_pb2.ErrorInfo()
    assert status.details and status.details[0].Unpack(info)
    assert (info.domain, info.reason) == (DOMAIN, reason), (info, error.details())
    return info


def waiting_table(
    host: Player, *, size: int = 4, opened_from: str = "", now_ms: int = 1_000
) -> Table:
    """A public table just opened by `host` (no timer, no setup), for the store tests."""
    return model.new_table(
        host,
        size=size,
        private=False,
        builder_may_move=False,
        auto_start=False,
        setup=None,
        turn_seconds=0,
        now_ms=now_ms,
        opened_from=opened_from,
    )
