"""Who tells the bots to move: the game service announces every state where someone must act.

`BotScheduler.announce` looks at the seats to act: a bot seat gets a bot turn now, carrying the
seat's view and the game's ruleset so that the bot decides and submits with one call.
`BotScheduler.stand_in` is what follows the game service's turn timer running out on a person's
decision (services/handlers.py): a bot decides for them (a no-op if the person moved
meanwhile). The turn runs wherever the launcher sends it: a Celery worker (distributed), or an
asyncio task in the same process (embedded mode, no broker).

The scheduler keeps nothing per game. A bot turn left unanswered (a lost publish, a worker that
died, a replica that died before publishing) is announced again by the game service's durable
wake-ups (services/game/timers/), on any replica, derived from the game's events: nothing is
resent once the game moved on or ended. Announcing twice is harmless: a bot turn is applied at
most once per (seat, version).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from typing import Any

from services.codec import ruleset_to_proto, view_to_proto
from services.engine import BotLevel, GameState, Phase, to_act, view
from services.observability import BOT_QUEUE_DEPTH

from .turns import BotTurn, GameClient, play_bot_turn

log = logging.getLogger("verrater.ai")

#: The level that stands in for a human whose turn timer ran out: the strongest, which costs a
#: few milliseconds a move (README, "Bots").
STAND_IN_LEVEL = BotLevel.EXPERT
#: Serialized rulesets kept per game (a game's ruleset never changes).
RULESET_CACHE = 4096

#: The longest gap between two publishes of bot turns, and the window over which the rate of
#: turns is judged (see CeleryLauncher).
PUBLISH_GAP_S = 0.05
RATE_WINDOW_S = 1.0
#: The share of the bots' smoothed wait (from a state to their move) that a round may hold turns
#: back for (up to the gap), and how far each bot move moves that average (see CeleryLauncher).
GAP_SHARE = 0.5
WAIT_SMOOTHING = 0.05

Launcher = Callable[[BotTurn], None]


class BotScheduler:
    """Turns announced states into bot turns for the launcher."""

    def __init__(
        self,
        launch: Launcher,
        replica: tuple[str, str] = ("", ""),
        on_moved: Callable[[float], None] | None = None,
    ) -> None:
        """`replica`: this game replica's advertised address and its seal (`seal_replica`),
        which every turn carries so that the worker submits the move here; empty: none.
        `on_moved` hears how long each bot's move, appended here, came after the state that
        awaited it (seconds): the launcher paces its publishes by it."""
        self._launch = launch
        self._replica, self._replica_seal = replica
        self._rulesets: OrderedDict[str, bytes] = OrderedDict()
        self._on_moved = on_moved

    def moved(self, waited_s: float) -> None:
        """A bot's move was appended here, `waited_s` after the state that awaited it."""
        if self._on_moved is not None:
            self._on_moved(waited_s)

    def announce(self, game_id: str, state: GameState) -> int:
        """Launch a bot turn for every bot seat that must act in `state`; how many."""
        if state.phase is Phase.GAME_OVER or not state.seating:
            return 0
        launched = 0
        for seat in to_act(state):
            level = state.seating[seat].bot_level
            if level:
                self._launch(self._turn(game_id, state, seat, level, turn_timer_expired=False))
                launched += 1
        return launched

    def stand_in(self, game_id: str, seat: int, state: GameState) -> None:
        """A person's timed decision in `state` is due: a bot decides for them now (the
        decision event says turn_timer_expired; nothing happens if they decided meanwhile).
        The turn carries the seat's view and the ruleset, as a bot's does: the worker decides
        without asking the game service first."""
        self._launch(self._turn(game_id, state, seat, STAND_IN_LEVEL, turn_timer_expired=True))

    def _turn(
        self,
        game_id: str,
        state: GameState,
        seat: int,
        level: BotLevel,
        *,
        turn_timer_expired: bool,
    ) -> BotTurn:
        return BotTurn(
            game_id,
            seat,
            state.version,
            level,
            turn_timer_expired,
            view_to_proto(view(state, seat), game_id).SerializeToString(),
            self._ruleset(game_id, state),
            self._replica,
            self._replica_seal,
        )

    def _ruleset(self, game_id: str, state: GameState) -> bytes:
        ruleset = self._rulesets.get(game_id)
        if ruleset is None:
            if state.ruleset is None:
                return b""  # the bot asks for it
            ruleset = self._rulesets[game_id] = ruleset_to_proto(state.ruleset).SerializeToString()
            while len(self._rulesets) > RULESET_CACHE:
                self._rulesets.popitem(last=False)
        self._rulesets.move_to_end(game_id)
        return ruleset


