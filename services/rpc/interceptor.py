"""gRPC plumbing shared by every service: the auth interceptor and the caller's identity.

The interceptor verifies the bearer token of every call (except the public methods) and makes
the verified identity available to the handler through a context variable; a call with a
missing, forged or expired token never reaches a handler.
"""

from __future__ import annotations

import contextvars
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc
import structlog
from grpc import aio

from services.observability import bind_call

from .tokens import METADATA_KEY, Identity, InvalidToken, Role, TokenIssuer

log = structlog.get_logger("verrater.auth")
TRACE_KEY = "x-trace-id"

_identity: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "verrater_identity", default=None
)

#: Methods anyone may call without a token (health checks, reflection, the ruleset).
ALWAYS_PUBLIC_PREFIXES = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)


# The stubs make these generic; at run time they are plain classes.
if TYPE_CHECKING:
    Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]
    Context: TypeAlias = aio.ServicerContext[Any, Any]
else:
    Handler = grpc.RpcMethodHandler
    Context = aio.ServicerContext


def _bind(method: str, trace_id: str, identity: Identity | None) -> None:
    structlog.contextvars.clear_contextvars()
    bind_call(
        method=method,
        trace_id=trace_id,
        player=identity.subject if identity is not None else None,
    )


def caller() -> Identity | None:
    """The verified identity of the current call (None for a public method without a token)."""
    return _identity.get()


def _token_from(metadata: tuple[Any, ...] | None) -> str | None:
    for key, value in metadata or ():
        if key == METADATA_KEY:
            text = value.decode() if isinstance(value, bytes) else str(value)
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


class VerifiedTokens:
    """Tokens whose signature was already checked, so a busy client costs one HMAC, not one per
    call. Bounded (least recently used goes first); expiry is checked again on every use."""

    def __init__(self, issuer: TokenIssuer, size: int = 50_000) -> None:
        self._issuer = issuer
        self._size = size
        self._known: OrderedDict[str, Identity] = OrderedDict()

    def verify(self, token: str) -> Identity:
        identity = self._known.get(token)
        if identity is None:
            identity = self._issuer.verify(token)  # raises InvalidToken
            self._known[token] = identity
            if len(self._known) > self._size:
                self._known.popitem(last=False)
        else:
            self._known.move_to_end(token)
        if identity.expires_at <= time.time():
            del self._known[token]
            raise InvalidToken("the token has expired; refresh it with the lobby")
        return identity


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `per_second` calls a second per player, with bursts up to `burst`."""

    family: str
    per_second: float
    burst: float


class RateLimiter:
    """Token buckets per (player, family of methods). Per process: behind a load balancer each
    replica enforces the limit on its share, which bounds a player all the same."""

    def __init__(self, limits: dict[str, RateLimit], clock: Callable[[], float] = time.monotonic):
        self._limits = limits
        self._clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def refusal(self, method: str, player: str) -> str | None:
        """None when the call may go ahead, else the reason it may not."""
        limit = self._limits.get(method)
        if limit is None:
            return None
        key = (limit.family, player)
        now = self._clock()
        tokens, last = self._buckets.pop(key, (limit.burst, now))
        tokens = min(limit.burst, tokens + (now - last) * limit.per_second)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > 100_000:
            self._buckets.popitem(last=False)
        if allowed:
            return None
        wait_ms = int((1.0 - tokens) / limit.per_second * 1000) + 1
        return (
            f"too many {limit.family} requests: at most {limit.per_second:g} per second "
            f"(bursts of {limit.burst:g}); retry in {wait_ms} ms"
        )


class AuthInterceptor(aio.ServerInterceptor):
    """Rejects calls without a valid token with UNAUTHENTICATED, and players over their rate
    with RESOURCE_EXHAUSTED; passes the identity on. Service tokens are not rate-limited."""

    def __init__(
        self,
        issuer: TokenIssuer,
        public_methods: frozenset[str] = frozenset(),
        limiter: RateLimiter | None = None,
    ) -> None:
        self._tokens = VerifiedTokens(issuer)
        self._public = public_methods
        self._limiter = limiter

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(ALWAYS_PUBLIC_PREFIXES):
            return handler
        token = _token_from(tuple(handler_call_details.invocation_metadata or ()))
        identity: Identity | None = None
        problem = ""
        if token is None:
            problem = "this call needs a token: send metadata 'authorization: Bearer <token>'"
        else:
            try:
                identity = self._tokens.verify(token)
            except InvalidToken as error:
                problem = str(error)
        if identity is None and method not in self._public:
            log.info("rejected unauthenticated call", method=method, reason=problem)
            return _rejecting(handler, grpc.StatusCode.UNAUTHENTICATED, problem)
        if identity is not None and identity.role is not Role.SERVICE and self._limiter:
            refusal = self._limiter.refusal(method, identity.subject)
            if refusal is not None:
                log.info("rate limited", method=method, player=identity.subject)
                return _rejecting(handler, grpc.StatusCode.RESOURCE_EXHAUSTED, refusal)
        metadata = tuple(handler_call_details.invocation_metadata or ())
        return _with_identity(handler, identity, method, _trace_id(metadata))


def _rejecting(handler: Handler, code: grpc.StatusCode, message: str) -> Handler:
    async def reject_unary(request: Any, context: Context) -> Any:
        await context.abort(code, message)

    async def reject_stream(request: Any, context: Context) -> AsyncIterator[Any]:
        await context.abort(code, message)
        yield  # unreachable: abort raises; the yield makes this an async generator

    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(
            reject_stream, handler.request_deserializer, handler.response_serializer
        )
    if handler.stream_stream:
        return grpc.stream_stream_rpc_method_handler(
            reject_stream, handler.request_deserializer, handler.response_serializer
        )
    return grpc.unary_unary_rpc_method_handler(
        reject_unary, handler.request_deserializer, handler.response_serializer
    )


def _trace_id(metadata: tuple[Any, ...]) -> str:
    """The caller's `x-trace-id` when it sent one (so its logs and ours join), else a new id."""
    for key, value in metadata:
        if key == TRACE_KEY:
            text = value.decode() if isinstance(value, bytes) else str(value)
            return text[:64]
    return secrets.token_hex(8)


def _with_identity(
    handler: Handler, identity: Identity | None, method: str, trace_id: str
) -> Handler:
    # Under grpc.aio the handler behaviours are coroutine functions and async generators,
    # whatever the (sync-flavoured) stubs declare; hence the Any-typed references.
    if handler.unary_unary:
        inner_unary: Any = handler.unary_unary

        async def unary(request: Any, context: Context) -> Any:
            _identity.set(identity)
            _bind(method, trace_id, identity)
            return await inner_unary(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary, handler.request_deserializer, handler.response_serializer
        )
    # A response stream, to one request (unary_stream) or to a request stream (stream_stream):
    # the first argument is passed through either way.
    inner_stream: Any = handler.unary_stream or handler.stream_stream
    if inner_stream is None:
        return handler

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        _identity.set(identity)
        _bind(method, trace_id, identity)
        async for item in inner_stream(request, context):
            yield item
            del item  # not held while the next is awaited

    make = (
        grpc.unary_stream_rpc_method_handler
        if handler.unary_stream
        else grpc.stream_stream_rpc_method_handler
    )
    return make(stream, handler.request_deserializer, handler.response_serializer)
