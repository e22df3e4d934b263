"""A Play client that keeps its receive window small and never reads: the server's send of an
answer cannot end, so the cut finds the stream stuck in it. The server still ends the stream at
once: it stops counting against the player, and the client that reads again finds what waited
for it, then RESOURCE_EXHAUSTED SLOW_READER. (tests/hostile/test_unread_streams.py does this
against a `verrater serve` process, with the default window too.) And Play streams cancelled as
they open log nothing above info."""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc
from services.bootstrap import start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore
from tests.game.harness import SECRET, Client

#: Client options for a receive window that stays small.
SMALL_WINDOW = (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024))
#: A guard against a hanging test (a stream never cut), far beyond what a run takes.
HANG_GUARD_SECONDS = 60


async def test_a_stream_stuck_sending_to_a_client_that_never_reads_is_ended_by_the_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = Config(
        bind="127.0.0.1:0",
        token_secret=SECRET,
        bots="off",
        command_rate=0,
        streams_per_player=1,
        stream_backlog=4,
    )
    backend = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}", options=SMALL_WINDOW)
    try:
        client = Client(channel, game_pb2_grpc.GameServiceStub(channel), config.issuer)
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        metadata = client.seat_metadata(game_id, seat)
        unread = client.stub.Play(metadata=metadata)
        await unread.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
        stale = game_pb2.PlayRequest(
            command=game_pb2.SubmitCommandRequest(expected_version=10**6, command_id="x")
        )
        for _ in range(500):  # each refused, each refusal an answer this client does not read
            await unread.write(stale)
        async with asyncio.timeout(HANG_GUARD_SECONDS):
            # The player may hold one stream: a second opens once the server has ended the
            # first, which this client has not read a message of.
            while True:
                second = client.stub.Play(metadata=metadata)
                await second.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
                try:
                    first = await second.read()
                except grpc.aio.AioRpcError as refused:
                    assert refused.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert "streams" in (refused.details() or "")
                    await asyncio.sleep(0.05)
                    continue
                assert isinstance(first, game_pb2.PlayResponse) and first.HasField("turn")
                second.cancel()
                break
            waited = 0
            try:
                while await unread.read() is not aio.EOF:
                    waited += 1
            except grpc.aio.AioRpcError:
                pass  # the cut ends the reads with the stream's status, checked below
        assert await unread.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "messages waited" in (await unread.details() or "")
        assert 0 < waited < 500
    finally:
        await channel.close()
        await backend.stop(None)
    # Nothing logged an error, neither the cut nor the stop (ExecuteBatchError, from gRPC).
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_play_streams_their_clients_cancel_at_once_log_nothing_above_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Cancelled as they open (around the headers Play sends first), and at every point soon
    after: each ends as a cancellation, with no warning or error (ExecuteBatchError, INTERNAL)."""
    caplog.set_level(logging.INFO)
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, bots="off", command_rate=0)
    backend = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        client = Client(channel, game_pb2_grpc.GameServiceStub(channel), config.issuer)
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        metadata = client.seat_metadata(game_id, seat)
        for n in range(200):
            call = client.stub.Play(metadata=metadata)
            await call.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
            for _ in range(n % 8):
                await asyncio.sleep(0)
            call.cancel()
        # The last one, once the server has answered it.
        call = client.stub.Play(metadata=metadata)
        await call.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
        assert (await call.read()).HasField("turn")
        call.cancel()
    finally:
        await channel.close()
        await backend.stop(None)
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not noisy, [r.getMessage()[:200] for r in noisy][:5]
