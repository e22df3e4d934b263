"""`verrater play` and `verrater watch` as a person uses them: the real client in a
pseudo-terminal against a real `verrater serve` process."""

from __future__ import annotations

import re

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2, lobby_pb2_grpc

from .conftest import CHOICE, PAUSE, ServerProcess, SpawnClient


def test_a_scripted_player_plays_a_whole_game_against_bots(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Scripted")
    decisions = client.play_to_the_end()
    assert client.finish() == 0
    output = client.output
    rounds = max(int(number) for number in re.findall(r"Round (\d) of 8", output))
    assert rounds == 8 or "ended early" in output  # normal bots often conquer everything
    # A first estate, then at least an action card and a supply play in every round.
    assert decisions >= 1 + 2 * rounds
    assert "Conflict of round 1" in output
    assert "Trading posts" in output
    assert re.search(r"wins|share the win", output)


def test_an_illegal_or_unclear_choice_is_explained_and_asked_again(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Fumbler")
    client.expect(CHOICE)  # the first decision is always a first estate
    client.send("99")
    client.expect("there is no option 99: choose 1-")
    client.expect(CHOICE)
    client.send("xyz")
    client.expect("'xyz' is none of the options")
    client.expect(CHOICE)
    client.send("#42")  # a position the rules refuse: the server's reason is shown
    client.expect("Not allowed: ")
    client.expect(CHOICE)
    client.child.sendintr()
    client.expect("You left the game")
    assert client.finish() == 130


def test_a_question_mark_shows_the_ais_suggestion_and_its_reason(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Learner")
    client.expect(CHOICE)
    client.send("?")
    # pexpect matches across lines (DOTALL): keep the reason to its own line, or a greedy
    # match runs on into the prompt when both arrive in one read, and takes the prompt with it.
    client.expect(r"Suggestion: option (\d+): First estate under \S+ #\d+ \(\w+\) \(([^()\r\n]+)\)")
    option = client.matched(1)
    client.expect(CHOICE)
    client.send(option)  # taking the suggestion works like any choice
    client.expect([CHOICE, PAUSE])
    client.child.sendintr()
    client.expect("You left the game")
    assert client.finish() == 130


def _bot_game(address: str) -> str:
    """A started game of four bots (two slow thinkers, so it runs for a while); its id."""
    with grpc.insecure_channel(address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        host = lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Organiser")).session
        auth = (("authorization", f"Bearer {host.token}"),)
        table = lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=4, auto_start=True, host_sits_out=True),
            metadata=auth,
        ).table
        for level in (
            events_pb2.BOT_LEVEL_HARD,
            events_pb2.BOT_LEVEL_EASY,
            events_pb2.BOT_LEVEL_HARD,
            events_pb2.BOT_LEVEL_EASY,
        ):
            table = lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=level), metadata=auth
            ).table
        assert table.status == lobby_pb2.TABLE_STATUS_STARTED
        return table.game_id


def test_watch_follows_a_bot_game_live_to_its_end(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    game_id = _bot_game(server.address)
    client = spawn_client("watch", game_id, "--server", server.address)
    client.expect("spectator")
    client.expect("Final scores", timeout=120)
    assert client.finish() == 0
    output = client.output
    # Live, not a replay of the end: the screen was drawn round after round.
    rounds = {int(number) for number in re.findall(r"Round (\d) of 8", output)}
    assert len(rounds) >= 3, sorted(rounds)
    assert "Conflict of round" in output
