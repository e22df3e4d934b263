"""Per-player rate limits: token buckets per (player, family of methods).

Per process: behind a load balancer each replica enforces the limit on its share, which bounds a
player all the same. A refusal says when to retry (ErrorInfo metadata `retry_after_ms`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from services.errors import Reason, ServiceError

#: Buckets kept at most (least recently used go first: an idle player's bucket is full anyway).
MAX_BUCKETS = 100_000


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `per_second` calls a second per player, with bursts up to `burst`."""

    family: str
    per_second: float
    burst: float


class RateLimiter:
    """Token buckets per (player, family of methods), bounded in memory."""

    def __init__(
        self, limits: dict[str, RateLimit], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def refusal(self, method: str, player: str) -> ServiceError | None:
        """None when the call may go ahead, else the refusal to raise."""
        limit = self._limits.get(method)
        if limit is None:
            return None
        key = (limit.family, player)
        now = self._clock()
        tokens, last = self._buckets.pop(key, (limit.burst, now))
        tokens = min(limit.burst, tokens + (now - last) * limit.per_second)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)
        if allowed:
            return None
        wait_ms = int((1.0 - tokens) / limit.per_second * 1000) + 1
        return ServiceError(
            Reason.RATE_LIMITED,
            f"too many {limit.family} requests: at most {limit.per_second:g} per second "
            f"(bursts of {limit.burst:g}); retry in {wait_ms} ms",
            retry_after_ms=str(wait_ms),
        )

    def check(self, method: str, player: str) -> None:
        """Raise the refusal, if any."""
        refused = self.refusal(method, player)
        if refused is not None:
            raise refused


class StreamQuota:
    """At most `per_player` streams open at once per player (per process): a client that opens
    streams without end runs out of them, not the server out of memory. 0: no limit."""

    def __init__(self, per_player: int) -> None:
        self._per_player = per_player
        self._open: dict[str, int] = {}

    def acquire(self, player: str) -> None:
        """Count one more stream of `player`; TOO_MANY_STREAMS when that is one too many."""
        count = self._open.get(player, 0)
        if self._per_player and count >= self._per_player:
            raise ServiceError(
                Reason.TOO_MANY_STREAMS,
                f"you have {count} streams open, the most one player may: close one first",
                limit=str(self._per_player),
            )
        self._open[player] = count + 1

    def release(self, player: str) -> None:
        count = self._open.get(player, 0) - 1
        if count > 0:
            self._open[player] = count
        else:
            self._open.pop(player, None)

    def open_streams(self, player: str) -> int:
        return self._open.get(player, 0)
