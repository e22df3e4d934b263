"""Open streams are bounded per player and per network address: a client that opens streams
without end, or signs in as many guests to do it, runs out of streams, not the server out of
memory. Health and reflection streams, which need no token, count against their address too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.api.verrater.v1 import game_pb2, game_pb2_grpc
from services.bootstrap import Backend, start_backend
from services.config import Config
from services.errors import Reason, ServiceError
from services.eventstore import InMemoryEventStore
from services.game.service import NewGame
from services.rpc import StreamQuota
from tests.support.status import reason_of

SECRET = "quota-test-secret-at-least-32-bytes-long!"


def test_a_refused_stream_counts_against_nobody() -> None:
    quota = StreamQuota(per_player=2, per_peer=3)
    quota.acquire("ann", "203.0.113.7")
    quota.acquire("ann", "203.0.113.7")
    with pytest.raises(ServiceError) as refused:
        quota.acquire("ann", "203.0.113.7")  # Ann's third
    assert refused.value.reason is Reason.TOO_MANY_STREAMS
    quota.acquire("bob", "203.0.113.7")  # the address's third
    with pytest.raises(ServiceError):
        quota.acquire("cy", "203.0.113.7")  # the address's fourth
    assert quota.open_streams("ann") == 2
    assert quota.open_streams("cy") == 0
    assert quota.open_streams_of_peer("203.0.113.7") == 3
    quota.release("ann", "203.0.113.7")
    quota.acquire("cy", "203.0.113.7")
    assert quota.open_streams_of_peer("203.0.113.7") == 3


def test_streams_without_a_player_count_against_their_address_only() -> None:
    quota = StreamQuota(per_player=1, per_peer=2)
    quota.acquire(None, "198.51.100.1")
    quota.acquire(None, "198.51.100.1")
    with pytest.raises(ServiceError):
        quota.acquire(None, "198.51.100.1")
    quota.acquire("ann", None)  # the platform's own services name no address
    quota.release(None, "198.51.100.1")
    quota.release(None, "198.51.100.1")
    assert quota.open_streams_of_peer("198.51.100.1") == 0


@pytest.fixture
async def backend() -> AsyncIterator[Backend]:
    config = Config(
        bind="127.0.0.1:0",
        token_secret=SECRET,
        bots="off",
        command_rate=0,
        streams_per_player=0,
        streams_per_peer=3,
        trusted_proxies="127.0.0.1",
    )
    server = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    assert server.game is not None
    await server.game.start_game(NewGame(players=4, game_id="quota"))
    yield server
    await server.stop(None)


def _metadata(player: str, forwarded_for: str | None = None) -> tuple[tuple[str, str], ...]:
    token = Config(token_secret=SECRET).issuer.mint(player)
    metadata = (("authorization", f"Bearer {token}"),)
    if forwarded_for is None:
        return metadata
    return (*metadata, ("x-forwarded-for", forwarded_for))


async def test_one_address_has_a_bounded_number_of_streams_whoever_opens_them(
    backend: Backend,
) -> None:
    request = game_pb2.WatchRequest(game_id="quota", mode=game_pb2.WATCH_MODE_VIEWS)
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        game = game_pb2_grpc.GameServiceStub(channel)
        health: health_pb2_grpc.HealthAsyncStub = health_pb2_grpc.HealthStub(channel)  # type: ignore[assignment]
        # Three streams of three guests behind one address (a trusted proxy names it).
        behind = "198.51.100.1"
        opened = [game.Watch(request, metadata=_metadata(p, behind)) for p in ("a", "b", "c")]
        for call in opened:
            await call.read()
        fourth = game.Watch(request, metadata=_metadata("d", behind))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await fourth.read()
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(refused.value) == "TOO_MANY_STREAMS"
        # Another address behind the same proxy is not affected.
        elsewhere = game.Watch(request, metadata=_metadata("d", "198.51.100.2"))
        await elsewhere.read()
        # The proxy's own address (health watches need no token) has its own count, and a
        # health watch counts like any stream.
        watches = [health.Watch(health_pb2.HealthCheckRequest(service="")) for _ in range(3)]
        for watch in watches:
            await watch.read()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await health.Watch(health_pb2.HealthCheckRequest(service="")).read()
        assert reason_of(refused.value) == "TOO_MANY_STREAMS"
        # A stream that ends frees its place.
        opened[0].cancel()
        async with asyncio.timeout(10):
            while True:
                again = game.Watch(request, metadata=_metadata("d", behind))
                try:
                    await again.read()
                    break
                except grpc.aio.AioRpcError as error:  # the cancel not yet seen
                    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                    await asyncio.sleep(0.02)
        for call in (*opened[1:], elsewhere, *watches, again):
            call.cancel()