class InProcessLauncher:
    """Runs bot turns as tasks of this process's event loop (embedded mode)."""

    def __init__(self, client: GameClient) -> None:
        self._client = client
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, turn: BotTurn) -> None:
        task = asyncio.get_running_loop().create_task(self._run(turn))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, turn: BotTurn) -> None:
        try:
            await play_bot_turn(self._client, turn)
        except Exception:  # one failed bot turn must not take the server down
            log.exception("bot turn %s failed", turn.command_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._client.close()


class CeleryLauncher:
    """Sends bot turns to the Celery workers (distributed mode).

    Publishing blocks, so it runs on one thread of its own; the turns announced while it
    publishes wait in a list and go out together in its next round. Under load the turns of
    several games then share a message (services/ai/worker.py plays them at once), which
    spares the broker, the game service and the workers most of their per-message work.

    Rounds also keep a gap between their starts, but only while other games' turns come fast
    enough that the wait would gather at least one: a lone game's bots, moving one after
    another, never wait for a gap that could gather nothing, and a turn after a quiet spell
    goes out at once. The gap follows the load: it is `GAP_SHARE` of how long bots have lately
    waited from a state to their move (`bot_moved`, smoothed), up to `gap_s`. When workers
    answer at once, it holds turns back for next to nothing. When bots wait on busy workers,
    a message gathers many turns, and that spares the most work where work is short.
    """

    def __init__(self, app: Any, queue: str, gap_s: float = PUBLISH_GAP_S) -> None:
        from .worker import TurnPublisher

        self._app = app
        self._queue = queue
        self._gap_s = gap_s
        # The turns announced within the last RATE_WINDOW_S (when, which game), and how many
        # of them each game has.
        self._recent: deque[tuple[float, str]] = deque()
        self._recent_per_game: Counter[str] = Counter()
        self._publisher = TurnPublisher(app, queue)
        self._thread = concurrent.futures.ThreadPoolExecutor(1, "bot-turns")
        self._waiting: list[BotTurn] = []
        self._round: asyncio.Future[None] | None = None
        self._due: asyncio.TimerHandle | None = None
        self._last_round = -gap_s
        # How long bots have lately waited from a state to their move (seconds, smoothed).
        self._bots_wait_s = 0.0
        BOT_QUEUE_DEPTH.set_function(self._queue_depth)

    def bot_moved(self, waited_s: float) -> None:
        """A bot's move, appended here, came `waited_s` after the state that awaited it."""
        waited = min(max(waited_s, 0.0), 4 * self._gap_s)  # a turn announced again counts once
        self._bots_wait_s += (waited - self._bots_wait_s) * WAIT_SMOOTHING

    def held_until(self) -> float | None:
        """The event loop's time at which the turns waiting now go out, while they are held
        back for the gap; None when none are (nothing waits, or a round is under way)."""
        return None if self._due is None else self._due.when()

    def _queue_depth(self) -> float:
        """Bot turns waiting in the broker (asked at scrape time, off the event loop)."""
        with self._app.connection_for_read() as connection:
            channel = connection.default_channel
            if connection.transport.driver_type == "redis":
                return float(channel.client.llen(self._queue))
            declared = channel.queue_declare(self._queue, passive=True)
            return float(declared.message_count)

    def __call__(self, turn: BotTurn) -> None:
        self._waiting.append(turn)
        self._count(turn.game_id)
        if self._round is None and self._due is None:
            self._schedule()

    def _count(self, game_id: str) -> None:
        now = asyncio.get_running_loop().time()
        self._recent.append((now, game_id))
        self._recent_per_game[game_id] += 1
        while self._recent[0][0] < now - RATE_WINDOW_S:
            _, old = self._recent.popleft()
            self._recent_per_game[old] -= 1
            if not self._recent_per_game[old]:
                del self._recent_per_game[old]

    def _gap(self) -> float:
        """The gap before the next round: a share of the bots' recent wait, up to `gap_s`, if
        other games' turns than the oldest waiting one's come fast enough that it would gather
        one, else none."""
        gap = min(self._gap_s, GAP_SHARE * self._bots_wait_s)
        others = len(self._recent) - self._recent_per_game[self._waiting[0].game_id]
        return gap if others / RATE_WINDOW_S * gap >= 1 else 0.0

    def _schedule(self) -> None:
        """Start the next round now, or when the gap has passed since the last one began."""
        loop = asyncio.get_running_loop()
        wait = self._last_round + self._gap() - loop.time()
        if wait > 0:
            self._due = loop.call_later(wait, self._next_round)
        else:
            self._next_round()

    def _next_round(self) -> None:
        self._due = None
        turns, self._waiting = self._waiting, []
        loop = asyncio.get_running_loop()
        self._last_round = loop.time()
        self._round = loop.run_in_executor(self._thread, self._publisher.publish, turns)
        self._round.add_done_callback(self._published)

    def _published(self, future: asyncio.Future[None]) -> None:
        self._round = None
        if not future.cancelled() and future.exception() is not None:
            # The game service's wake-ups announce these turns again later.
            log.error("could not enqueue bot turns: %s", future.exception())
        if self._waiting:
            self._schedule()

    async def close(self) -> None:
        while self._round is not None or self._due is not None:
            if self._due is not None:
                self._due.cancel()
                self._next_round()  # what waits goes out now
            assert self._round is not None
            await asyncio.wait([self._round])
            await asyncio.sleep(0)  # let its callback schedule the next round
        await asyncio.get_running_loop().run_in_executor(self._thread, self._publisher.close)
        self._thread.shutdown()
