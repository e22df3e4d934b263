"""`verrater simulate`: a bot game through the real services, whose exported log audits clean."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from services.audit import audit, read_log
from services.audit.cli import add_commands
from services.audit.simulate import SimulationError, add_simulate_command, simulate
from services.bootstrap import start_backend
from services.config import Config
from services.engine.events import GameCreated, GameEnded


def run(argv: Sequence[str]) -> int:
    """The way `verrater` runs a command: parse, then call the chosen handler."""
    parser = argparse.ArgumentParser(prog="verrater")
    commands = parser.add_subparsers(dest="command", required=True)
    add_commands(commands)
    add_simulate_command(commands)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_an_embedded_simulation_prints_the_game_id_and_writes_a_log_that_audits_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bots.jsonl"
    assert run(["simulate", "--players", "3", "--level", "easy", "--out", str(out)]) == 0
    game_id = capsys.readouterr().out.strip()
    assert game_id
    with out.open(encoding="utf-8") as file:
        log = read_log(file)
    assert log.game_id == game_id
    report = audit(log.entries)
    assert report.ok, report.summary()
    created = log.entries[0].record().event
    assert isinstance(created, GameCreated)
    assert len(created.seats) == 3
    assert all(seat.bot_level == "easy" for seat in created.seats)
    assert not created.ranked
    assert isinstance(log.entries[-1].record().event, GameEnded)
    # `verrater audit --file` says the same.
    assert run(["audit", "--file", str(out)]) == 0
    assert "CLEAN" in capsys.readouterr().out


async def test_a_simulation_plays_on_a_running_server_at_the_level_asked() -> None:
    backend = await start_backend(Config(bind="127.0.0.1:0"))
    try:
        played = await simulate(4, "normal", server=f"127.0.0.1:{backend.port}")
        assert backend.game is not None
        stored = await backend.game.store.read(played.game_id)
    finally:
        await backend.stop(None)
    assert [entry.payload for entry in played.entries] == [item.payload for item in stored]
    created = played.entries[0].record().event
    assert isinstance(created, GameCreated)
    assert [seat.bot_level for seat in created.seats] == ["normal"] * 4
    assert audit(played.entries).ok


async def test_a_simulation_that_cannot_reach_its_server_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SimulationError, match="cannot reach"):
        await simulate(3, "easy", server="127.0.0.1:1", timeout=20)
    code = await asyncio.to_thread(run, ["simulate", "--server", "127.0.0.1:1"])
    assert code == 2
    assert "cannot reach the backend at 127.0.0.1:1" in capsys.readouterr().err


async def test_a_simulation_drives_a_lobby_and_a_game_service_apart() -> None:
    """`--lobby` and `--game`: a distributed deployment, where no one address serves both."""
    game = await start_backend(Config(bind="127.0.0.1:0"), frozenset({"game", "ai"}))
    game_address = f"127.0.0.1:{game.port}"
    lobby = await start_backend(
        Config(bind="127.0.0.1:0", game_address=game_address), frozenset({"lobby"})
    )
    try:
        played = await simulate(
            3, "easy", lobby=f"127.0.0.1:{lobby.port}", game=f"ipv4:{game_address}"
        )
    finally:
        await lobby.stop(None)
        await game.stop(None)
    assert audit(played.entries).ok
