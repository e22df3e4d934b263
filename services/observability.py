"""What an operator sees: structured logs (structlog) and Prometheus metrics.

Logs are JSON lines (or readable lines on a terminal) carrying the context of the call they
belong to: `trace_id`, `method`, and, for game calls, `game_id`, `seat` and `command_id`. Keys
that could hold a credential are dropped before anything is written, so no token or secret is
ever logged. Metrics are served over HTTP for Prometheus on VERRATER_METRICS_PORT.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, MutableMapping
from typing import Any

import structlog
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    start_http_server,
)

_SECRET_KEYS = ("token", "secret", "authorization", "password", "seed")

COMMANDS = Counter(
    "verrater_commands_total",
    "Commands submitted to the game service, by command type and outcome.",
    ["type", "outcome"],
)
COMMAND_SECONDS = Histogram(
    "verrater_command_seconds",
    "Time to decide and append one command (server side).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
APPEND_SECONDS = Histogram(
    "verrater_stream_append_seconds",
    "Time to append one batch of events to the game's stream.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25),
)
REFUSALS = Counter(
    "verrater_refusals_total",
    "Calls refused, by method and reason (services/errors.py): an attack shows here first.",
    ["method", "reason"],
)
ACTIVE_GAMES = Gauge("verrater_active_games", "Games in this replica's cache that are not over.")
WATCHERS = Gauge("verrater_watchers", "Open Watch streams on this replica.")
BOT_TASK_SECONDS = Histogram(
    "verrater_bot_task_seconds",
    "Time from a state where a bot must act to the bot's move, as the game service appends it.",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
BOT_QUEUE_DEPTH = Gauge("verrater_bot_queue_depth", "Bot turns waiting in the Celery queue.")

# A worker's own metrics, on a registry of their own (`start_worker_metrics`): the game
# service's above mean nothing in a worker, where they would all read 0.
WORKER_MESSAGES = Counter(
    "verrater_worker_messages_total",
    "Task messages this worker took from the broker, by task name.",
    ["task"],
    registry=None,
)
WORKER_DISCARDED = Counter(
    "verrater_worker_discarded_total",
    "Messages this worker discarded unrun: an unknown task name, or not a task at all.",
    ["why"],
    registry=None,
)


def _drop_secrets(
    logger: Any, method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    for key in list(event):
        if any(word in key.lower() for word in _SECRET_KEYS):
            del event[key]
    return event


def get_logger(name: str) -> Any:
    """A structlog logger writing through the stdlib logger `name`, never to stdout.

    Until `configure_logging` runs (commands other than `serve` and `worker`, tests), lines
    go where stdlib logging sends them: warnings to stderr. A command that prints its result on
    stdout (a game id, a `--json` object) never has a log line mixed into it.
    """
    return structlog.wrap_logger(logging.getLogger(name))


def configure_logging(level: str = "INFO", fmt: str = "auto") -> bool:
    """Route stdlib and structlog records, and Python's warnings, through one JSON (or
    console) renderer; True when it writes JSON."""
    json_output = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: Callable[..., Any] = (
        structlog.processors.JSONRenderer()
        if json_output
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _drop_secrets,
    ]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.captureWarnings(True)  # a library's warning is a log line like any other
    return json_output


def bind_call(**context: Any) -> None:
    """Attach context (trace_id, game_id, seat, command_id, ...) to every log of this call."""
    structlog.contextvars.bind_contextvars(**context)


def start_metrics(port: int) -> None:
    """Serve /metrics on `port` (0: no metrics server)."""
    if port:
        start_http_server(port)


def start_worker_metrics(port: int) -> None:
    """Serve a worker's /metrics on `port` (0: none): its consuming process's CPU, memory and
    garbage collection, and the messages it took from the broker or discarded. How long bot
    turns take is the game service's `verrater_bot_task_seconds`, which sees them end to end."""
    if not port:
        return
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    registry.register(WORKER_MESSAGES)
    registry.register(WORKER_DISCARDED)
    start_http_server(port, registry=registry)
