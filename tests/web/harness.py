"""The whole backend with its web door, and a gRPC-Web client made of plain HTTP.

`door_stack` starts what `verrater serve` starts in embedded mode (the services on loopback,
the door on its own port, reaching them through the private Unix socket), and opens two ways
in: a native gRPC channel, and an aiohttp session speaking gRPC-Web to the door. `Answer` is
what one call came back with, the same shape whichever way it went, so tests compare them.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import aiohttp
import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc import aio

from services.bootstrap import Backend, start_backend, start_web
from services.config import Config
from services.rpc import bearer
from services.web import Door, Upstreams
from services.web.grpcweb import CONTENT_TYPE, TRAILER_FLAG, frame, parse_frames, parse_trailers

SECRET = "web-test-secret-at-least-32-bytes-long!!"


@dataclass(frozen=True)
class Answer:
    """One call's outcome: the status, the response messages' bytes, the refusal's reasons."""

    code: grpc.StatusCode
    messages: tuple[bytes, ...] = ()
    details: str = ""
    reasons: tuple[str, ...] = ()
    metadata: tuple[tuple[tuple[str, str], ...], ...] = ()


def _reasons(status_bytes: bytes | None) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    if not status_bytes:
        return (), ()
    status = status_pb2.Status.FromString(status_bytes)
    reasons, metadata = [], []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reasons.append(info.reason)
            metadata.append(tuple(sorted(info.metadata.items())))
    return tuple(reasons), tuple(metadata)


@dataclass
class DoorStack:
    backend: Backend
    door: Door
    channel: aio.Channel
    http: aiohttp.ClientSession
    config: Config

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.door.port}"

    async def native(
        self, path: str, request: bytes, token: str | None = None, *, stream: bool = False
    ) -> Answer:
        """The call over native gRPC, straight to the services."""
        metadata = bearer(token) if token else ()
        messages: list[bytes] = []
        try:
            if stream:
                streamed: aio.UnaryStreamMultiCallable[bytes, bytes] = self.channel.unary_stream(
                    path
                )
                async for message in streamed(request, metadata=metadata):
                    messages.append(message)
            else:
                unary: aio.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(path)
                messages.append(await unary(request, metadata=metadata))
        except aio.AioRpcError as error:
            details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
            reasons, info = _reasons(details if isinstance(details, bytes) else None)
            return Answer(error.code(), tuple(messages), error.details() or "", reasons, info)
        return Answer(grpc.StatusCode.OK, tuple(messages))

    async def web(
        self,
        path: str,
        request: bytes,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        """The same call as gRPC-Web through the door, over plain HTTP."""
        sent = {"Content-Type": CONTENT_TYPE, "X-Grpc-Web": "1", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        async with self.http.post(self.url + path, data=frame(request), headers=sent) as reply:
            assert reply.status == 200, await reply.text()
            assert reply.headers["Content-Type"] == CONTENT_TYPE
            body = await reply.read()
        return web_answer(body)


def web_answer(body: bytes) -> Answer:
    """A gRPC-Web response body as an Answer: data frames, then exactly one trailer frame."""
    frames = parse_frames(body)
    assert frames and frames[-1][0] == TRAILER_FLAG, "the body ends with its trailers"
    assert all(flag == 0 for flag, _ in frames[:-1]), "data frames only before the trailers"
    trailer = parse_trailers(frames[-1][1])
    code = grpc.StatusCode(
        next(c for c in grpc.StatusCode if c.value[0] == int(trailer["grpc-status"][0])).value
    )
    details_bin = trailer.get("grpc-status-details-bin", [""])[0]
    details = base64.b64decode(details_bin + "=" * (-len(details_bin) % 4)) if details_bin else None
    reasons, info = _reasons(details)
    return Answer(
        code,
        tuple(payload for _, payload in frames[:-1]),
        unquote(trailer.get("grpc-message", [""])[0]),
        reasons,
        info,
    )


@asynccontextmanager
async def door_stack(tmp_path: Path, **settings: Any) -> AsyncIterator[DoorStack]:
    """The embedded backend (rate limits off unless `settings` set them) with its door."""
    config = replace(
        Config(
            bind="127.0.0.1:0",
            web_bind="127.0.0.1:0",
            token_secret=SECRET,
            command_rate=0,
            lobby_rate=0,
        ),
        **settings,
    )
    socket = str(tmp_path / "door.sock")
    backend = await start_backend(config, door_socket=socket)
    door = await start_web(config, Upstreams.one(f"unix:{socket}"))
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    http = aiohttp.ClientSession()
    try:
        yield DoorStack(backend, door, channel, http, config)
    finally:
        await http.close()
        await channel.close()
        await door.stop()
        await backend.stop(None)
