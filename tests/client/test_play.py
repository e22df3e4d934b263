"""`verrater play` and `verrater watch` as a person uses them: the real client in a
pseudo-terminal against a real `verrater serve` process."""

from __future__ import annotations

import re

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2, lobby_pb2_grpc

from .conftest import CHOICE, RUN, SUPPLY, Frame, ServerProcess, SpawnClient


def test_an_illegal_or_unclear_choice_is_explained_and_asked_again(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Fumbler")
    client.next_frame(lambda frame: frame.asks() == CHOICE)  # always a first estate first
    client.type("99\r")
    client.expect("there is no option 99: choose 1-")
    client.type("xyz\r")
    client.expect("'xyz' is none of the options")
    client.type("#42\r")  # a position the rules refuse: the server's reason is shown
    frame = client.next_frame(lambda frame: "Not allowed: " in frame.text)
    assert frame.asks() == CHOICE  # asked again
    # A table of the player and bots has no clock unless asked for: nobody else waits.
    assert not re.search(r"\d+:\d\d left|time is up", frame.status), frame.status
    client.child.sendintr()
    assert client.finish() == 130
    assert f"You left the game. Your seat waits for you: run `{RUN} play --server" in client.said
    assert "This table has no turn timer: the others wait." in client.said


def test_a_question_mark_shows_the_ais_suggestion_and_its_reason(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Learner")
    client.next_frame(lambda frame: frame.asks() == CHOICE)
    client.type("?\r")
    frame = client.next_frame(lambda frame: "Suggestion: " in frame.text)
    said = " ".join(frame.text[frame.text.index("Suggestion: ") :].split())
    suggestion = re.match(r"Suggestion: option (\d+): First estate under \S+ #\d+ \(\w+\) ", said)
    assert suggestion is not None, said
    option = suggestion.group(1)
    # The reason says why: what an estate there draws, not only where it stands.
    assert "a card each round" in said or "draws nothing" in said, said
    assert frame.asks() == CHOICE
    client.type(f"{option}\r")  # taking the suggestion works like any choice
    client.next_frame(lambda frame: frame.asks() is None)
    client.child.sendintr()
    client.expect("You left the game")
    assert client.finish() == 130


def test_a_hint_goes_with_its_question_when_the_turn_timer_answers_it(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client(
        "play", "--server", server.address, "--name", "Dawdler", "--turn-seconds", "5"
    )
    first = client.next_frame(lambda frame: frame.asks() == CHOICE)
    client.type("?\r")
    client.next_frame(lambda frame: "Suggestion: " in frame.text)
    # Left unanswered: a bot decides, and the next question comes without the old hint.
    client.next_frame(lambda frame: "Your turn timer ran out" in frame.text)
    later = client.next_frame(
        lambda frame: frame.asks() is not None and frame.status != first.status
    )
    assert "Suggestion: " not in later.text, later.text
    client.child.sendintr()
    assert client.finish() == 130


def _hand(frame: Frame) -> list[int]:
    line = next(line for line in frame.lines if line.startswith("Your hand: "))
    cards = line.removeprefix("Your hand: ").split(" (")[0].split(" · ")[0]
    return [] if cards.startswith("no cards") else [int(card) for card in cards.split()]


def test_the_supply_is_played_by_card_values_with_the_totals_so_far(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client("play", "--server", server.address, "--name", "Supplier")
    while True:
        frame = client.next_frame(lambda frame: frame.asks() is not None)
        if frame.asks() == SUPPLY:
            break
        client.answer(frame)
        client.next_frame(lambda frame: frame.asks() is None)
    text = frame.text
    assert "So far: Eagle " in text and " · Rose " in text
    assert re.search(r"Stakes: (Eagle|Rose) wins with \d backers? \(", text), text
    assert re.search(r"For you: \d+ if Eagle wins, \d+ if Rose wins", text), text
    hand = _hand(frame)
    client.type("8 8\r")  # the deck has one 8
    refused = client.next_frame(lambda frame: "does not hold 8 2 times" in frame.text)
    assert refused.asks() == SUPPLY  # asked again
    client.type(f"{hand[0]}\r")  # the card's value, not an option's number
    played = re.compile(rf"Supplier played supply {hand[0]} *$", re.M)
    client.next_frame(lambda frame: played.search(frame.text) is not None)
    client.child.sendintr()
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
    client.next_frame(lambda frame: "spectator" in frame.text)
    client.expect("Final scores", timeout=120)
    assert client.finish() == 0
    output = client.output
    # Live, not a replay of the end: the screen was drawn round after round.
    rounds = {int(number) for number in re.findall(r"Round (\d) of 8", output)}
    assert len(rounds) >= 3, sorted(rounds)
    assert "Conflict of round" in output
    assert f"verrater audit {game_id} --server {server.address}" in output
