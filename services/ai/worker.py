"""Celery: bot moves computed by workers.

Two tasks:
- `verrater.compute_move(view, ruleset, level)`: pure. A serialized `verrater.v1.PlayerView`
  and `verrater.v1.Ruleset` in, a serialized `verrater.v1.Command` and a reason out. Anyone with
  access to the broker may use it for their own bots (its result goes to the result backend).
- `verrater.bot_turns(turns=[...])`: play bot seats' turns through the game API
  (`services.ai.turns`); the announcing replica put each seat's view in its turn. A game
  replica sends the turns announced while its previous publish ran in one message (up to
  `TURNS_PER_TASK`), and the worker plays them at once on its event loop (`play_turns`: they
  decide together and their moves go back in one `SubmitCommands` call, which the replica
  takes one after another): under load, one message, one acknowledgement, one trip through
  the pool and one call carry many bot moves. No result is stored. Acknowledged only after
  every turn in it ran (`acks_late`), so a worker that dies mid-task has the task redelivered
  (on RabbitMQ as soon as its connection drops); the command ids make the redelivery
  harmless. A game service that cannot be reached is retried with backoff, per turn.
  `verrater.bot_turn(...)` plays one turn (the message of earlier releases, still served).

Each worker process (Celery's prefork pool forks them) makes its own event loop and gRPC channel
after the fork, on `worker_process_init`, and keeps them for its life: a channel made before a
fork must not be used after it. The broker is RabbitMQ (quorum queues) in production, or Redis.
Run a worker with `verrater worker`; the settings come from the environment (services/config.py).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from celery import Celery
from celery.signals import (
    task_received,
    task_rejected,
    task_unknown,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
)

from services.api.verrater.v1 import ruleset_pb2, view_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.errors import Reason
from services.observability import WORKER_DISCARDED, WORKER_MESSAGES
from services.rpc import DEVELOPMENT_SECRET, TokenIssuer, refusal_of

from .levels import policy_for_level, searches
from .turns import BotTurn, CommandRefused, GameClient, play_bot_turn

log = logging.getLogger("verrater.ai.worker")
_T = TypeVar("_T")

#: Seconds before a Redis broker hands an unacknowledged task (its worker died) to another
#: worker. RabbitMQ needs none: it redelivers when the worker's connection drops.
VISIBILITY_TIMEOUT_DEFAULT = 30
#: The queue of bot turns (and of compute_move, unless its caller names another).
DEFAULT_QUEUE = "verrater.bots"
#: Waits between attempts to reach the game service (UNAVAILABLE, DEADLINE_EXCEEDED): about
#: 30 s in all, then the turn is left to the game service's re-announcement. Never more than
#: half a second apart, so a bot moves within about that of its game's store coming back (a
#: Redis Cluster failover takes a few seconds), rather than after a doubled backoff.
RETRY_DELAYS_S = (0.1, 0.2, 0.4, *(0.5,) * 59)
_RETRIED = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
#: Refusals of a game service that is there but whose game's store is not: not retried here.
_STORE_AWAY = frozenset({Reason.STORE_UNAVAILABLE, Reason.REPLICATION_UNCONFIRMED})
#: Bot turns one task message carries at most.
TURNS_PER_TASK = 64


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """What a worker (and a publisher of bot turns) needs to know."""

    broker_url: str = "redis://127.0.0.1:6379/0"
    #: Where compute_move's results go (None: the broker's Redis, or no results on RabbitMQ).
    result_url: str | None = None
    game_address: str = "127.0.0.1:50051"
    token_secret: str = DEVELOPMENT_SECRET
    visibility_timeout_s: int = VISIBILITY_TIMEOUT_DEFAULT
    min_think_ms: float = 0.0
    queue: str = DEFAULT_QUEUE

    @property
    def on_rabbitmq(self) -> bool:
        return self.broker_url.startswith(("amqp://", "amqps://", "pyamqp://"))


class _Process:
    """This worker process's event loop and game client, for its life."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.client = self.loop.run_until_complete(self._connect(settings))

    @staticmethod
    async def _connect(settings: WorkerSettings) -> GameClient:
        # Made inside the loop it will run on (grpc.aio binds a channel to its loop).
        return GameClient(settings.game_address, TokenIssuer(settings.token_secret))

    def run(self, work: Callable[[GameClient], Awaitable[_T]]) -> _T:
        return self.loop.run_until_complete(work(self.client))

    def close(self) -> None:
        self.loop.run_until_complete(self.client.close())
        self.loop.close()


