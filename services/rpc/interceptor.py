"""The edge every service's calls pass: who the caller is, how fast they may call, and how a
refusal leaves.

One interceptor wraps every handler once: it verifies the bearer token (except for public
methods), applies the per-player rate limits, counts open streams per player and per network
address, makes the identity available to the handler through a context variable, and turns
whatever the handler raises into a status through the one table (:mod:`services.rpc.status`).
Request bytes that do not decode are refused as INVALID_ARGUMENT there too (health checking and
reflection included), so no client action can end in UNKNOWN. Handlers only raise.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

import grpc
import structlog
from google.protobuf.message import DecodeError
from grpc import aio

from services.errors import Reason, ServiceError
from services.observability import REFUSALS, bind_call, get_logger

from .limits import RateLimiter, StreamQuota
from .peers import TrustedProxies
from .status import Refusal, refusal
from .tokens import METADATA_KEY, Identity, InvalidToken, Role, TokenIssuer

log = get_logger("verrater.rpc")
TRACE_KEY = "x-trace-id"

_identity: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "verrater_identity", default=None
)
_method: contextvars.ContextVar[str] = contextvars.ContextVar("verrater_method", default="")

#: Methods anyone may call without a token (health checks, reflection).
ALWAYS_PUBLIC_PREFIXES = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)
#: RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token (the scheme case-insensitive, as every
#: ABNF literal is, RFC 5234 §2.3), and nothing else in the header.
_BEARER = re.compile(r"(?i:bearer) +([A-Za-z0-9\-._~+/]+=*)")

# The stubs make these generic; at run time they are plain classes.
if TYPE_CHECKING:
    Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]
    Context: TypeAlias = aio.ServicerContext[Any, Any]
else:
    Handler = grpc.RpcMethodHandler
    Context = aio.ServicerContext


def caller() -> Identity | None:
    """The verified identity of the current call (None for a public method without a token)."""
    return _identity.get()


def authenticated() -> Identity:
    """The current call's identity; TOKEN_MISSING for a public method called without one."""
    identity = _identity.get()
    if identity is None:
        raise ServiceError(
            Reason.TOKEN_MISSING,
            "this call needs a token: send metadata 'authorization: Bearer <token>'",
        )
    return identity


def bearer_token(metadata: tuple[Any, ...]) -> str:
    """The token of the call's one `authorization` header; refusals say what is wrong."""
    headers = [value for key, value in metadata if key == METADATA_KEY]
    if not headers:
        raise ServiceError(
            Reason.TOKEN_MISSING,
            "this call needs a token: send metadata 'authorization: Bearer <token>'",
        )
    if len(headers) > 1:
        raise ServiceError(
            Reason.TOKEN_INVALID, "send exactly one 'authorization' header, not several"
        )
    value = headers[0]
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    match = _BEARER.fullmatch(text)
    if match is None:
        raise ServiceError(
            Reason.TOKEN_INVALID,
            "the authorization header must be 'Bearer <token>' (RFC 6750), nothing more",
        )
    return match.group(1)


class VerifiedTokens:
    """Tokens whose signature was already checked, so a busy client costs one HMAC, not one per
    call. Bounded (least recently used goes first); expiry is checked again on every use."""

    def __init__(
        self, issuer: TokenIssuer, size: int = 50_000, clock: Callable[[], float] = time.time
    ) -> None:
        self._issuer = issuer
        self._size = size
        self._clock = clock
        self._known: OrderedDict[str, Identity] = OrderedDict()

    def verify(self, token: str) -> Identity:
        identity = self._known.get(token)
        if identity is None:
            try:
                identity = self._issuer.verify(token, now=self._clock())
            except InvalidToken as error:
                raise ServiceError(error.reason, str(error)) from None
            self._known[token] = identity
            if len(self._known) > self._size:
                self._known.popitem(last=False)
        else:
            self._known.move_to_end(token)
        if identity.expires_at <= self._clock():
            del self._known[token]
            raise ServiceError(
                Reason.TOKEN_EXPIRED, "the token has expired; refresh it with the lobby"
            )
        return identity


