"""How the stats hear that a game ended: the inbox stream, and the feed the game service's
announcements reach (services/handlers.py).

On Redis, a finished game's id is added to the stream `verrater:{stats}:inbox`; the projector
processes read it with a consumer group (`projector.py`). An id may arrive more than once (a
retried announcement, a replica that reloads a finished game): the projection applies each game
once. In embedded mode the feed calls the in-memory projection directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from services.engine import GameState, Phase
from services.eventstore import AnyRedis

log = logging.getLogger("verrater.stats")

KEY_PREFIX = "verrater:{stats}"
INBOX_KEY = f"{KEY_PREFIX}:inbox"
#: The field of an inbox entry that holds the game id.
GAME_ID_FIELD = "game_id"


async def announce_finished(redis: AnyRedis, game_id: str) -> None:
    """Queue `game_id` for the stats projectors (one XADD; repeating it is harmless)."""
    await redis.xadd(INBOX_KEY, {GAME_ID_FIELD: game_id})


class FinishedGameFeed:
    """Passes each game that reaches GAME_OVER to `record` (in a task: a handler never waits).

    Remembers the games it passed on lately, so a replica that reloads a finished game (every
    cold load announces again) does not queue it over and over. A failed `record` is logged and
    forgotten here: a later cold load of the game announces it again.
    """

    def __init__(self, record: Callable[[str], Awaitable[None]], memory: int = 10_000) -> None:
        self._record = record
        self._memory = memory
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    def announce(self, game_id: str, state: GameState) -> None:
        """Pass the game on if `state` is over (called with every state the game service
        announces: appended, loaded cold, looked at)."""
        if state.phase is not Phase.GAME_OVER or game_id in self._recent:
            return
        self._recent[game_id] = None
        while len(self._recent) > self._memory:
            self._recent.popitem(last=False)
        task = asyncio.get_running_loop().create_task(self._send(game_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, game_id: str) -> None:
        try:
            await self._record(game_id)
        except Exception:  # the game is over and stored: a lost announcement must not fail it
            self._recent.pop(game_id, None)
            log.exception("could not record finished game %s for the stats", game_id)

    async def drain(self) -> None:
        """Wait until every announcement made so far has been passed on (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def close(self) -> None:
        """Finish the announcements in flight (they are one write each), then stop."""
        with contextlib.suppress(asyncio.CancelledError):
            await self.drain()
