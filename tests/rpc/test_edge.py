"""The rpc edge every service shares: tokens as RFC 6750 says, ids in full, junk bytes and
faults of ours answered with a status a client can act on, never UNKNOWN or internal text."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status
from prometheus_client import REGISTRY

from services.api.verrater.v1 import (
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    stats_pb2,
    stats_pb2_grpc,
)
from services.bootstrap import Backend, start_backend
from services.config import Config
from services.errors import Reason, ServiceError
from services.eventstore import InMemoryEventStore, StoredEvent
from services.game.values import NewGame
from services.rpc import ServiceInterceptor, TokenIssuer, bearer_token

SECRET = "edge-test-secret-at-least-32-bytes-long!"


@pytest.mark.parametrize(
    "header",
    ["Bearer abc.DEF-ghi_~+/=", "bearer abc.DEF-ghi_~+/=", "BEARER  abc.DEF-ghi_~+/="],
)
def test_a_bearer_token_is_read_as_rfc_6750_writes_it(header: str) -> None:
    # The scheme is case-insensitive (RFC 5234 §2.3) and 1*SP separates it (RFC 6750 §2.1).
    assert bearer_token((("authorization", header),)) == "abc.DEF-ghi_~+/="


@pytest.mark.parametrize(
    "header",
    ["Bearer", "Bearer ", "Basic abc", "Bearer abc def", "Bearer abc\n", "Bearer\tabc", "abc"],
)
def test_anything_else_in_the_header_is_an_invalid_token(header: str) -> None:
    with pytest.raises(ServiceError) as refused:
        bearer_token((("authorization", header),))
    assert refused.value.reason is Reason.TOKEN_INVALID


def test_two_authorization_headers_are_refused_not_picked_from() -> None:
    with pytest.raises(ServiceError) as refused:
        bearer_token((("authorization", "Bearer a"), ("authorization", "Bearer b")))
    assert refused.value.reason is Reason.TOKEN_INVALID


class FaultyStore(InMemoryEventStore):
    """An event store with a fault of ours in it (not an outage): reads blow up."""

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        if game_id.startswith("faulty"):
            raise RuntimeError("internal detail that must not reach a client")
        return await super().read(game_id, after_version, limit)


@pytest.fixture
async def backend() -> AsyncIterator[Backend]:
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, bots="off", command_rate=0)
    server = await start_backend(config, event_store=FaultyStore())
    yield server
    await server.stop(None)


def _info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "verrater.v1"
    return info


async def test_undecodable_bytes_are_invalid_argument_on_every_kind_of_method(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    token = TokenIssuer(SECRET).mint("someone")
    metadata = (("authorization", f"Bearer {token}"),)
    junk = b"\xff\xff\xff\xff"
    caplog.set_level(logging.INFO)
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        calls = [
            channel.unary_unary("/verrater.v1.LobbyService/RegisterGuest")(junk),
            channel.unary_unary("/verrater.v1.GameService/GetView")(junk, metadata=metadata),
            channel.unary_stream("/verrater.v1.GameService/Watch")(junk, metadata=metadata),
            # The libraries' services that need no token are covered as well.
            channel.unary_unary("/grpc.health.v1.Health/Check")(junk),
            channel.unary_stream("/grpc.health.v1.Health/Watch")(junk),
        ]
        for path in (
            "/verrater.v1.GameService/Play",
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        ):
            bidi = channel.stream_stream(path)(metadata=metadata)
            await bidi.write(junk)
            calls.append(bidi)
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                if isinstance(call, aio.UnaryUnaryCall):
                    await call
                else:
                    await call.read()  # type: ignore[union-attr]
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert _info(refused.value).reason == "MALFORMED_REQUEST"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "no traceback logged"


async def test_refusals_are_counted_by_method_and_reason_for_the_operator(
    backend: Backend,
) -> None:
    def refusals() -> float:
        labels = {"method": "/verrater.v1.GameService/GetView", "reason": "TOKEN_MISSING"}
        return REGISTRY.get_sample_value("verrater_refusals_total", labels) or 0.0

    before = refusals()
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        game = game_pb2_grpc.GameServiceStub(channel)
        for _ in range(3):
            with pytest.raises(grpc.aio.AioRpcError):
                await game.GetView(game_pb2.GetViewRequest(game_id="g"))
    assert refusals() == before + 3


async def test_a_fault_of_ours_is_internal_with_an_incident_id_and_no_internal_text(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    token = TokenIssuer(SECRET).mint("someone")
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        game = game_pb2_grpc.GameServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await game.GetView(
                game_pb2.GetViewRequest(game_id="faulty-1"),
                metadata=(("authorization", f"Bearer {token}"),),
            )
    assert refused.value.code() is grpc.StatusCode.INTERNAL
    assert "internal detail" not in (refused.value.details() or "")
    incident = _info(refused.value).metadata["incident"]
    assert incident in (refused.value.details() or "")
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(incident in r.getMessage() and r.exc_info for r in logged), "the log has it all"


async def test_a_method_the_servicer_does_not_implement_is_unimplemented_not_internal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The generated base servicer's placeholders raise NotImplementedError: that is no fault to
    # report with an incident, but a method this server does not serve, as gRPC says of any.
    server = aio.server(interceptors=[ServiceInterceptor(TokenIssuer(SECRET))])
    stats_pb2_grpc.add_StatsServiceServicer_to_server(stats_pb2_grpc.StatsServiceServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stats = stats_pb2_grpc.StatsServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stats.Leaderboard(
                    stats_pb2.LeaderboardRequest(),
                    metadata=(("authorization", f"Bearer {TokenIssuer(SECRET).mint('a')}"),),
                )
    finally:
        await server.stop(None)
    assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_id_with_a_trailing_newline_is_refused(backend: Backend) -> None:
    assert backend.game is not None
    game_id, _ = await backend.game.start_game(NewGame(players=4, game_id="plain"))
    token = TokenIssuer(SECRET).mint("someone")
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        game = game_pb2_grpc.GameServiceStub(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        metadata = (("authorization", f"Bearer {token}"),)
        await game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=metadata)
        for call in (
            game.GetView(game_pb2.GetViewRequest(game_id=game_id + "\n"), metadata=metadata),
            lobby.GetTable(lobby_pb2.GetTableRequest(table_id="t\n"), metadata=metadata),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert _info(refused.value).reason == "INVALID_ID"


async def test_two_authorization_headers_on_the_wire_are_unauthenticated(
    backend: Backend,
) -> None:
    issuer = TokenIssuer(SECRET)
    async with aio.insecure_channel(f"127.0.0.1:{backend.port}") as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await lobby.ListTables(
                lobby_pb2.ListTablesRequest(),
                metadata=(
                    ("authorization", f"Bearer {issuer.mint('a')}"),
                    ("authorization", f"Bearer {issuer.mint('b')}"),
                ),
            )
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert _info(refused.value).reason == "TOKEN_INVALID"


async def test_a_player_has_a_bounded_number_of_streams_open() -> None:
    config = Config(
        bind="127.0.0.1:0", token_secret=SECRET, bots="off", command_rate=0, streams_per_player=2
    )
    server = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    try:
        assert server.game is not None
        game_id, _ = await server.game.start_game(NewGame(players=4, game_id="streams"))
        token = config.issuer.mint("greedy")
        metadata = (("authorization", f"Bearer {token}"),)
        request = game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_VIEWS)
        async with aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            game = game_pb2_grpc.GameServiceStub(channel)
            first, second = (
                game.Watch(request, metadata=metadata),
                game.Watch(request, metadata=metadata),
            )
            await first.read()
            await second.read()
            third = game.Watch(request, metadata=metadata)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await third.read()
            assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert _info(refused.value).reason == "TOO_MANY_STREAMS"
            # Another player is not affected, and a closed stream frees its place.
            other = game.Watch(
                request, metadata=(("authorization", f"Bearer {config.issuer.mint('b')}"),)
            )
            await other.read()
            first.cancel()
            async with asyncio.timeout(10):
                while True:
                    again = game.Watch(request, metadata=metadata)
                    try:
                        await again.read()
                        break
                    except grpc.aio.AioRpcError as error:  # the cancel not yet seen
                        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                        await asyncio.sleep(0.02)
            for call in (second, other, again):
                call.cancel()
    finally:
        await server.stop(None)
