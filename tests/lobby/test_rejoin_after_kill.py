"""A client process killed mid-game (as a phone OS does) comes back with only its credential:
a new process signs in, finds its game with ListMyGames, resumes from the version it gives and
finishes the game; on Redis, across a restart of the servers as well."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from services.bootstrap import Backend, start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.store import InMemoryLobbyStore

ROOT = Path(__file__).resolve().parents[2]
SECRET = "rejoin-test-secret-at-least-32-bytes-long"


async def _backend(redis_url: str | None) -> Backend:
    config = Config(
        bind="127.0.0.1:0", token_secret=SECRET, bots="inprocess", command_rate=0, lobby_rate=0
    )
    if redis_url is None:
        return await start_backend(
            config, event_store=InMemoryEventStore(), lobby_store=InMemoryLobbyStore()
        )
    return await start_backend(
        config,
        event_store=RedisEventStore.from_url(redis_url),
        lobby_store=RedisLobbyStore.from_url(redis_url),
    )


async def _client(port: int, state: Path, decisions: int) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.rejoining_client",
        f"127.0.0.1:{port}",
        str(state),
        str(decisions),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.parametrize("where", ["memory", "redis, servers restarted"])
async def test_a_killed_client_rejoins_its_game_with_only_its_stored_credential(
    where: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    redis_url = None if where == "memory" else request.getfixturevalue("fresh_redis_url")
    state = tmp_path / "credential.json"
    backend = await _backend(redis_url)
    try:
        first = await _client(backend.port, state, decisions=6)
        assert first.stdout is not None
        line = (await asyncio.wait_for(first.stdout.readline(), timeout=120)).decode()
        assert line.startswith("PLAYED "), line + (await first.stdout.read()).decode()
        _, game_id, version = line.split()
        first.send_signal(signal.SIGKILL)
        await first.wait()
        assert set(state.read_text()) and "token" not in state.read_text()
        if redis_url is not None:
            await backend.stop(None)
            backend = await _backend(redis_url)
        second = await _client(backend.port, state, decisions=0)
        output, _ = await asyncio.wait_for(second.communicate(), timeout=180)
        text = output.decode()
        assert second.returncode == 0, text
        assert f"RESUMING {game_id} " in text
        resumed_from = int(text.split("RESUMING ")[1].split()[1])
        assert resumed_from >= int(version)
        assert f"FINISHED {game_id} " in text
        assert backend.game is not None
        final = await backend.game.state(game_id)
        assert final.phase.name == "GAME_OVER"
    finally:
        await backend.stop(None)
