"""A burst of new calls (clients reconnecting after a replica restart, a tournament starting)
queues until the server takes it; gRPC core's default cancels every call past 1,000 waiting."""

from __future__ import annotations

import asyncio

import grpc
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc
from services.bootstrap import start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore


async def test_three_thousand_calls_arriving_at_once_are_all_answered() -> None:
    config = Config(bind="127.0.0.1:0", token_secret="s" * 40, bots="off", command_rate=0)
    backend = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    try:
        async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            request = game_pb2.GetRulesetRequest(players=4)
            await stub.GetRuleset(request)
            results = await asyncio.gather(
                *[stub.GetRuleset(request) for _ in range(3000)], return_exceptions=True
            )
        failed = [r.code() for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert failed == []
        assert all(result.ruleset.players == 4 for result in results)  # type: ignore[union-attr]
    finally:
        await backend.stop(None)
