"""What a timer store does, and the one that lives in this process (embedded mode, tests)."""

from __future__ import annotations

import abc
import asyncio
from typing import NamedTuple


class Due(NamedTuple):
    """What a claim found: the games whose time has come (each now held for the lease), and the
    earliest wake-up left after the claim (None: none), for a sweeper to sleep until."""

    games: list[str]
    next_wake_ms: int | None


class TurnTimers(abc.ABC):
    """When to look at which game next."""

    @abc.abstractmethod
    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        """Look at the game at `wake_ms` (None: never again), as of its state at `version`;
        ignored when a newer version already set it."""

    @abc.abstractmethod
    async def look_again(self, game_id: str, wake_ms: int) -> None:
        """Move a wake-up the game has (a claimed one, say) to `wake_ms`, keeping the version
        that set it; nothing when it has none."""

    @abc.abstractmethod
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> Due:
        """The games whose time has come, each moved `lease_ms` ahead so no one else takes it
        meanwhile, and the earliest wake-up then left."""

    @abc.abstractmethod
    async def next_wake_ms(self) -> int | None:
        """The earliest wake time set (None: none)."""

    def changed(self) -> asyncio.Event | None:
        """Set when this process sets a timer (a sleeping sweeper looks again); None when
        other processes set timers too and only polling sees them."""
        return None

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections."""


class InMemoryTurnTimers(TurnTimers):
    """Timers of one process (embedded mode, tests)."""

    def __init__(self) -> None:
        self._wake: dict[str, int] = {}
        self._versions: dict[str, int] = {}
        self._changed = asyncio.Event()

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        if self._versions.get(game_id, 0) > version:
            return
        self._versions[game_id] = version
        if wake_ms is None:
            self._wake.pop(game_id, None)
            self._versions.pop(game_id, None)
        else:
            self._wake[game_id] = wake_ms
        self._changed.set()

    async def look_again(self, game_id: str, wake_ms: int) -> None:
        if game_id in self._wake:
            self._wake[game_id] = wake_ms
            self._changed.set()

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> Due:
        due = sorted((wake, game) for game, wake in self._wake.items() if wake <= now_ms)
        games = [game for _, game in due[:limit]]
        for game in games:
            self._wake[game] = now_ms + lease_ms
        return Due(games, await self.next_wake_ms())

    async def next_wake_ms(self) -> int | None:
        return min(self._wake.values(), default=None)

    def changed(self) -> asyncio.Event:
        return self._changed

    async def close(self) -> None:
        """Nothing to release: the timers live in this process."""
