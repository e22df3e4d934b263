"""A Play client that writes and never reads is cut off; the server's memory stays bounded.

Against a real `verrater serve` process: in one process with the client, gRPC's transport
buffers differently and the test would say nothing about a server on its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import (
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)
from services.bench.common import free_port, rss_mb, wait_until_serving
from services.rpc import bearer

ROOT = Path(__file__).resolve().parents[2]


async def _flood(port: int, pid: int) -> tuple[int, float, float]:
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        await wait_until_serving(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        game = game_pb2_grpc.GameServiceStub(channel)
        session = (
            await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Flooder"))
        ).session
        host = bearer(session.token)
        table = (await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)).table
        for _ in range(3):
            await lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
                metadata=host,
            )
        table = (
            await lobby.StartGame(
                lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host
            )
        ).table
        seat = await lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
        )
        before = rss_mb(pid)
        call = game.Play(metadata=bearer(seat.token))
        await call.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=table.game_id)))
        # Decisions on a version the game will never reach: each is refused, and each refusal
        # is an answer the server must send to a client that never reads one.
        stale = game_pb2.PlayRequest(
            command=game_pb2.SubmitCommandRequest(expected_version=10**6, command_id="x")
        )
        written = 0
        try:
            for written in range(100_000):  # noqa: B007
                await call.write(stale)
        except grpc.aio.AioRpcError:
            pass  # the server ended the stream; this client's next write fails
        return written, before, rss_mb(pid)


def test_a_play_client_that_never_reads_is_cut_off_and_server_memory_stays_bounded() -> None:
    port = free_port()
    env = {
        **os.environ,
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_COMMAND_RATE": "0",
        "VERRATER_LOG_FORMAT": "json",
        "VERRATER_WEB_BIND": "",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        written, before, after = asyncio.run(_flood(port, server.pid))
    finally:
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=30)
    assert after - before < 50, f"server memory grew {after - before:.1f} MB"
    if written >= 99_999:
        # Known gap (issue 16, open): when the server's send is stuck on a client whose
        # receive window is full, the session stops reading (memory stays bounded, as asserted
        # above) but the stream is not ended until the client leaves. Whether the send gets
        # stuck before the outbox fills depends on gRPC's window growth, so this is timing.
        pytest.xfail("the server was stuck sending to the unread stream and did not cut it off")
    logs = [json.loads(line) for line in output.decode().splitlines() if line.startswith("{")]
    assert any(line.get("reason") == "SLOW_READER" for line in logs)
    assert not [line for line in logs if line.get("level") in ("error", "critical")], logs[-5:]
