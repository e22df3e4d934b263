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
    #: The methods take player tokens only (the lobby's: PLAYER_TOKEN_REQUIRED): a call with a
    #: seat token, refused for its kind, spends nothing, or whoever plays a seat for a player
    #: could lock the player out of their lobby.
    player_tokens_only: bool = False


class RateLimiter:
    """Token buckets per (player, family of methods), bounded in memory."""

    def __init__(
        self, limits: dict[str, RateLimit], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._limits = limits
        self._clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def refusal(self, method: str, player: str, *, seat_token: bool = False) -> ServiceError | None:
        """None when the call may go ahead, else the refusal to raise; `seat_token`: the call
        carries a seat token (see RateLimit.player_tokens_only)."""
        limit = self._limits.get(method)
        if limit is None or (seat_token and limit.player_tokens_only):
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

    def check(self, method: str, player: str, *, seat_token: bool = False) -> None:
        """Raise the refusal, if any."""
        refused = self.refusal(method, player, seat_token=seat_token)
        if refused is not None:
            raise refused


class StreamQuota:
    """At most `per_player` streams open at once per player, and `per_peer` per network address
    (per process): a client that opens streams without end runs out of them, not the server out
    of memory, and neither does one that signs in as many guests. 0: no limit of that kind.

    A stream counts against its peer always (health and reflection streams too, which need no
    token) and against its player when it has one; the platform's own services pass neither.
    """

    def __init__(self, per_player: int, per_peer: int = 0) -> None:
        self._per_player = per_player
        self._per_peer = per_peer
        self._players: dict[str, int] = {}
        self._peers: dict[str, int] = {}

    def acquire(self, player: str | None, peer: str | None) -> None:
        """Count one more stream of `player` from `peer`; TOO_MANY_STREAMS (counting nothing)
        when that is one too many for either."""
        _check(self._players, player, self._per_player, "you have", "one player")
        _check(self._peers, peer, self._per_peer, "your network address has", "one address")
        for open_streams, key in ((self._players, player), (self._peers, peer)):
            if key is not None:
                open_streams[key] = open_streams.get(key, 0) + 1

    def release(self, player: str | None, peer: str | None) -> None:
        """Count one stream of `player` from `peer` less (it ended)."""
        for open_streams, key in ((self._players, player), (self._peers, peer)):
            if key is None:
                continue
            count = open_streams.get(key, 0) - 1
            if count > 0:
                open_streams[key] = count
            else:
                open_streams.pop(key, None)

    def open_streams(self, player: str) -> int:
        return self._players.get(player, 0)

    def open_streams_of_peer(self, peer: str) -> int:
        return self._peers.get(peer, 0)


def _check(open_streams: dict[str, int], key: str | None, limit: int, who: str, most: str) -> None:
    if key is None or not limit:
        return
    count = open_streams.get(key, 0)
    if count >= limit:
        raise ServiceError(
            Reason.TOO_MANY_STREAMS,
            f"{who} {count} streams open, the most {most} may: close one first",
            limit=str(limit),
        )
