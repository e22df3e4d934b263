"""The browser's door: gRPC-Web over HTTP/1.1 in, real gRPC calls out, and the page.

Each gRPC-Web request becomes one gRPC call to the service that owns its method, with the
request's bytes and metadata as they came (the browser's address appended to
`x-forwarded-for`); the answer goes back as gRPC-Web data frames and a trailer frame with the
call's status and trailing metadata (`grpc-status-details-bin` included). The door decodes no
message and builds no refusal of the API's own: authentication, limits, error codes and reasons
are the services' by construction. It knows only the wire and which methods a browser can call
(unary and server-streaming ones; `Play` is bidirectional, which gRPC-Web cannot carry).

What it holds per call is bounded: a request body of at most `max_request_bytes` (refused
before it is read when its length says so), one response message at a time on a stream (writing
waits for the browser to read, so a slow browser slows its stream, never the server's memory).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
from aiohttp import web
from grpc import aio

from services.api.verrater.v1 import ai_pb2, chat_pb2, game_pb2, lobby_pb2, stats_pb2

from .assets import ASSETS_DIR
from .grpcweb import (
    ACCEPTED_TYPES,
    CONTENT_TYPE,
    BadMetadata,
    FramingError,
    call_metadata,
    frame,
    grpc_timeout,
    header_value,
    is_transport_header,
    single_message,
    trailers,
)

log = logging.getLogger("verrater.web")

#: The services a browser reaches, by their full names (`verrater.v1.GameService`, ...).
SERVICES = tuple(
    service
    for module in (lobby_pb2, chat_pb2, game_pb2, ai_pb2, stats_pb2)
    for service in module.DESCRIPTOR.services_by_name.values()
)
GAME_SERVICE = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
AI_SERVICE = ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name
STATS_SERVICE = stats_pb2.DESCRIPTOR.services_by_name["StatsService"].full_name

UNARY = "unary"
SERVER_STREAMING = "server_streaming"
#: Every method of the contract: "/package.Service/Method" -> unary, server_streaming, or why not.
METHODS: dict[str, str] = {}
for _service in SERVICES:
    for _method in _service.methods:
        if _method.client_streaming:
            _kind = (
                f"{_method.name} streams from the client, which gRPC-Web cannot carry: browsers "
                "play with Watch (WATCH_MODE_TURNS) and SubmitCommand"
            )
        else:
            _kind = SERVER_STREAMING if _method.server_streaming else UNARY
        METHODS[f"/{_service.full_name}/{_method.name}"] = _kind

#: gRPC's default limit for one request message, plus its frame header.
MAX_REQUEST_BYTES = 1024 * 1024 + 5
#: What a browser may send cross-origin besides the body: the headers gRPC-Web clients set.
ALLOWED_HEADERS = "authorization, content-type, grpc-timeout, x-grpc-web, x-trace-id, x-user-agent"
EXPOSED_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin"
PREFLIGHT_MAX_AGE_S = "600"
#: The page needs nothing but its own files and its own origin's gRPC-Web.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True, slots=True)
class Origins:
    """The origins whose pages may call the door from another origin (CORS); the door's own
    page is same-origin and needs none. `*` admits any origin (calls carry bearer tokens, never
    cookies, so no ambient authority leaks)."""

    allowed: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> Origins:
        """From `VERRATER_WEB_ORIGINS`: comma-separated origins such as https://play.example."""
        allowed: set[str] = set()
        for item in (part.strip().rstrip("/") for part in text.split(",")):
            if not item:
                continue
            if item != "*":
                parts = urlsplit(item)
                if parts.scheme not in ("http", "https") or not parts.netloc or parts.path:
                    raise ValueError(
                        f"VERRATER_WEB_ORIGINS: {item!r} is not an origin (scheme://host[:port])"
                    )
            allowed.add(item.lower())
        return cls(frozenset(allowed))

    def admits(self, origin: str) -> bool:
        return "*" in self.allowed or origin.lower().rstrip("/") in self.allowed


