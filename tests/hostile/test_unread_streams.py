"""A Play client that writes and never reads is cut off; the server's memory stays bounded.

Against a real `verrater serve` process: in one process with the client, gRPC's transport
buffers differently and the test would say nothing about a server on its own.

Twice: with gRPC's default receive window, and with a client that keeps its window small (no
BDP probing, 1 KiB of lookahead), so that the server's send of an answer the client never takes
cannot end and the cut finds the stream stuck in it (services/game/play.py). Either way the
server ends the stream with RESOURCE_EXHAUSTED SLOW_READER and frees what it held for it. The
status leaves behind the answers the client has not read: a client that reads again finds them,
then the status. When the status got through while the client was still writing, its next
write fails instead (grpc's Python client then reports INTERNAL, see below). gRPC gives a
server no way to reset one stream, so while such a client neither reads nor leaves, its writes
are still taken (up to gRPC's flow-control window) and nothing tells it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

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


#: Client channel options: gRPC's defaults, and a receive window that stays small.
WINDOWS = {
    "default window": (),
    "small window": (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)),
}
#: How long the client waits for the end of a stream the server has cut off: a guard against a
#: hanging test (the stream was not cut), far beyond what any run takes.
HANG_GUARD_SECONDS = 120


class ServerLog:
    """The server's JSON log lines, read as it writes them."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.lines: list[dict[str, Any]] = []
        self.text: list[str] = []
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            line = raw.decode(errors="replace")
            self.text.append(line)
            if line.startswith("{"):
                self.lines.append(json.loads(line))

    def count(self, wanted: Callable[[dict[str, Any]], bool]) -> int:
        return sum(1 for line in list(self.lines) if wanted(line))

    async def wait_for(self, wanted: Callable[[dict[str, Any]], bool], count: int) -> None:
        """Until `count` lines are `wanted` (the hang guard ends a test that would hang)."""
        async with asyncio.timeout(HANG_GUARD_SECONDS):
            while self.count(wanted) < count:
                await asyncio.sleep(0.05)

    def finish(self) -> str:
        self._reader.join(timeout=HANG_GUARD_SECONDS)
        return "".join(self.text)


def _slow_reader(line: dict[str, Any]) -> bool:
    return line.get("reason") == "SLOW_READER" and line.get("code") == "RESOURCE_EXHAUSTED"


@dataclass
class Flood:
    written: int
    rss_before: float
    rss_after: float
    #: The status the client saw the stream end with.
    code: grpc.StatusCode | None
    details: str | None
    #: Answers the client read after the flood, before the stream ended.
    read_after: int
    #: A fresh call on the same connection worked while the cut stream was still unread.
    served_after: bool


async def _write_stale(call: Any, game_id: str) -> int:
    """Decisions on a version the game will never reach, without reading: each is refused, and
    each refusal is an answer the server must send to a client that never reads one. How many
    were written before a write failed (the server ended the stream and it closed)."""
    await call.write(game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id)))
    stale = game_pb2.PlayRequest(
        command=game_pb2.SubmitCommandRequest(expected_version=10**6, command_id="x")
    )
    written = 0
    try:
        for written in range(100_000):  # noqa: B007
            await call.write(stale)
    except grpc.aio.AioRpcError:
        pass  # the server ended the stream and its status reached this client
    return written


async def _flood(
    port: int, server: subprocess.Popen[bytes], options: tuple[tuple[str, int], ...], log: ServerLog
) -> Flood:
    async with aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
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
        before = rss_mb(server.pid)
        call = game.Play(metadata=bearer(seat.token))
        written = await _write_stale(call, table.game_id)
        # The server cuts the stream off on its own, before this client reads anything (also
        # when it was stuck sending to it, which only the client reading would end).
        await log.wait_for(_slow_reader, 1)
        after = rss_mb(server.pid)
        # The server serves other calls, on the same connection too.
        view = await game.GetView(
            game_pb2.GetViewRequest(game_id=table.game_id), metadata=bearer(seat.token)
        )
        served = view.view.game_id == table.game_id
        # Now read: what waited for this client, then the end of the stream.
        read_after = 0
        async with asyncio.timeout(HANG_GUARD_SECONDS):
            try:
                while await call.read() is not aio.EOF:
                    read_after += 1
            except grpc.aio.AioRpcError:
                pass  # the status, read below
            code = await call.code()
            details = await call.details()
        # A second such stream, cut off too, and left unread while the server stops: the stop
        # must not find a handler stuck in a send (gRPC would log ExecuteBatchError).
        unread = game.Play(metadata=bearer(seat.token))
        await _write_stale(unread, table.game_id)
        await log.wait_for(_slow_reader, 2)
        server.send_signal(signal.SIGTERM)
        await asyncio.to_thread(server.wait, HANG_GUARD_SECONDS)
        return Flood(written, before, after, code, details, read_after, served)


@pytest.mark.parametrize("window", list(WINDOWS))
def test_a_play_client_that_never_reads_is_cut_off_and_server_memory_stays_bounded(
    window: str,
) -> None:
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
    assert server.stdout is not None
    log = ServerLog(server.stdout)
    try:
        # The server is stopped (SIGTERM) while the client still holds an unread stream.
        flood = asyncio.run(_flood(port, server, WINDOWS[window], log))
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        server.wait(timeout=HANG_GUARD_SECONDS)
        text = log.finish()
    assert flood.rss_after - flood.rss_before < 50, (
        f"server memory grew {flood.rss_after - flood.rss_before:.1f} MB"
    )
    if flood.code is grpc.StatusCode.INTERNAL:
        # The status got through and closed the stream while the client was still writing: its
        # next write failed, and grpc's Python client then ends the call with a status of its
        # own (INTERNAL "Internal error from Core"), dropping the server's.
        assert flood.details == "Internal error from Core", flood
        assert flood.written < 99_999, flood
    else:
        # The client found the status when it read, after what had waited for it.
        assert flood.code is grpc.StatusCode.RESOURCE_EXHAUSTED, (flood, text[-2000:])
        assert flood.details is not None and "messages waited" in flood.details, flood
    assert flood.served_after
    assert log.count(_slow_reader) >= 2, text[-2000:]
    errors = [line for line in log.lines if line.get("level") in ("error", "critical")]
    assert not errors, errors[-5:]
    assert "ExecuteBatchError" not in text, text[-2000:]
    assert "Traceback" not in text, text[-2000:]
    assert "Task was destroyed" not in text, text[-2000:]
    assert server.returncode == 0, text[-2000:]
