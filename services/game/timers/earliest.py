"""Each timer bucket's earliest wake-up, as a cluster's sweeper knows it, and which are due.

A sweeper on a Redis Cluster remembers, per slot, the earliest wake-up of that slot's bucket
(services/game/timers/redis_timers.py). It asks for the buckets due at every claim, and for the
earliest of them all to know how long to sleep: several claims a second, over as many as 16,384
buckets. A scan of them all for each was about half a millisecond of CPU a claim once every
bucket held a game (tens of thousands of games): the work of the game replica grew with the games
it did not serve. Here a claim costs what is due: a heap of (wake, slot) beside the dict, whose
entries are checked against the dict when they come up (an entry whose slot has since moved on
is skipped, and dropped), and rebuilt when the stale outnumber the live.
"""

from __future__ import annotations

import heapq

#: The heap is rebuilt from the dict once it holds this many more entries than live ones.
_SLACK = 1024


class EarliestWakeUps:
    """Slot -> the earliest wake-up (ms) of its bucket, with the due slots and the earliest of
    all found without a scan."""

    __slots__ = ("_heap", "_wake")

    def __init__(self) -> None:
        self._wake: dict[int, int] = {}
        self._heap: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self._wake)

    def __contains__(self, slot: int) -> bool:
        return slot in self._wake

    def get(self, slot: int) -> int | None:
        return self._wake.get(slot)

    def set(self, slot: int, wake_ms: int) -> None:
        """The bucket's earliest wake-up is now `wake_ms`."""
        if self._wake.get(slot) == wake_ms:
            return
        self._wake[slot] = wake_ms
        heapq.heappush(self._heap, (wake_ms, slot))
        if len(self._heap) > 2 * len(self._wake) + _SLACK:
            self._rebuild()

    def lower(self, slot: int, wake_ms: int) -> None:
        """The bucket holds a wake-up at `wake_ms` (its earliest is that, or earlier)."""
        known = self._wake.get(slot)
        if known is None or wake_ms < known:
            self.set(slot, wake_ms)

    def drop(self, slot: int) -> None:
        """The bucket is empty."""
        self._wake.pop(slot, None)

    def due(self, now_ms: int) -> list[int]:
        """The slots whose earliest wake-up is at or before `now_ms`, earliest first. They stay
        remembered (a claim's reply, or `set`/`drop`, moves them on)."""
        heap = self._heap
        found: list[tuple[int, int]] = []
        while heap and heap[0][0] <= now_ms:
            entry = heapq.heappop(heap)
            if self._wake.get(entry[1]) == entry[0]:
                found.append(entry)
        # Live entries go back; a duplicate of one (the same wake set twice) was popped too, and
        # goes back once.
        unique = list(dict.fromkeys(found))
        for entry in unique:
            heapq.heappush(heap, entry)
        return [slot for _, slot in unique]

    def first(self) -> int | None:
        """The earliest wake-up of every bucket; None when none is known."""
        heap = self._heap
        while heap and self._wake.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def _rebuild(self) -> None:
        self._heap = [(wake, slot) for slot, wake in self._wake.items()]
        heapq.heapify(self._heap)
