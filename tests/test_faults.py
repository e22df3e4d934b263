"""Faults: a game-service process dies, Redis restarts. Every game stays intact and audits clean.

Each test plays a real game through the public API while the fault happens, keeps the command
ids the server acknowledged, and checks afterwards that the log has no gap or duplicate, that
every acknowledged command is in it exactly once, and that `verrater audit` finds nothing.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc
from services.audit.export import LogEntry
from services.audit.verify import audit
from services.bench.common import free_port, wait_until_serving
from services.codec import decode_record
from services.devtools.redis_server import RedisServer
from services.eventstore import RedisEventStore
from services.rpc import Role, TokenIssuer, bearer
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
SECRET = "faults-test-secret-at-least-32-bytes-long"
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED, grpc.StatusCode.CANCELLED}


@contextmanager
def game_service(redis_url: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "VERRATER_TOKEN_SECRET": SECRET,
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_COMMAND_RATE": "0",
        "VERRATER_BOTS": "off",
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "game"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


class Player:
    """Scripted seats playing one game through whichever server address is current."""

    def __init__(self, issuer: TokenIssuer, game_id: str) -> None:
        self.issuer = issuer
        self.game_id = game_id
        self.acknowledged: list[str] = []
        self.retryable_errors = 0
        self.rng = random.Random(3)

    async def step(self, game: game_pb2_grpc.GameServiceAsyncStub) -> bool:
        """One decision, retried like a client would while the backend is away."""
        for _ in range(100):
            try:
                return await self._step(game)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE:
                    raise
                self.retryable_errors += 1
                await asyncio.sleep(0.2)
        raise AssertionError("the backend never came back")

    async def _step(self, game: game_pb2_grpc.GameServiceAsyncStub) -> bool:
        """One decision (retrying the same command id on retryable errors); False at the end."""
        spectator = bearer(self.issuer.mint("watcher"))
        view = (
            await game.GetView(game_pb2.GetViewRequest(game_id=self.game_id), metadata=spectator)
        ).view
        if view.phase == events_pb2.PHASE_GAME_OVER:
            return False
        seat = view.turn.seats[0]
        token = bearer(self.issuer.mint(f"p{seat}", game_id=self.game_id, seat=seat))
        mine = (
            await game.GetView(game_pb2.GetViewRequest(game_id=self.game_id), metadata=token)
        ).view
        command_id = uuid.uuid4().hex
        request = game_pb2.SubmitCommandRequest(
            game_id=self.game_id,
            expected_version=mine.version,
            command_id=command_id,
            command=self.rng.choice(list(mine.legal)),
        )
        for _ in range(50):
            try:
                await game.SubmitCommand(request, metadata=token, timeout=5)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE:
                    raise
                if error.code() is grpc.StatusCode.ABORTED:
                    return True  # the view moved on (our retry had landed): decide afresh
                self.retryable_errors += 1
                await asyncio.sleep(0.2)
                continue
            self.acknowledged.append(command_id)
            return True
        raise AssertionError("the server never came back")


async def _create(address: str, issuer: TokenIssuer) -> str:
    async with aio.insecure_channel(address) as channel:
        await wait_until_serving(channel)
        created = await game_pb2_grpc.GameServiceStub(channel).CreateGame(
            game_pb2.CreateGameRequest(players=4),
            metadata=bearer(issuer.mint("lobby", role=Role.SERVICE)),
        )
        return str(created.game_id)


async def _check_log(redis_url: str, game_id: str, acknowledged: list[str]) -> None:
    store = RedisEventStore.from_url(redis_url)
    try:
        stored = await store.read(game_id)
    finally:
        await store.close()
    assert [item.version for item in stored] == list(range(1, len(stored) + 1))
    ids = Counter(decode_record(item.payload).command_id for item in stored)
    for command_id in acknowledged:
        assert ids[command_id] == 1, command_id
    report = audit([LogEntry.from_stored(item) for item in stored])
    assert report.ok, report.summary()


def test_a_killed_game_service_is_replaced_and_the_game_goes_on(fresh_redis_url: str) -> None:
    issuer = TokenIssuer(SECRET)
    first_port, second_port = free_port(), free_port()

    async def scenario() -> Player:
        with game_service(fresh_redis_url, first_port) as first:
            game_id = await _create(f"127.0.0.1:{first_port}", issuer)
            player = Player(issuer, game_id)
            async with aio.insecure_channel(f"127.0.0.1:{first_port}") as channel:
                for _ in range(25):
                    await player.step(game_pb2_grpc.GameServiceStub(channel))  # type: ignore[arg-type]
            first.send_signal(signal.SIGKILL)
            first.wait()
        with game_service(fresh_redis_url, second_port):
            async with aio.insecure_channel(f"127.0.0.1:{second_port}") as channel:
                await wait_until_serving(channel)
                stub = game_pb2_grpc.GameServiceStub(channel)
                while await player.step(stub):  # type: ignore[arg-type]
                    pass
        return player

    player = asyncio.run(scenario())
    assert len(player.acknowledged) > 25
    asyncio.run(_check_log(fresh_redis_url, player.game_id, player.acknowledged))


def test_redis_restarting_with_aof_mid_game_costs_retries_not_events(
    persistent_redis: RedisServer,
) -> None:
    issuer = TokenIssuer(SECRET)
    port = free_port()

    async def scenario() -> Player:
        with game_service(persistent_redis.url, port):
            address = f"127.0.0.1:{port}"
            game_id = await _create(address, issuer)
            player = Player(issuer, game_id)
            async with aio.insecure_channel(address) as channel:
                stub = game_pb2_grpc.GameServiceStub(channel)
                for _ in range(20):
                    await player.step(stub)  # type: ignore[arg-type]
                persistent_redis.kill()  # a crash: only what AOF fsynced survives
                down = asyncio.create_task(player.step(stub))  # type: ignore[arg-type]
                # Restarted once the player has felt the crash (a refused decision, retried).
                await wait_until(lambda: player.retryable_errors > 0, "the crash is felt", 30)
                persistent_redis.start()
                await down
                while await player.step(stub):  # type: ignore[arg-type]
                    pass
        return player

    player = asyncio.run(scenario())
    assert player.retryable_errors > 0, "the restart was felt as retryable errors"
    asyncio.run(_check_log(persistent_redis.url, player.game_id, player.acknowledged))
