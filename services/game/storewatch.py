"""Whether the game service's event store can be used, and whether it was replaced under it.

A probe every `interval_s` asks the store for its incarnation (services/eventstore): failing (or
slower than `timeout_s`), the replica reports NOT_SERVING on its health service, so load
balancers and probes send calls elsewhere, and SERVING again once the store answers. On a Redis
Cluster that is when no master answers: with one master away the replica still serves the
games of the others (that master's games answer UNAVAILABLE), as every replica is in the same
place and taking them all out of service would stop every game. A new incarnation means the
store restarted (or a master failed over) and may hold less than before (restored from an
older copy, or the last writes lost): every cached game is then compared with the store, and
those it holds less of are dropped and read again (`GameApplication.check_history`); games it
could not compare then (their master away) are compared at the following probes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from services.eventstore import EventStore, StoreUnavailable
from services.tasks import cancel_and_wait

from .service import GameApplication

log = logging.getLogger("verrater.game.store")

#: Seconds between probes, and the longest one may take before the store counts as unusable.
PROBE_INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 2.0

#: Told True when the store can be used again, False when it cannot.
OnServing = Callable[[bool], Awaitable[None]]


class StoreWatch:
    """Probes the store for the health service and for restarts (see the module docstring)."""

    def __init__(
        self,
        store: EventStore,
        game: GameApplication,
        on_serving: OnServing,
        *,
        interval_s: float = PROBE_INTERVAL_S,
        timeout_s: float = PROBE_TIMEOUT_S,
    ) -> None:
        self._store = store
        self._game = game
        self._on_serving = on_serving
        self._interval_s = interval_s
        self._timeout_s = timeout_s
        self._serving = True
        self._incarnation: str | None = None
        # Cached games a restart or failover left uncompared (their part of the store away).
        self._unchecked: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    @property
    def serving(self) -> bool:
        return self._serving

    async def probe(self) -> bool:
        """Look once; whether the store can be used."""
        try:
            async with asyncio.timeout(self._timeout_s):
                incarnation = await self._store.incarnation()
        except (StoreUnavailable, TimeoutError) as error:
            if self._serving:
                log.warning("the event store cannot be used (%r): NOT_SERVING", error)
                self._serving = False
                await self._on_serving(False)
            return False
        if self._incarnation is not None and incarnation != self._incarnation:
            dropped, self._unchecked = await self._game.check_history()
            log.warning("the event store restarted: %d cached games were ahead of it", dropped)
        elif self._unchecked:
            dropped, self._unchecked = await self._game.check_history(self._unchecked)
            if dropped:
                log.warning("%d more cached games were ahead of the store", dropped)
        if self._unchecked:
            log.info("%d cached games not compared with the store yet", len(self._unchecked))
        self._incarnation = incarnation
        if not self._serving:
            log.warning("the event store answers again: SERVING")
            self._serving = True
            await self._on_serving(True)
        return True

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="store-watch")

    async def _run(self) -> None:
        while True:
            try:
                await self.probe()
            except Exception:  # a probe must never end the watch
                log.exception("probing the event store failed")
            await asyncio.sleep(self._interval_s)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