class ServiceInterceptor(aio.ServerInterceptor):
    """Authenticates, rate-limits and translates every call of every service (see module)."""

    def __init__(
        self,
        issuer: TokenIssuer,
        public_methods: frozenset[str] = frozenset(),
        limiter: RateLimiter | None = None,
        *,
        streams: StreamQuota | None = None,
        proxies: TrustedProxies | None = None,
        clock: Callable[[], float] = time.time,
        tokens: VerifiedTokens | None = None,
    ) -> None:
        """`streams` bounds the open streams of each player and each network address (which
        `proxies` name when they forward a client); `clock` is the wall clock tokens expire by
        (tests inject their own); `tokens`: the verified tokens to share with servicers that
        verify tokens inside requests (default: the interceptor's own)."""
        self._tokens = tokens or VerifiedTokens(issuer, clock=clock)
        self._public = public_methods
        self._limiter = limiter
        self._streams = streams or StreamQuota(0)
        self._proxies = proxies or TrustedProxies()
        self._clock = clock

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None or _placeholder(handler):
            return None  # gRPC answers UNIMPLEMENTED, as for a method it does not know
        method = handler_call_details.method
        metadata = tuple(handler_call_details.invocation_metadata or ())
        if method.startswith(ALWAYS_PUBLIC_PREFIXES):
            return _public(handler, method, self._peer_of(metadata), self._streams)
        identity: Identity | None = None
        refused: ServiceError | None = None
        try:
            identity = self._identify(method, metadata)
        except ServiceError as error:
            refused = error  # logged as it leaves, with the call's trace id
        return _served(
            handler,
            identity=identity,
            method=method,
            trace_id=_trace_id(metadata),
            refused=refused,
            clock=self._clock,
            streams=self._streams,
            peer_of=self._peer_of(metadata),
        )

    def _peer_of(self, metadata: tuple[Any, ...]) -> Callable[[Context], str]:
        """How to name the network address of a call with this metadata, from its context."""
        proxies = self._proxies
        return lambda context: proxies.client_address(context.peer(), metadata)

    def _identify(self, method: str, metadata: tuple[Any, ...]) -> Identity | None:
        """The caller's identity (None on a public method without a valid token); refusals
        raise."""
        try:
            identity = self._tokens.verify(bearer_token(metadata))
        except ServiceError:
            if method in self._public:
                return None
            raise
        if identity.role is not Role.SERVICE and self._limiter is not None:
            self._limiter.check(method, identity.subject, seat_token=identity.game_id is not None)
        return identity


def _placeholder(handler: Handler) -> bool:
    """Whether the handler is the generated servicer's placeholder for an RPC the service does
    not implement (it only raises NotImplementedError, which would read as a fault of ours)."""
    behaviour = (
        handler.unary_unary or handler.unary_stream or handler.stream_unary or handler.stream_stream
    )
    function = getattr(behaviour, "__func__", behaviour)
    return str(getattr(function, "__module__", "")).endswith("_pb2_grpc")


class _Undecodable:
    """Stands for request bytes that are not the method's message (refused in the handler)."""


_UNDECODABLE = _Undecodable()


