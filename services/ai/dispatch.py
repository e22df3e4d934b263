"""Who tells the bots to move: the game service announces every state where someone must act.

`BotScheduler.announce` looks at the seats to act: a bot seat gets a bot turn now; a human seat
of a game with a turn timer gets one after the timer (it is a no-op if the human moved). The
turn runs wherever the launcher sends it: a Celery worker (distributed), or an asyncio task in
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

from services.game.engine import GameState, Phase, to_act
from services.observability import BOT_QUEUE_DEPTH, BOT_TASK_SECONDS

from .turns import BotTurn, GameClient, play_bot_turn

log = logging.getLogger("verrater.ai")

#: The level that stands in for a human whose turn timer ran out.
STAND_IN_LEVEL = "normal"

Launcher = Callable[[BotTurn, float], None]


class BotScheduler:
    """Turns announced states into bot turns, now or after the turn timer."""

    def __init__(self, launch: Launcher) -> None:
        self._launch = launch
        # When each bot turn was handed out, by its command id: for the bot latency metric.
        self._launched: dict[str, float] = {}

    def announce(self, game_id: str, state: GameState, command_id: str = "") -> None:
        launched = self._launched.pop(command_id, None)
        if launched is not None:
            BOT_TASK_SECONDS.observe(time.monotonic() - launched)
        if state.phase is Phase.GAME_OVER or not state.seating:
            return
        for seat in to_act(state):
            level = state.seating[seat].bot_level
            if level:
                turn = BotTurn(game_id, seat, state.version, level)
                self._remember(turn)
                self._launch(turn, 0.0)
            elif state.turn_seconds > 0:
                turn = BotTurn(game_id, seat, state.version, STAND_IN_LEVEL, True)
                self._launch(turn, float(state.turn_seconds))

    def _remember(self, turn: BotTurn) -> None:
        self._launched[turn.command_id] = time.monotonic()
        while len(self._launched) > 100_000:  # turns whose move never came back here
            self._launched.pop(next(iter(self._launched)))


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