def make_app(settings: WorkerSettings | None = None) -> Celery:
    """The Celery app of workers and of the game service that sends them bot turns."""
    settings = settings or WorkerSettings()
    backend = settings.result_url
    if backend is None and not settings.on_rabbitmq:
        backend = settings.broker_url
    app = Celery("verrater", broker=settings.broker_url, backend=backend)
    transport: dict[str, Any] = {}
    if settings.on_rabbitmq:
        # Quorum queues are replicated and durable. Publishes are not confirmed (a confirm per
        # turn cost ten times the publish): a lost turn is announced again by the game service.
        app.conf.task_default_queue_type = "quorum"
    else:
        transport["visibility_timeout"] = settings.visibility_timeout_s
    app.conf.update(
        task_default_queue=settings.queue,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        # A few turns ready per process: a move takes a millisecond or two, a fetch as long.
        # Unacknowledged until played, so a dead worker's prefetched turns are redelivered too.
        worker_prefetch_multiplier=4,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=3600,
        broker_transport_options=transport,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    app.task(name="verrater.compute_move")(compute_move)
    process: list[_Process] = []

    def this_process() -> _Process:
        # Made after the fork (worker_process_init), or at first use in a solo worker.
        if not process or process[0].pid != os.getpid():
            process[:] = [_Process(settings)]
        return process[0]

    def bot_turn(**kwargs: Any) -> bool:
        """Play one bot turn through the game API; True when the bot moved."""
        turn = BotTurn.from_kwargs(**kwargs)
        return this_process().run(
            lambda client: _play_patiently(client, turn, settings.min_think_ms / 1000)
        )

    def bot_turns(turns: list[dict[str, Any]]) -> int:
        """Play bot turns at once through the game API; how many bots moved."""
        batch = [BotTurn.from_kwargs(**kwargs) for kwargs in turns]
        return this_process().run(
            lambda client: play_turns(client, batch, settings.min_think_ms / 1000)
        )

    app.task(name="verrater.bot_turn", ignore_result=True)(bot_turn)
    app.task(name="verrater.bot_turns", ignore_result=True)(bot_turns)
    app.verrater_settings = settings  # type: ignore[attr-defined]

    @worker_init.connect(weak=False)
    def _warm(**_: Any) -> None:
        # The expert stands in for people whose turn timer ran out: numpy and its weights are
        # read here, once, before the pool forks, not by each process's first stand-in (0.6 s
        # on this machine, a stand-in's lateness).
        from .value import shipped_value

        shipped_value()

    @worker_process_init.connect(weak=False)
    def _made(**_: Any) -> None:
        this_process()

    @task_received.connect(weak=False)
    def _received(request: Any, **_: Any) -> None:  # in the consuming process
        WORKER_MESSAGES.labels(request.name).inc()

    @task_unknown.connect(weak=False)
    def _unknown(**_: Any) -> None:
        WORKER_DISCARDED.labels("unknown task").inc()

    @task_rejected.connect(weak=False)
    def _rejected(**_: Any) -> None:
        WORKER_DISCARDED.labels("not a task").inc()

    @worker_process_shutdown.connect(weak=False)
    def _ending(**_: Any) -> None:
        if process and process[0].pid == os.getpid():
            process.pop().close()

    return app


class TurnPublisher:
    """Publishes bot turns on one long-lived producer (a publisher thread's own): Celery's
    `send_task` took a pooled producer and rebuilt its options for every message, four times
    the cost of the publish itself."""

    def __init__(self, app: Celery, queue: str) -> None:
        self._app = app
        self._queue = app.amqp.queues[queue]
        self._producer: Any = None

    def publish(self, turns: list[BotTurn]) -> None:
        """Send `turns`, up to TURNS_PER_TASK in a message (blocking: call it off the event
        loop, from one thread at a time). A searching bot's turn (`hard`: a quarter second of
        CPU) goes alone, so that such turns spread over the worker processes instead of sharing
        one process's core."""
        if self._producer is None:
            self._producer = self._app.producer_pool.acquire(block=True)
        instant = [turn for turn in turns if not searches(turn.level)]
        batches = [instant[i : i + TURNS_PER_TASK] for i in range(0, len(instant), TURNS_PER_TASK)]
        batches.extend([turn] for turn in turns if searches(turn.level))
        try:
            for turns_in_message in batches:
                batch = [turn.as_kwargs() for turn in turns_in_message]
                message = self._app.amqp.as_task_v2(
                    str(uuid.uuid4()),
                    "verrater.bot_turns",
                    kwargs={"turns": batch},
                    ignore_result=True,
                )
                self._producer.publish(
                    message.body,
                    exchange="",
                    routing_key=self._queue.name,
                    headers=message.headers,
                    serializer="json",
                    declare=[self._queue],
                    retry=True,
                    retry_policy={"max_retries": 2, "interval_start": 0.1},
                    **message.properties,
                )
        except Exception:
            self.close()  # the next batch starts on a fresh connection
            raise

    def close(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            producer.release()


async def play_turns(client: GameClient, turns: list[BotTurn], min_think_s: float) -> int:
    """Play one message's `turns` (each patiently); how many bots moved.

    The bots decide (and think, and wait out a retry's backoff) at once, and the moves decided
    together go to the replica that announced them in one SubmitCommands call
    (`GameClient.submit`). The replica takes them one after another, each awaiting its append
    before the next, so people's commands interleave with them: a burst of separate calls
    arriving together had queued people's commands behind it (a person's SubmitCommand took
    about 10 ms longer at the median; docs/BENCHMARKS.md). A turn that fails, or waits to
    retry, does not hold up the others.
    """
    moved = await asyncio.gather(
        *(_play_patiently(client, turn, min_think_s) for turn in turns),
        return_exceptions=True,
    )
    for turn, outcome in zip(turns, moved, strict=True):
        if isinstance(outcome, BaseException):
            log.error("bot turn %s failed: %r", turn.command_id, outcome)
    return sum(1 for outcome in moved if outcome is True)


async def _play_patiently(client: GameClient, turn: BotTurn, min_think_s: float) -> bool:
    """`play_bot_turn`, retried with backoff while the game service cannot be reached."""
    for delay in (*RETRY_DELAYS_S, None):
        try:
            return await play_bot_turn(client, turn, min_think_s)
        except (grpc.aio.AioRpcError, CommandRefused) as error:
            if _store_away(error):
                # The game replica answered: only its game's store is away (a Redis Cluster
                # master failing over). The replica announces the turn again once it is back;
                # waiting here would hold this worker process (and the turns of other games
                # behind it) for as long as that master's failover.
                log.info(
                    "bot turn %s: the game's store is away: left to the game service",
                    turn.command_id,
                )
                return False
            if error.code() not in _RETRIED or delay is None:
                log.warning(
                    "bot turn %s failed: %s: %s", turn.command_id, error.code(), error.details()
                )
                return False
            log.info("bot turn %s: %s, retrying in %ss", turn.command_id, error.code(), delay)
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
    return False


def _store_away(error: grpc.aio.AioRpcError | CommandRefused) -> bool:
    """Whether the game service refused for its store (it answered, so it is there)."""
    if isinstance(error, CommandRefused):
        reason = error.reason
    else:
        refused = refusal_of(error)
        reason = refused[0] if refused is not None else ""
    return reason in _STORE_AWAY


def compute_move(view: str, ruleset: str, level: str, seed: int | None = None) -> dict[str, Any]:
    """A move for the seat whose view this is (base64 protobuf in and out, JSON-safe)."""
    player_view = view_from_proto(view_pb2.PlayerView.FromString(base64.b64decode(view)))
    rules = ruleset_from_proto(ruleset_pb2.Ruleset.FromString(base64.b64decode(ruleset)))
    choice = policy_for_level(level).choose(player_view, rules, random.Random(seed))
    command = command_to_proto(choice.command).SerializeToString()
    return {"command": base64.b64encode(command).decode(), "reason": choice.reason}
