"""The turn clock: a decision's deadline (on the server's clock) as a countdown on this one.

The offset between the two clocks is measured once, from the first batch of events that
arrives live: its `recorded_at_ms` is when the server appended it, a moment before it arrived
here (the network's delay makes the countdown err on the early side, never the late one).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from google.protobuf import timestamp_pb2


class ServerClock:
    """The server's time as seen from here."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.offset_s: float | None = None  # local minus server; None until measured

    def learn(self, recorded_at_ms: int) -> None:
        """Measure the offset from a batch that was appended at `recorded_at_ms` and has just
        arrived (only the first measurement counts)."""
        if self.offset_s is None and recorded_at_ms > 0:
            self.offset_s = self._clock() - recorded_at_ms / 1000

    def now(self) -> float:
        """The server's time now, in Unix seconds (this clock's, before the offset is known)."""
        return self._clock() - (self.offset_s or 0.0)

    def left(self, deadline: timestamp_pb2.Timestamp) -> float:
        """Seconds until `deadline` (negative once it has passed)."""
        return deadline.seconds + deadline.nanos / 1e9 - self.now()


def countdown(seconds: float) -> str:
    """Time left as people read a clock: "0:07", "1:45", "2 h 05 min", "3 d 4 h"."""
    left = max(0, int(seconds + 0.999))  # a clock shows 0:01 until the last second is gone
    if left < 3600:
        return f"{left // 60}:{left % 60:02d}"
    if left < 86400:
        return f"{left // 3600} h {left % 3600 // 60:02d} min"
    return f"{left // 86400} d {left % 86400 // 3600} h"
