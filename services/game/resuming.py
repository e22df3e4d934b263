"""Games to load again once their store answers: so that a game whose store failed mid-command
goes on by itself within about a second of the store coming back.

When an append or a cold load meets a store that does not answer (a Redis Cluster master
failing over, its replica not yet promoted), the game is forgotten and nobody announces its
next turn: the bots' worker gave up on it (the replica told it the store is away) and a person
may be waiting. The durable wake-ups (services/game/timers) would announce it again, but at
their next recheck, seconds to a minute later. So the replica that met the failure keeps the
game here and loads it again every `INTERVAL_S` until the load succeeds: the load announces
the game's state again, as every cold load does (its bots' turns, its timer, its
notifications, deduplicated). In memory, bounded, best effort: the wake-ups stay the backstop
should this replica die too.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from services.eventstore import StoreUnavailable
from services.tasks import cancel_and_wait

from .errors import GameNotFound

log = logging.getLogger("verrater.game")

#: How often the games waiting for their store are tried again.
INTERVAL_S = 0.5
#: The longest one try may take (a paused master must not hold up the next round).
TRY_TIMEOUT_S = 2.0
#: Games kept waiting at most (the oldest are left to the wake-ups).
MAX_WAITING = 10_000


class Resumer:
    """Loads the games it is given again, every `INTERVAL_S`, until each loads."""

    def __init__(self, load: Callable[[str], Awaitable[object]]) -> None:
        self._load = load
        self._waiting: OrderedDict[str, None] = OrderedDict()
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Games waiting for their store."""
        return len(self._waiting)

    def add(self, game_id: str) -> None:
        """Load `game_id` again once its store answers."""
        self._waiting[game_id] = None
        self._waiting.move_to_end(game_id)
        while len(self._waiting) > MAX_WAITING:
            self._waiting.popitem(last=False)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="resume-games")

    async def _run(self) -> None:
        while self._waiting:
            await asyncio.sleep(INTERVAL_S)
            await asyncio.gather(*(self._try(game_id) for game_id in list(self._waiting)))

    async def _try(self, game_id: str) -> None:
        try:
            async with asyncio.timeout(TRY_TIMEOUT_S):
                await self._load(game_id)
        except (StoreUnavailable, TimeoutError):
            return  # the next round tries again
        except GameNotFound:
            pass
        except Exception:  # one game's failure must not stop the others
            log.exception("loading game %s again failed; left to its wake-ups", game_id)
        else:
            log.info("game %s: its store answers again; announced", game_id)
        self._waiting.pop(game_id, None)

    async def close(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