@dataclass(slots=True)
class Upstreams:
    """Where each service's calls go: one gRPC channel per distinct address."""

    addresses: Mapping[str, str]
    _channels: dict[str, aio.Channel] = field(default_factory=dict)

    @classmethod
    def one(cls, address: str) -> Upstreams:
        """Every service at one address (embedded mode)."""
        return cls({service.full_name: address for service in SERVICES})

    def channel(self, service: str) -> aio.Channel | None:
        address = self.addresses.get(service)
        if address is None:
            return None
        channel = self._channels.get(address)
        if channel is None:
            channel = aio.insecure_channel(address)
            self._channels[address] = channel
        return channel

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()


@dataclass(frozen=True, slots=True)
class Forward:
    """One gRPC call to make for a gRPC-Web request."""

    path: str
    message: bytes
    metadata: list[tuple[str, str | bytes]]
    timeout: float | None


def same_origin(origin: str, request: web.Request) -> bool:
    return urlsplit(origin).netloc.lower() == request.host.lower()


def _status_only(code: grpc.StatusCode, message: str) -> web.Response:
    """A gRPC-Web answer with no message: the status in a trailer frame."""
    return web.Response(
        body=trailers(code.value[0], message), headers={"Content-Type": CONTENT_TYPE}
    )


def _forwarded_for(request: web.Request) -> str:
    """`x-forwarded-for` with the browser's address appended: the lobby's limits per network
    address count the browser, not the door (its services trust the door's hop)."""
    hops = [value for value in request.headers.getall("X-Forwarded-For", []) if value.strip()]
    remote = request.remote or "unknown"
    with contextlib.suppress(ValueError):
        remote = str(ipaddress.ip_address(remote))
    return ", ".join([*hops, remote])


def _error_trailers(error: aio.AioRpcError) -> bytes:
    return trailers(error.code().value[0], error.details() or "", error.trailing_metadata() or ())


def _initial_headers(metadata: Iterable[tuple[str, Any]] | None) -> dict[str, str]:
    headers = {"Content-Type": CONTENT_TYPE}
    for key, value in metadata or ():
        if not is_transport_header(key):
            headers[key] = header_value(key, value)
    return headers


