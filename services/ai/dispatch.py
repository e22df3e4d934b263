"""Who tells the bots to move: the game service announces every state where someone must act.

`BotScheduler.announce` looks at the seats to act: a bot seat gets a bot turn now.
`BotScheduler.stand_in` is what the game service's turn timers call when a person's decision is
due: a bot decides for them (a no-op if the person moved meanwhile). The turn runs wherever the
launcher sends it: a Celery worker (distributed), or an asyncio task in
the same process (embedded mode, no broker). Announcing twice is harmless: a bot turn is
applied at most once per (seat, version).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from services.engine import BotLevel, GameState, Phase, to_act
from services.observability import BOT_QUEUE_DEPTH, BOT_TASK_SECONDS

from .turns import BotTurn, GameClient, play_bot_turn

log = logging.getLogger("verrater.ai")

#: The level that stands in for a human whose turn timer ran out.
STAND_IN_LEVEL = BotLevel.NORMAL

Launcher = Callable[[BotTurn, float], None]


class BotScheduler:
    """Turns announced states into bot turns, now or after the turn timer, and hands a bot turn
    out again when its move has not come back in time.

    Re-sending is what makes bots robust to everything between the announcement and the move:
    a lost publish, a worker that died before the broker's visibility timeout, a message held
    by a consumer that went away. A repeat is harmless: a bot turn applies once per seat and
    version (its command id).
    """

    def __init__(self, launch: Launcher, *, resend_after_s: float = 10.0) -> None:
        self._launch = launch
        self._resend_after_s = resend_after_s
        # Bot turns not yet answered, by command id: when they went out, and the turn itself.
        self._waiting: dict[str, tuple[float, BotTurn]] = {}
        self._watchdog: asyncio.Task[None] | None = None

    def announce(self, game_id: str, state: GameState, command_id: str = "") -> None:
        answered = self._waiting.pop(command_id, None)
        if answered is not None:
            BOT_TASK_SECONDS.observe(time.monotonic() - answered[0])
        for key, (_, turn) in list(self._waiting.items()):
            if turn.game_id == game_id and turn.version < state.version:
                del self._waiting[key]  # the game moved on: that turn is settled
        if state.phase is Phase.GAME_OVER or not state.seating:
            return
        for seat in to_act(state):
            level = state.seating[seat].bot_level
            if level:
                turn = BotTurn(game_id, seat, state.version, level)
                self._waiting[turn.command_id] = (time.monotonic(), turn)
                while len(self._waiting) > 100_000:  # games this replica no longer hears of
                    self._waiting.pop(next(iter(self._waiting)))
                self._launch(turn, 0.0)

    def stand_in(self, game_id: str, seat: int, version: int) -> None:
        """A person's timed decision at `version` is due: a bot decides for them now (the
        decision event says turn_timer_expired; nothing happens if they decided meanwhile)."""
        self._launch(BotTurn(game_id, seat, version, STAND_IN_LEVEL, True), 0.0)

    def resend_overdue(self) -> int:
        """Hand out again every bot turn unanswered for `resend_after_s`; how many were."""
        now = time.monotonic()
        overdue = [
            (key, turn)
            for key, (sent, turn) in self._waiting.items()
            if now - sent >= self._resend_after_s
        ]
        for key, turn in overdue:
            log.warning("bot turn %s unanswered: sending it again", key)
            self._waiting[key] = (now, turn)
            self._launch(turn, 0.0)
        return len(overdue)

    def start(self) -> None:
        if self._watchdog is None:
            self._watchdog = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._resend_after_s / 4)
            self.resend_overdue()

    async def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
            self._watchdog = None


class InProcessLauncher:
    """Runs bot turns as tasks of this process's event loop (embedded mode)."""

    def __init__(self, client: GameClient) -> None:
        self._client = client
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, turn: BotTurn, delay: float) -> None:
        task = asyncio.get_running_loop().create_task(self._run(turn, delay))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, turn: BotTurn, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            await play_bot_turn(self._client, turn)
        except Exception:  # one failed bot turn must not take the server down
            log.exception("bot turn %s failed", turn)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._client.close()


class CeleryLauncher:
    """Sends bot turns to the Celery workers (distributed mode)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._pending: set[asyncio.Future[Any]] = set()
        BOT_QUEUE_DEPTH.set_function(self._queue_depth)

    def _queue_depth(self) -> float:
        """Bot turns waiting in the broker (asked at scrape time, off the event loop)."""
        with self._app.connection_for_read() as connection:
            depth: int = connection.default_channel.client.llen("celery")
            return float(depth)

    def __call__(self, turn: BotTurn, delay: float) -> None:
        # Publishing is a blocking call into kombu: keep it off the event loop.
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, self._send, turn, delay)
        self._pending.add(future)
        future.add_done_callback(self._sent)

    def _send(self, turn: BotTurn, delay: float) -> None:
        self._app.send_task("verrater.bot_turn", kwargs=turn.as_kwargs(), countdown=delay or None)

    def _sent(self, future: asyncio.Future[Any]) -> None:
        self._pending.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("could not enqueue a bot turn: %s", future.exception())

    async def close(self) -> None:
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
