"""A game played through a real game server, fetched with GetLog, audits clean."""

from __future__ import annotations

import asyncio
import io
import random

import pytest

from services.audit import LogEntry, audit, read_log, tell_story
from services.audit.client import TOKEN_ENV, FetchError, choose_token, fetch_log
from services.bootstrap import start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import TokenIssuer
from tests.game.harness import SECRET, ScriptedGame, running_server

from .test_cli import run


@pytest.fixture(autouse=True)
def no_token_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)


async def test_a_game_played_through_the_server_audits_clean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = InMemoryEventStore()
    async with running_server(store) as (backend, client):
        game_id = await client.create_game(4)
        await ScriptedGame(client, game_id, random.Random(8)).play_to_end()
        server = f"127.0.0.1:{backend.port}"

        entries = await fetch_log(game_id, server=server, issuer=client.issuer)
        assert entries == [LogEntry.from_stored(stored) for stored in await store.read(game_id)]
        report = audit(entries)
        assert report.ok, report.summary()
        assert report.decisions > 0
        assert any(line.startswith("== Round 1 ") for line in tell_story(entries))

        # The command line, with a token of the server's issuer, in its own event loop.
        token = client.issuer.mint("auditor")
        command = ["export", game_id, "--server", server, "--token", token]
        assert await asyncio.to_thread(run, command) == 0
        exported = read_log(io.StringIO(capsys.readouterr().out))
        assert exported.game_id == game_id
        assert exported.entries == entries
        command = ["audit", game_id, "--server", server, "--token", token]
        assert await asyncio.to_thread(run, command) == 0
        assert "CLEAN" in capsys.readouterr().out


async def test_without_a_token_the_command_line_mints_one_with_the_local_secret(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VERRATER_TOKEN_SECRET", SECRET)
    async with running_server(InMemoryEventStore()) as (backend, client):
        game_id = await client.create_game(3)
        await ScriptedGame(client, game_id, random.Random(9)).play_to_end()
        command = ["replay", game_id, "--server", f"127.0.0.1:{backend.port}", "--round", "1"]
        assert await asyncio.to_thread(run, command) == 0
        assert capsys.readouterr().out.startswith("== Round 1 ")


async def test_the_log_of_a_running_game_stays_closed() -> None:
    async with running_server(InMemoryEventStore()) as (backend, client):
        game_id = await client.create_game(3)
        server = f"127.0.0.1:{backend.port}"
        with pytest.raises(FetchError, match="opens when the game is over"):
            await fetch_log(game_id, server=server, issuer=client.issuer)
        with pytest.raises(FetchError, match="has no game"):
            await fetch_log("no-such-game", server=server, issuer=client.issuer)
        forged = TokenIssuer("another-secret-of-at-least-32-bytes!").mint("mallory")
        with pytest.raises(FetchError, match="refused the token"):
            await fetch_log(game_id, server=server, token=forged)


def test_the_token_is_the_given_one_else_the_environment_s_else_a_minted_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    issuer = TokenIssuer("a-secret-for-this-test-only-32-bytes-long")
    with pytest.raises(FetchError, match="needs a token"):
        choose_token()
    assert issuer.verify(choose_token(issuer=issuer)).seat is None  # a spectator's
    monkeypatch.setenv(TOKEN_ENV, "from-the-environment")
    assert choose_token(issuer=issuer) == "from-the-environment"
    assert choose_token("given", issuer) == "given"


async def test_a_server_without_the_game_service_is_named_with_what_to_pass() -> None:
    """A distributed backend's lobby does not serve GetLog: say to name the game service."""
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, game_address="127.0.0.1:1")
    backend = await start_backend(config, frozenset({"lobby"}), lobby_store=InMemoryLobbyStore())
    try:
        issuer = TokenIssuer(SECRET)
        with pytest.raises(FetchError, match=r"serves no game service.*--game"):
            await fetch_log("g1", server=f"127.0.0.1:{backend.port}", issuer=issuer)
    finally:
        await backend.stop()
