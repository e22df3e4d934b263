"""What the service benchmarks share: their own processes, readiness, and percentiles."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import grpc
import kombu
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2
from services.devtools.redis_server import free_port
from services.rpc import bearer

_T = TypeVar("_T")

#: The settings a bench's whole stack runs with: the load generator is one address that
#: registers every simulated player, opens their tables and holds their streams, and the
#: per-player and per-address limits that protect a real server would refuse it.
UNLIMITED = {
    "VERRATER_LOG_LEVEL": "WARNING",
    "VERRATER_COMMAND_RATE": "0",
    "VERRATER_LOBBY_RATE": "0",
    "VERRATER_GUEST_RATE": "0",
    "VERRATER_GUEST_GLOBAL_RATE": "0",
    "VERRATER_PEER_TABLES": "0",
    "VERRATER_STREAMS_PER_PEER": "0",
}


def stack_env(
    redis_url: str,
    broker: str,
    queue: str,
    secret: str,
    game_ports: list[int],
    *,
    scratch: Path,
) -> dict[str, str]:
    """What every process of a bench's distributed stack is started with: its Redis, the
    broker and private queue of its bot turns, the token secret, every game replica's address
    (balanced over by the lobby, AI and workers), and no limits (`UNLIMITED`).

    Their temporary files go in `scratch` (made here; the bench removes it with its run): a
    worker stopped by SIGKILL leaves its multiprocessing directory (`pymp-*`) behind, which in
    the system's temporary directory nothing would remove."""
    scratch.mkdir(parents=True, exist_ok=True)
    return {
        "TMPDIR": str(scratch),
        "REDIS_URL": redis_url,
        "VERRATER_BROKER_URL": broker,
        "VERRATER_BOT_QUEUE": queue,
        "VERRATER_TOKEN_SECRET": secret,
        "VERRATER_GAME_ADDR": "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in game_ports),
        **UNLIMITED,
    }


__all__ = [
    "CHANNEL_OPTIONS",
    "UNLIMITED",
    "cpu_ms_per",
    "cpu_seconds",
    "free_port",
    "patiently",
    "percentile",
    "private_queue",
    "rss_mb",
    "sit_down",
    "stack_env",
    "verrater_process",
    "wait_until_serving",
]


#: What a starved machine or a backend on its way back answers, that a retry may get past.
AWAY = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


async def patiently(
    call: Callable[[], Awaitable[_T]],
    *,
    retryable: frozenset[grpc.StatusCode] = AWAY,
    attempts: int = 60,
    max_delay: float = 2.0,
) -> _T:
    """`call()` retried with backoff (0.1 s, doubling up to `max_delay`) while it answers one
    of `retryable`: the same request each time, so its request or command id makes a retry
    answered, never done twice."""
    for attempt in range(attempts):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in retryable or attempt == attempts - 1:
                raise
            await asyncio.sleep(min(0.1 * 2**attempt, max_delay))
    raise AssertionError("unreachable")


async def sit_down(
    lobby: Any,
    name: str,
    *,
    retryable: frozenset[grpc.StatusCode] = AWAY,
    attempts: int = 60,
    started: Callable[[str], None] | None = None,
) -> tuple[str, int, tuple[tuple[str, str]]]:
    """A guest called `name` at a table of four with three `normal` bots, started: the game
    id, the guest's seat and its seat token. Each call is retried (`patiently`) with a request
    id, so a retry changes nothing twice; `started(game_id)` is told once the game exists."""

    async def once(method: Any, request: Any, **options: Any) -> Any:
        return await patiently(
            functools.partial(method, request, timeout=10, **options),
            retryable=retryable,
            attempts=attempts,
        )

    def request_id() -> str:
        return uuid.uuid4().hex

    guest = lobby_pb2.RegisterGuestRequest(display_name=name, request_id=request_id())
    player = bearer((await once(lobby.RegisterGuest, guest)).session.token)
    create = lobby_pb2.CreateTableRequest(size=4, request_id=request_id())
    table = (await once(lobby.CreateTable, create, metadata=player)).table
    for _ in range(3):
        bot = lobby_pb2.AddBotRequest(
            table_id=table.table_id, level=events_pb2.BOT_LEVEL_NORMAL, request_id=request_id()
        )
        await once(lobby.AddBot, bot, metadata=player)
    start = lobby_pb2.StartGameRequest(table_id=table.table_id, request_id=request_id())
    table = (await once(lobby.StartGame, start, metadata=player)).table
    if started is not None:
        started(table.game_id)
    ticket = lobby_pb2.GetSeatTokenRequest(table_id=table.table_id)
    seat_token = await once(lobby.GetSeatToken, ticket, metadata=player)
    return table.game_id, seat_token.seat, bearer(seat_token.token)


#: Channels to game replicas listed as `ipv4:a,b`: calls spread over them.
CHANNEL_OPTIONS = (("grpc.lb_policy_name", "round_robin"),)


@contextmanager
def private_queue(broker_url: str) -> Iterator[str]:
    """A bot-turn queue name of this run's own, deleted at the end: a RabbitMQ is shared with
    whatever else runs on the machine (a private Redis needs no such care, but gets one too)."""
    name = f"verrater.bench.{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        with contextlib.suppress(Exception), kombu.Connection(broker_url) as connection:
            kombu.Queue(name, channel=connection.default_channel).delete()


@contextmanager
def verrater_process(
    args: list[str], env: dict[str, str], log: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`verrater ARGS...` in a child process, terminated at the end; its output (stdout and
    stderr) goes to `log` (appended), else it is discarded."""
    with contextlib.ExitStack() as files:
        output: int | IO[bytes] = subprocess.DEVNULL
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            output = files.enter_context(log.open("ab"))
        child = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *args],
            env={**os.environ, **env},
            stdout=output,
            stderr=subprocess.STDOUT if log is not None else subprocess.DEVNULL,
        )
        try:
            yield child
        finally:
            child.terminate()
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


async def wait_until_serving(channel: aio.Channel, timeout: float = 180.0) -> None:
    """Return once the server behind `channel` reports SERVING on the gRPC health service."""
    stub: Any = health_pb2_grpc.HealthStub(channel)  # the health stubs type the sync API only
    deadline = time.monotonic() + timeout
    while True:
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                return
        except grpc.aio.AioRpcError:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.1)


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile (0 < q < 1, to a thousandth) of `values`; 0 for none."""
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=1000, method="inclusive")[round(q * 1000) - 1]


def rss_mb(pid: int) -> float:
    """A running process's resident memory (VmRSS) in MiB (Linux: from /proc)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"process {pid} has no VmRSS")


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a running process has used so far; None where the platform
    has no /proc to read it from."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return None
    # After the command name: state is field 3 of proc(5), utime and stime are 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ms_per(before: float | None, after: float | None, count: int) -> float | None:
    """Milliseconds of CPU per unit of work between two `cpu_seconds` readings (None when
    either reading is unavailable or nothing was done)."""
    if before is None or after is None or not count:
        return None
    return round((after - before) * 1000 / count, 3)
