"""How much may be written: the documented numbers, and token buckets that count in memory.

Per player: 1 message a second, in bursts of 5, over every table. Per table: 5 messages a
second, in bursts of 20, over both of its channels. Both are counted by the chat store, so every
replica shares the counts (on Redis by the player's bucket script, then inside the script that
stores the message). A refusal is RESOURCE_EXHAUSTED (RATE_LIMITED) with
`retry_after_ms` and `scope` ("player" or "table") in its ErrorInfo.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from .store import Rate

PER_PLAYER = Rate(per_second=1.0, burst=5.0)
PER_TABLE = Rate(per_second=5.0, burst=20.0)
#: Players one player may mute.
MAX_MUTED = 500
#: Token buckets one `TokenBuckets` keeps at most (the least recently used go first).
MAX_BUCKETS = 100_000


@dataclass(frozen=True, slots=True)
class ChatLimits:
    player: Rate = PER_PLAYER
    table: Rate = PER_TABLE
    max_muted: int = MAX_MUTED


DEFAULT_LIMITS = ChatLimits()


def wait_ms(tokens: float, rate: Rate) -> int:
    """How long until a bucket holding `tokens` holds one (ms, rounded up)."""
    # The bucket's float arithmetic lands a hair either side of whole milliseconds (989.99999
    # or 990.00001 for the same wait, by the clock's magnitude: seconds since 1970 as a float
    # resolve about 0.24 us): a microsecond's slack first (1e-3 ms; it was 1e-6 ms, a
    # nanosecond, and a wait of 990 ms came out 990 instead of 991 once in a clean-clone CI).
    return int((1.0 - tokens) / rate.per_second * 1000 + 1e-3) + 1


class TokenBuckets:
    """A token bucket per key, bounded in memory."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, rate: Rate, now: float) -> int | None:
        """Take one token from `key`'s bucket at `now` (seconds): None when there was one, else
        how many ms until there is (nothing taken)."""
        tokens, last = self._buckets.pop(key, (rate.burst, now))
        tokens = min(rate.burst, tokens + max(0.0, now - last) * rate.per_second)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > MAX_BUCKETS:
            self._buckets.popitem(last=False)
        return None if allowed else wait_ms(tokens, rate)
