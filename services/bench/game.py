"""`verrater bench game`: the game service under load, through gRPC, on Redis.

One game-service process (`verrater serve game`, started here as a child process) serves G
games at once; this process plays them with random players that think for an exponentially
distributed time before each decision, replacing every finished game by a new one. Each seat
plays as a real client does: a Watch stream in TURNS mode hands it its view when it must decide,
and it answers with one SubmitCommand, so a decision costs one call and one pushed view. It reports
achieved commands per second, SubmitCommand latency, events appended per second, and the time
to rebuild one finished game from its Redis stream.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field

import grpc
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc
from services.codec import Record, decode_record, encode_record
from services.devtools.redis_cluster import local_redis_cluster
from services.devtools.redis_server import local_redis
from services.engine import Ruleset, fold, play_random_game
from services.eventstore import RedisEventStore, is_cluster_url
from services.rpc import Role, TokenIssuer, bearer

from .common import (
    cpu_ms_per,
    cpu_seconds,
    free_port,
    percentile,
    verrater_process,
    wait_until_serving,
)

BENCH_SECRET = "bench-secret-only-for-this-local-benchmark-run"
#: How the seats may play: one Play stream each, or Watch (TURNS) plus SubmitCommand calls.
APIS = ("play", "unary")


@dataclass
class Tally:
    """What the seats of the games played saw: each decision's latency, events, stale
    decisions, and the games finished."""

    latencies_ms: list[float] = field(default_factory=list)
    events: int = 0
    stale: int = 0
    finished: list[str] = field(default_factory=list)
    #: Updates the spectators received, all of them together.
    spectated: int = 0


async def _play_seat(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    token: tuple[tuple[str, str], ...],
    think_ms: float,
    *,
    rng: random.Random,
    tally: Tally,
) -> None:
    """One seat of one game, as a real client plays: a Watch in TURNS mode tells it when it
    must decide (with its view), and it answers with one SubmitCommand."""
    turns = stub.Watch(
        game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_TURNS), metadata=token
    )
    try:
        async for response in turns:
            update = response.update
            if update.view.phase == events_pb2.PHASE_GAME_OVER:
                return
            if think_ms > 0:
                await asyncio.sleep(rng.expovariate(1000.0 / think_ms))
            request = game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=update.version,
                command_id=f"{game_id}-{update.version}-{update.view.seat}",
                command=rng.choice(update.view.legal),
                version_only=True,
            )
            started = time.perf_counter()
            try:
                answer = await stub.SubmitCommand(request, metadata=token)
            except grpc.aio.AioRpcError as error:
                if error.code() is not grpc.StatusCode.ABORTED:
                    raise
                # Another seat's simultaneous decision (the hand limit) moved the game on:
                # the Watch brings this seat's next view.
                tally.stale += 1
                continue
            tally.latencies_ms.append((time.perf_counter() - started) * 1000)
            tally.events += answer.event_count
    finally:
        turns.cancel()


async def _play_seat_on_stream(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    token: tuple[tuple[str, str], ...],
    think_ms: float,
    *,
    rng: random.Random,
    tally: Tally,
) -> None:
    """One seat of one game over one Play stream: a turn comes in with the seat's view, the
    decision goes out on the same stream, and its result comes back on it."""
    call = stub.Play(metadata=token)
    try:
        await call.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
        sent = 0.0
        while (message := await call.read()) is not aio.EOF:
            assert isinstance(message, game_pb2.PlayResponse)
            if message.HasField("result"):
                result = message.result
                if result.HasField("applied"):
                    tally.latencies_ms.append((time.perf_counter() - sent) * 1000)
                    tally.events += result.applied.event_count
                elif result.refused.code == grpc.StatusCode.ABORTED.value[0]:
                    # Another seat's simultaneous decision (the hand limit) moved the game on:
                    # the stream brings this seat's next turn.
                    tally.stale += 1
                else:
                    raise RuntimeError(f"command refused: {result.refused}")
                continue
            update = message.turn
            if update.view.phase == events_pb2.PHASE_GAME_OVER:
                return
            if think_ms > 0:
                await asyncio.sleep(rng.expovariate(1000.0 / think_ms))
            sent = time.perf_counter()
            await call.write(
                game_pb2.PlayRequest(
                    command=game_pb2.SubmitCommandRequest(
                        expected_version=update.version,
                        command_id=f"{game_id}-{update.version}-{update.view.seat}",
                        command=rng.choice(update.view.legal),
                    )
                )
            )
    finally:
        call.cancel()


async def _spectate(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    token: tuple[tuple[str, str], ...],
    tally: Tally,
) -> None:
    """A spectator of one game, as the page follows one: every event, a batch per message,
    until the stream ends with the game."""
    request = game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_EVENTS, grouped=True)
    async for response in stub.Watch(request, metadata=token):
        tally.spectated += len(response.updates)


async def play_games(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    issuer: TokenIssuer,
    think_ms: float,
    *,
    api: str,
    rng: random.Random,
    tally: Tally,
    spectators: int = 0,
) -> None:
    """One game slot: play random games back to back until cancelled, each watched by
    `spectators` more streams."""
    play_seat = _play_seat_on_stream if api == "play" else _play_seat
    service = bearer(issuer.mint("bench", role=Role.SERVICE))
    while True:
        created = await stub.CreateGame(game_pb2.CreateGameRequest(players=4), metadata=service)
        game_id = created.game_id
        await asyncio.gather(
            *[
                play_seat(
                    stub,
                    game_id,
                    bearer(issuer.mint(f"{game_id}-{seat}", game_id=game_id, seat=seat)),
                    think_ms,
                    rng=random.Random(rng.random()),
                    tally=tally,
                )
                for seat in range(4)
            ],
            *[
                _spectate(stub, game_id, bearer(issuer.mint(f"{game_id}-fan-{fan}")), tally)
                for fan in range(spectators)
            ],
        )
        tally.finished.append(game_id)


async def _rebuild_ms(redis_url: str, game_id: str | None, repeats: int = 30) -> dict[str, float]:
    """Median times to read a finished game's whole stream from Redis, decode it and fold it
    (each part, and the whole: `total`).

    Without a game finished under load (long think times, short runs), a random 4-player game
    is played to the end and stored first, so there is always a finished game to time.
    """
    store = RedisEventStore.from_url(redis_url)
    try:
        if game_id is None:
            game_id = f"bench-rebuild-{uuid.uuid4().hex}"
            played = play_random_game(Ruleset.standard(4), random.Random(game_id))
            await store.append(game_id, 0, [encode_record(Record(e)) for e in played.events])
        parts: dict[str, list[float]] = {"read": [], "decode": [], "fold": [], "total": []}
        for _ in range(repeats):
            started = time.perf_counter()
            stored = await store.read(game_id)
            read = time.perf_counter()
            events = [decode_record(item.payload).event for item in stored]
            decoded = time.perf_counter()
            fold(events)
            folded = time.perf_counter()
            for part, took in (
                ("read", read - started),
                ("decode", decoded - read),
                ("fold", folded - decoded),
                ("total", folded - started),
            ):
                parts[part].append(took * 1000)
        return {part: statistics.median(times) for part, times in parts.items()}
    finally:
        await store.close()


async def _run(
    games: int, think_ms: float, duration: float, redis_url: str, api: str, *, spectators: int
) -> dict[str, float | str | None]:
    port = free_port()
    env = {
        "REDIS_URL": redis_url,
        "VERRATER_TOKEN_SECRET": BENCH_SECRET,
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_LOG_LEVEL": "WARNING",
        # The benchmark measures the game path; scripted seats outpace a human's rate limit.
        "VERRATER_COMMAND_RATE": "0",
        # Every seat's stream comes from this one address, 4 per game: 200 games are 800 streams.
        "VERRATER_STREAMS_PER_PEER": "0",
    }
    if is_cluster_url(redis_url):
        # Every seat is a scripted player; a cluster cannot be the bots' Celery broker.
        env["VERRATER_BOTS"] = "off"
    with verrater_process(["serve", "game"], env) as server:
        channel = aio.insecure_channel(f"127.0.0.1:{port}")
        try:
            await wait_until_serving(channel)
            stub: game_pb2_grpc.GameServiceAsyncStub = game_pb2_grpc.GameServiceStub(channel)
            issuer = TokenIssuer(BENCH_SECRET)
            tally = Tally()
            cpu_before = cpu_seconds(server.pid)
            own_cpu_before = time.process_time()
            started = time.monotonic()
            slots = [
                asyncio.create_task(
                    play_games(
                        stub,
                        issuer,
                        think_ms,
                        api=api,
                        rng=random.Random(i),
                        tally=tally,
                        spectators=spectators,
                    )
                )
                for i in range(games)
            ]
            done, _ = await asyncio.wait(slots, timeout=duration)
            elapsed = time.monotonic() - started
            cpu_after = cpu_seconds(server.pid)
            own_cpu = time.process_time() - own_cpu_before
            for slot in slots:
                slot.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
            for slot in done:
                slot.result()  # a slot that ended early failed: show why
        finally:
            await channel.close()
    rebuild = await _rebuild_ms(redis_url, tally.finished[0] if tally.finished else None)
    return {
        "games": games,
        "think_ms": think_ms,
        "api": api,
        "seconds": round(elapsed, 2),
        "commands": len(tally.latencies_ms),
        "commands_per_s": round(len(tally.latencies_ms) / elapsed, 1),
        "p50_ms": round(percentile(tally.latencies_ms, 0.50), 2),
        "p99_ms": round(percentile(tally.latencies_ms, 0.99), 2),
        "events_per_s": round(tally.events / elapsed, 1),
        "games_finished": len(tally.finished),
        "spectators": spectators,
        "spectator_updates_per_s": round(tally.spectated / elapsed, 1),
        "stale_commands": tally.stale,
        "rebuild_ms": round(rebuild["total"], 3),
        "rebuild_read_ms": round(rebuild["read"], 3),
        "rebuild_decode_ms": round(rebuild["decode"], 3),
        "rebuild_fold_ms": round(rebuild["fold"], 3),
        # What one command costs the service (its Watch push included): robust to a noisy
        # machine where the throughput figures are not.
        "server_cpu_ms_per_command": cpu_ms_per(cpu_before, cpu_after, len(tally.latencies_ms)),
        "server_cpu_utilisation": (
            round((cpu_after - cpu_before) / elapsed, 2)
            if cpu_before is not None and cpu_after is not None
            else None
        ),
        # The load generator shares the machine: when it nears one core, its own event loop
        # delays the replies it times.
        "client_cpu_utilisation": round(own_cpu / elapsed, 2),
    }


def run_game_bench(
    games: int,
    think_ms: float,
    duration: float,
    redis_url: str | None,
    api: str = "play",
    *,
    redis_cluster: int = 0,
    spectators: int = 0,
) -> dict[str, float | str | None]:
    """Run the benchmark against `redis_url`, or a private redis-server when None, or a
    private Redis Cluster of `redis_cluster` masters (a replica each) when that is not 0.

    `api` is how the seats play: "play" (one Play stream per seat) or "unary" (a Watch stream
    in TURNS mode and one SubmitCommand call per decision). `spectators`: Watch streams (EVENTS,
    grouped) following each game besides its seats.
    """
    if api not in APIS:
        raise ValueError(f"api must be one of {', '.join(APIS)}")
    if redis_cluster:
        with local_redis_cluster(redis_cluster) as cluster:
            figures = asyncio.run(
                _run(games, think_ms, duration, cluster.url, api, spectators=spectators)
            )
            return {**figures, "redis_nodes": len(cluster.nodes)}
    if redis_url:
        return asyncio.run(_run(games, think_ms, duration, redis_url, api, spectators=spectators))
    with local_redis() as url:
        return asyncio.run(_run(games, think_ms, duration, url, api, spectators=spectators))