class Door:
    """The gRPC-Web door and the page, on one aiohttp application."""

    def __init__(
        self,
        upstreams: Upstreams,
        *,
        origins: Origins = Origins(),
        assets: Path = ASSETS_DIR,
        max_request_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self.upstreams = upstreams
        self.origins = origins
        self.assets = assets
        self.max_request_bytes = max_request_bytes
        self.app = web.Application(middlewares=[self._cors], client_max_size=max_request_bytes)
        self.app.router.add_get("/", self._page)
        self.app.router.add_get("/healthz", self._health)
        self.app.router.add_get("/assets/{name:[A-Za-z0-9._-]+}", self._asset)
        self.app.router.add_route("OPTIONS", "/{service}/{method}", self._preflight)
        self.app.router.add_post("/{service}/{method}", self._call)
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self, bind: str, *, shutdown_timeout: float = 5.0) -> int:
        """Listen on `bind` (`host:port`, port 0: any free one); return the port."""
        host, _, port = bind.rpartition(":")
        self._runner = web.AppRunner(
            self.app,
            handler_cancellation=True,  # a browser that leaves ends its upstream call at once
            access_log=None,
            shutdown_timeout=shutdown_timeout,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, host.strip("[]") or None, int(port))
        try:
            await site.start()
        except OSError:  # the address is taken: what was set up is closed on this loop
            await self.stop()
            raise
        self.port = int(self._runner.addresses[0][1])
        return self.port

    async def stop(self) -> None:
        """Stop listening, end open streams after the shutdown timeout, close the channels."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await self.upstreams.close()

    # --- HTTP around the calls --------------------------------------------------------------------

    @web.middleware
    async def _cors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        cross = origin is not None and not same_origin(origin, request)
        if cross and not self.origins.admits(origin or ""):
            return web.Response(status=403, text="this origin may not call the door\n")
        response: web.StreamResponse = await handler(request)
        if cross and origin is not None and not response.prepared:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
            response.headers["Vary"] = "Origin"
        return response

    async def _preflight(self, request: web.Request) -> web.Response:
        return web.Response(
            status=204,
            headers={
                "Access-Control-Allow-Methods": "POST",
                "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_S,
            },
        )

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _page(self, request: web.Request) -> web.StreamResponse:
        index = self.assets / "index.html"
        if not index.is_file():
            return web.Response(status=503, text="the page is not built: run `make web`\n")
        return web.FileResponse(index, headers={**PAGE_HEADERS, "Cache-Control": "no-cache"})

    async def _asset(self, request: web.Request) -> web.StreamResponse:
        path = self.assets / "assets" / request.match_info["name"]
        if not path.is_file():
            raise web.HTTPNotFound()
        # Vite names every built file after a hash of its content.
        return web.FileResponse(
            path, headers={**PAGE_HEADERS, "Cache-Control": "public, max-age=31536000, immutable"}
        )

    # --- the calls --------------------------------------------------------------------------------

    async def _call(self, request: web.Request) -> web.StreamResponse:
        content_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if content_type not in ACCEPTED_TYPES:
            return web.Response(status=415, text=f"send gRPC-Web: Content-Type {CONTENT_TYPE}\n")
        service = request.match_info["service"]
        path = f"/{service}/{request.match_info['method']}"
        kind = METHODS.get(path)
        channel = self.upstreams.channel(service)
        if kind is None or channel is None:
            return _status_only(grpc.StatusCode.UNIMPLEMENTED, f"Method not found: {path}")
        if kind not in (UNARY, SERVER_STREAMING):
            return _status_only(grpc.StatusCode.UNIMPLEMENTED, kind)
        body = await self._body(request)
        if body is None:
            return _status_only(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the request is larger than {self.max_request_bytes} bytes",
            )
        try:
            message = single_message(body)
            metadata = call_metadata(request.headers.items())
        except (FramingError, BadMetadata) as error:
            return _status_only(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        metadata.append(("x-forwarded-for", _forwarded_for(request)))
        forward = Forward(
            path, message, metadata, grpc_timeout(request.headers.get("grpc-timeout"))
        )
        if kind == UNARY:
            return await self._unary(channel, forward)
        return await self._server_streaming(request, channel, forward)

    async def _body(self, request: web.Request) -> bytes | None:
        """The request body, or None once it passes the limit (read no further than that)."""
        if (request.content_length or 0) > self.max_request_bytes:
            return None
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.content.iter_any():
            size += len(chunk)
            if size > self.max_request_bytes:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    async def _unary(self, channel: aio.Channel, forward: Forward) -> web.Response:
        stub: aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(forward.path)
        call = stub(forward.message, metadata=forward.metadata, timeout=forward.timeout)
        try:
            answer = await call
        except aio.AioRpcError as error:
            return web.Response(
                body=_error_trailers(error), headers=_initial_headers(error.initial_metadata())
            )
        return web.Response(
            body=frame(answer)
            + trailers(grpc.StatusCode.OK.value[0], "", await call.trailing_metadata() or ()),
            headers=_initial_headers(await call.initial_metadata()),
        )

    async def _server_streaming(
        self, request: web.Request, channel: aio.Channel, forward: Forward
    ) -> web.StreamResponse:
        stub: aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(forward.path)
        call = stub(forward.message, metadata=forward.metadata, timeout=forward.timeout)
        response = web.StreamResponse()
        try:
            async for answer in call:
                if not response.prepared:
                    response.headers.update(_initial_headers(await call.initial_metadata()))
                    await response.prepare(request)
                # Waits while the browser's side of the connection is full: backpressure
                # reaches the service through gRPC's flow control, never a queue here.
                await response.write(frame(answer))
            initial = None if response.prepared else await call.initial_metadata()
            status = trailers(grpc.StatusCode.OK.value[0], "", await call.trailing_metadata() or ())
        except aio.AioRpcError as error:
            initial = error.initial_metadata()
            status = _error_trailers(error)
        finally:
            call.cancel()  # a no-op once the call is over; ends it when the browser left
        if not response.prepared:
            response.headers.update(_initial_headers(initial))
            await response.prepare(request)
        await response.write(status)
        await response.write_eof()
        return response
