"""The gRPC edge every service shares: signed tokens, the interceptor that authenticates and
rate-limits every call, the reasons a request can be refused and the one table that turns them
into statuses, the id rule, and the caller's network address (trusting configured proxies).

Services raise `services.errors.ServiceError` (or let the libraries' errors through) and never
build a status themselves; see docs/ARCHITECTURE.md.
"""

from .ids import ID_PATTERN, ID_RULE, checked_id, is_valid_id
from .interceptor import (
    ALWAYS_PUBLIC_PREFIXES,
    Context,
    ServiceInterceptor,
    VerifiedTokens,
    abort,
    authenticated,
    bearer_token,
    caller,
    cut_off,
    cutting_off,
    send_headers,
)
from .limits import RateLimit, RateLimiter, StreamQuota
from .peers import TrustedProxies, peer_address
from .status import (
    DOMAIN,
    STATUS_CODES,
    Refusal,
    classified,
    refusal,
    refusal_of,
    relayed,
    status_code,
)
from .tokens import (
    DEFAULT_TOKEN_TTL_SECONDS,
    DEVELOPMENT_SECRET,
    METADATA_KEY,
    MIN_SECRET_BYTES,
    Identity,
    InvalidToken,
    Role,
    TokenIssuer,
    bearer,
)

__all__ = [
    "ALWAYS_PUBLIC_PREFIXES",
    "DEFAULT_TOKEN_TTL_SECONDS",
    "DEVELOPMENT_SECRET",
    "DOMAIN",
    "ID_PATTERN",
    "ID_RULE",
    "METADATA_KEY",
    "MIN_SECRET_BYTES",
    "STATUS_CODES",
    "Context",
    "Identity",
    "InvalidToken",
    "RateLimit",
    "RateLimiter",
    "Refusal",
    "Role",
    "ServiceInterceptor",
    "StreamQuota",
    "TokenIssuer",
    "TrustedProxies",
    "VerifiedTokens",
    "abort",
    "authenticated",
    "bearer",
    "bearer_token",
    "caller",
    "checked_id",
    "classified",
    "cut_off",
    "cutting_off",
    "is_valid_id",
    "peer_address",
    "refusal",
    "refusal_of",
    "relayed",
    "send_headers",
    "status_code",
]