def _lenient(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """The handler's deserializer, answering `_UNDECODABLE` instead of raising: grpc would
    turn the DecodeError into UNKNOWN and log a traceback for every junk request."""
    if deserializer is None:
        return None
    inner = deserializer

    def deserialize(data: bytes) -> Any:
        try:
            return inner(data)
        except DecodeError:
            return _UNDECODABLE

    return deserialize


def _malformed() -> ServiceError:
    return ServiceError(
        Reason.MALFORMED_REQUEST, "the request bytes are not this method's request message"
    )


def _expired() -> ServiceError:
    return ServiceError(
        Reason.TOKEN_EXPIRED,
        "the token expired while the stream was open: refresh it with the lobby and open the "
        "stream again from the version you last saw",
    )


async def _checked(
    requests: AsyncIterator[Any], expires_at: float | None, clock: Callable[[], float]
) -> AsyncIterator[Any]:
    """A request stream that raises on the first undecodable message, and on the first message
    that arrives after the caller's token expired."""
    async for request in requests:
        if request is _UNDECODABLE:
            raise _malformed()
        if expires_at is not None and clock() >= expires_at:
            raise _expired()
        yield request
        del request


async def abort(context: Context, refused: Refusal) -> NoReturn:
    """End the call with the refusal's rich status."""
    status = refused.status()
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("context.abort returns only by raising")


class RefusalLog:
    """Logs refusals, at most `per_second` lines a second (bursts of as many) for each method
    and reason: a flood of refused calls is counted in full (verrater_refusals_total) but does
    not write a line for each, and the next line it writes says how many it left out
    (`suppressed`). Methods and reasons are finite, and so are the buckets."""

    def __init__(self, per_second: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self._per_second = per_second
        self._clock = clock
        # (method, reason) -> (lines it may write now, when that was counted, lines left out)
        self._buckets: dict[tuple[str, Reason], tuple[float, float, int]] = {}

    def refused(self, method: str, refused: Refusal) -> None:
        key = (method, refused.reason)
        now = self._clock()
        lines, then, left_out = self._buckets.get(key, (self._per_second, now, 0))
        lines = min(self._per_second, lines + (now - then) * self._per_second)
        if lines < 1:
            self._buckets[key] = (lines, now, left_out + 1)
            return
        self._buckets[key] = (lines - 1, now, 0)
        extra = {"suppressed": left_out} if left_out else {}
        log.info(
            "refused", method=method, code=refused.code.name, reason=str(refused.reason), **extra
        )


_REFUSAL_LOG = RefusalLog()


async def _abort_for(context: Context, error: Exception, method: str) -> NoReturn:
    refused = refusal(error)  # a fault of ours (INTERNAL) is logged there, every time
    REFUSALS.labels(method, refused.reason.value).inc()
    if refused.reason is not Reason.INTERNAL:
        _REFUSAL_LOG.refused(method, refused)
    await abort(context, refused)


async def send_headers(context: Context) -> None:
    """Send a response stream's headers now, not with its first message, so that a status can
    follow that message even if it is stuck (`cut_off`: gRPC refuses a status batch that would
    send headers again). A call its client already left ends as gRPC ends a call the client
    cancels (CancelledError, logged at debug), not as a fault of ours."""
    try:
        await context.send_initial_metadata(())
    except Exception as failed:  # grpc's ExecuteBatchError: the call is over
        raise asyncio.CancelledError() from failed


#: Status sends of streams cut off while sending (`cut_off`); held until they end.
_CUTTING: set[asyncio.Task[None]] = set()


def cut_off(context: Context, error: Exception, method: str, handler: asyncio.Task[Any]) -> None:
    """End a response stream whose `handler` is stuck sending to a client that does not read
    (its HTTP/2 window is full, so the send never ends and what the handler raises never
    reaches the edge): the refusal for `error` is logged and counted as the edge does, its
    status is queued behind what the client has not read yet (it leaves when the client reads
    again; gRPC offers a server no way to reset one stream), and the handler is cancelled, so
    the server holds nothing more for the call. Started before the cancellation, the status
    send begins while the call is still the handler's. The stream must have sent its headers
    first (`send_headers`), or gRPC refuses the status while the stuck message holds them."""
    sending = asyncio.get_running_loop().create_task(_cut(context, error, method))
    _CUTTING.add(sending)
    sending.add_done_callback(_CUTTING.discard)
    handler.cancel()


def cutting_off(context: Context) -> Callable[[Exception], None]:
    """For a response stream's servicer, behind the edge: what ends the current call with
    `cut_off` (its method, its handler task) when its client is cut off for not reading."""
    method, handler = _method.get(), asyncio.current_task()
    assert handler is not None, "call it from the stream's handler"
    return lambda error: cut_off(context, error, method, handler)


async def _cut(context: Context, error: Exception, method: str) -> None:
    try:
        await _abort_for(context, error, method)
    except aio.AbortError:
        pass  # the status was sent
    except Exception as failed:  # the call ended first: the client left, or the server stops
        log.debug("cut_off_status_not_sent", method=method, error=type(failed).__name__)


def _bind(method: str, trace_id: str, identity: Identity | None) -> None:
    structlog.contextvars.clear_contextvars()
    bind_call(
        method=method,
        trace_id=trace_id,
        player=identity.subject if identity is not None else None,
    )


def _served(
    handler: Handler,
    *,
    identity: Identity | None,
    method: str,
    trace_id: str,
    refused: ServiceError | None,
    clock: Callable[[], float],
    streams: StreamQuota,
    peer_of: Callable[[Context], str],
) -> Handler:
    """The handler behind the edge: the identity set, its refusals translated, its streams
    counted against the caller and the caller's network address."""
    # Under grpc.aio the handler behaviours are coroutine functions and async generators,
    # whatever the (sync-flavoured) stubs declare; hence the Any-typed references.
    deserialize = _lenient(handler.request_deserializer)
    serialize = handler.response_serializer
    if handler.unary_unary:
        inner_unary: Any = handler.unary_unary

        async def unary(request: Any, context: Context) -> Any:
            _identity.set(identity)
            _method.set(method)
            _bind(method, trace_id, identity)
            try:
                if refused is not None:
                    raise refused
                if request is _UNDECODABLE:
                    raise _malformed()
                return await inner_unary(request, context)
            except aio.AbortError:
                raise
            except Exception as error:
                await _abort_for(context, error, method)

        return grpc.unary_unary_rpc_method_handler(unary, deserialize, serialize)
    # A response stream, to one request (unary_stream) or to a request stream (stream_stream).
    inner_stream: Any = handler.unary_stream or handler.stream_stream
    if inner_stream is None:
        return handler  # no such methods in our services (a request stream, one response)
    streaming_requests = handler.stream_stream is not None
    expires_at = None if identity is None else float(identity.expires_at)
    # Whose streams this one counts against (the platform's own services are not limited).
    service = identity is not None and identity.role is Role.SERVICE
    player = None if identity is None or service else identity.subject

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        _identity.set(identity)
        _method.set(method)
        _bind(method, trace_id, identity)
        peer = None if service else peer_of(context)
        acquired = False
        try:
            if refused is not None:
                raise refused
            streams.acquire(player, peer)
            acquired = True
            if streaming_requests:
                request = _checked(request, expires_at, clock)
            elif request is _UNDECODABLE:
                raise _malformed()
            # A stream whose token runs out ends then with TOKEN_EXPIRED, whether or not anything
            # flows. Only the wait for the next item is timed: a timeout must not span a
            # yield, which suspends into gRPC's sending.
            deadline = (
                None
                if expires_at is None
                else asyncio.get_running_loop().time() + (expires_at - clock())
            )
            items: AsyncGenerator[Any, None] = inner_stream(request, context)
            async with contextlib.aclosing(items):
                while True:
                    timeout = asyncio.timeout_at(deadline)
                    try:
                        async with timeout:
                            item = await anext(items)
                    except StopAsyncIteration:
                        return
                    except TimeoutError:
                        if timeout.expired():
                            raise _expired() from None
                        raise
                    yield item
                    del item  # not held while the next is awaited
        except aio.AbortError:
            raise
        except Exception as error:
            await _abort_for(context, error, method)
        finally:
            if acquired:
                streams.release(player, peer)

    if streaming_requests:
        return grpc.stream_stream_rpc_method_handler(stream, deserialize, serialize)
    return grpc.unary_stream_rpc_method_handler(stream, deserialize, serialize)


def _public(
    handler: Handler, method: str, peer_of: Callable[[Context], str], streams: StreamQuota
) -> Handler:
    """A method anyone may call without a token (health checking, reflection), as its library
    serves it; but undecodable bytes are refused as on our own methods, and its streams count
    against the caller's network address."""
    deserialize = _lenient(handler.request_deserializer)
    serialize = handler.response_serializer
    if handler.unary_unary:
        inner_unary: Any = handler.unary_unary

        async def unary(request: Any, context: Context) -> Any:
            if request is _UNDECODABLE:
                await _abort_for(context, _malformed(), method)
            return await inner_unary(request, context)

        return grpc.unary_unary_rpc_method_handler(unary, deserialize, serialize)
    inner: Any = handler.unary_stream or handler.stream_stream
    if inner is None:
        return handler
    streaming_requests = handler.stream_stream is not None

    async def opened(request: Any, context: Context) -> tuple[Any, str]:
        """The request (stream) checked, and the peer this stream counts against."""
        peer = peer_of(context)
        try:
            if streaming_requests:
                request = _checked(request, None, time.time)
            elif request is _UNDECODABLE:
                raise _malformed()
            streams.acquire(None, peer)
        except ServiceError as error:
            await _abort_for(context, error, method)
        return request, peer

    async def refusing(items: AsyncIterator[Any], context: Context) -> AsyncIterator[Any]:
        try:
            async for item in items:
                yield item
        except ServiceError as error:  # an undecodable message on the request stream
            await _abort_for(context, error, method)

    if inspect.isasyncgenfunction(inner):

        async def generated(request: Any, context: Context) -> AsyncIterator[Any]:
            request, peer = await opened(request, context)
            try:
                async for item in refusing(inner(request, context), context):
                    yield item
            finally:
                streams.release(None, peer)

        behaviour: Any = generated
    else:  # a coroutine that writes its answers with context.write (health's Watch)

        async def written(request: Any, context: Context) -> None:
            request, peer = await opened(request, context)
            try:
                await inner(request, context)
            finally:
                streams.release(None, peer)

        behaviour = written
    if streaming_requests:
        return grpc.stream_stream_rpc_method_handler(behaviour, deserialize, serialize)
    return grpc.unary_stream_rpc_method_handler(behaviour, deserialize, serialize)


def _trace_id(metadata: tuple[Any, ...]) -> str:
    """The caller's `x-trace-id` when it sent one (so its logs and ours join), else a new id."""
    for key, value in metadata:
        if key == TRACE_KEY:
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            return text[:64]
    return secrets.token_hex(8)
