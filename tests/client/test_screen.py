"""The full-screen client in a real pseudo-terminal against a real server: whole games at
80x24 and 120x40 where every frame fits and starts with the status line (at 80x24 with nothing
cut to `…`, the last conflict on its key, the printed lines within the width and the end
screen within the height, its commands runnable as printed), a resize, keys typed out of turn,
a client killed with SIGKILL and resumed by another with the stored credential, tokens that
expire every few seconds, and `make play` (which Ctrl-C ends without make's complaint)."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pexpect
import pytest

from services.api.verrater.v1 import (
    chat_pb2,
    chat_pb2_grpc,
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)

from .conftest import (
    ANSI,
    CHOICE,
    ROOT,
    RUN,
    SUPPLY,
    Frame,
    ServerProcess,
    SpawnClient,
    newcomers_path,
)

#: A VP scale on the board: four cells, provisional ones marked "*".
SCALE = re.compile(r"\d+\*?/\d+\*?/\d+\*?/\d+\*?|vp \d+\*? \d+\*? \d+\*? \d+\*?")


def _game_id(output: str) -> str:
    match = re.search(r"Game (\w+) starts", output)
    assert match is not None, output[-2000:]
    return match.group(1)


def _check_whole_game(frames: list[Frame], output: str, address: str) -> None:
    """What every game's screens show: the board's VP scales, the stakes and the totals
    while the supply is played, the clock on the player's turns, and the end screen."""
    assert len(frames) > 50
    boards = [frame for frame in frames if "The last conflict" not in frame.text]
    assert all(SCALE.search(frame.text) for frame in boards if frame.lines[-1].strip())
    supply = [frame for frame in boards if frame.asks() == SUPPLY]
    assert supply
    for frame in supply:
        assert "So far: " in frame.text and "Stakes: " in frame.text, frame.text
    mine = [frame for frame in frames if "your turn" in frame.status]
    assert mine and all(re.search(r"\d+:\d\d left|time is up", frame.status) for frame in mine)
    game_id = _game_id(output)
    said = " ".join(ANSI.sub("", output).split())  # lines wrapped between words, joined
    commitment = re.search(r"Seed commitment of game \w+: ([0-9a-f]{64})", said)
    assert commitment is not None
    assert "Seed commitment, as shown when the game started:" in said
    assert said.count(commitment.group(1)) >= 2  # at the start and at the end
    lines = ANSI.sub("", output).split("\r\n")
    assert f"  {RUN} replay {game_id} --server {address}" in lines  # whole, on a line
    assert f"  {RUN} audit {game_id} --server {address}" in lines
    assert "Final scores" in output
    assert re.search(r"wins|share the win", output)
    # As printed, in the shell of someone who has not put the virtualenv on their PATH.
    printed = subprocess.run(
        f"{RUN} replay {game_id} --server {address}",
        shell=True,
        cwd=ROOT,
        env={**os.environ, "PATH": newcomers_path()},
        capture_output=True,
        text=True,
        check=False,
    )
    assert printed.returncode == 0, printed.stderr
    assert "== Round 1 " in printed.stdout


def _outside_the_game(output: str) -> list[str]:
    """The lines printed before the full screen and after it (the end screen), uncoloured."""
    before, _, rest = output.partition("\x1b[?1049h")
    after = rest.rpartition("\x1b[?1049l")[2]
    return [ANSI.sub("", line) for line in (before + after).split("\r\n")]


def test_a_whole_game_at_80x24_fits_the_terminal_in_every_frame(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client(
        "play",
        "--server",
        server.address,
        "--name",
        "Small",
        "--turn-seconds",
        "600",
        rows=24,
        columns=80,
    )
    client.play(decisions=4)  # into round 2: round 1's conflict was fought
    client.type("\t")
    shown = client.next_frame(lambda frame: "The last conflict" in frame.text)
    assert re.search(r"Conflict of round 1: Eagle \d+ vs Rose \d+: ", shown.text), shown.text
    assert "Points: " in shown.text and "Tab: back to the board" in shown.text
    client.type("\t")
    client.next_frame(lambda frame: "The last conflict" not in frame.text and "#11 " in frame.text)
    decisions = client.play_to_the_end()
    assert client.finish() == 0
    assert decisions >= 1 + 2 * 2  # a first estate, then a pick and a supply each round
    frames = client.frames
    assert all(len(frame.lines) == 24 for frame in frames)
    cut = [frame.text for frame in frames if "…" in frame.text]
    assert not cut, cut[0]
    # A move on its way is not "your turn" again: the screen says it is in.
    assert not [frame.prompt for frame in frames if frame.prompt.startswith("Waiting: your")]
    _check_whole_game(frames, client.output, server.address)
    # The seat the lobby gave is the mark the screen shows for "you".
    seat = re.search(r"you sit at seat (\d) \(P(\d) on the screen\)", client.said)
    assert seat is not None and seat.group(1) == seat.group(2), client.said[:500]
    you = re.compile(rf"^[▶ ]{{0,2}}P{seat.group(1)} +Small \(you\)", re.M)
    assert all(you.search(frame.text) for frame in frames[-5:]), frames[-1].text
    printed = _outside_the_game(client.output)
    assert all(len(line) <= 80 for line in printed), [line for line in printed if len(line) > 80]
    end = ANSI.sub("", client.output.rpartition("\x1b[?1049l")[2]).strip("\r\n").split("\r\n")
    assert len(end) < 24 and end[0].startswith("Game over after round"), end


def test_a_whole_game_at_120x40_redrawn_at_once_when_the_terminal_is_resized(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client(
        "play",
        "--server",
        server.address,
        "--name",
        "Roomy",
        "--turn-seconds",
        "600",
        rows=40,
        columns=120,
    )
    client.play(decisions=3)
    client.resize(24, 80)
    client.play(decisions=2)
    assert all(len(frame.lines) == 24 for frame in client.frames[-3:])
    client.resize(40, 120)
    client.play_to_the_end()
    assert client.finish() == 0
    assert len(client.frames[-1].lines) == 40
    assert any(len(frame.lines) == 24 for frame in client.frames)
    _check_whole_game(client.frames, client.output, server.address)


class Helper:
    """A person at the client's table, played by the test over gRPC: Hana moves only when told."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.game = game_pb2_grpc.GameServiceStub(self.channel)
        session = self.lobby.RegisterGuest(
            lobby_pb2.RegisterGuestRequest(display_name="Hana")
        ).session
        self.auth = (("authorization", f"Bearer {session.token}"),)
        table = self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=4, auto_start=True, turn_seconds=600),
            metadata=self.auth,
        ).table
        for _ in range(2):
            table = self.lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
                metadata=self.auth,
            ).table
        self.table_id = table.table_id
        self.seat_auth: tuple[tuple[str, str], ...] = ()
        self.game_id = ""

    def sit(self) -> None:
        seat = self.lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=self.table_id), metadata=self.auth
        )
        self.seat_auth = (("authorization", f"Bearer {seat.token}"),)
        self.game_id = seat.game_id

    def view(self) -> game_pb2.GetViewResponse:
        return self.game.GetView(
            game_pb2.GetViewRequest(game_id=self.game_id), metadata=self.seat_auth
        )

    def move(self) -> None:
        """Hana's first legal command, if she must decide now."""
        view = self.view().view
        if view.legal:
            self.game.SubmitCommand(
                game_pb2.SubmitCommandRequest(
                    game_id=self.game_id,
                    expected_version=view.version,
                    command_id=f"hana-{view.version}",
                    command=view.legal[0],
                ),
                metadata=self.seat_auth,
            )


@pytest.fixture
def hana(server: ServerProcess) -> Iterator[Helper]:
    helper = Helper(server.address)
    yield helper
    helper.channel.close()


def test_keys_typed_while_others_decide_are_ignored_and_the_screen_says_so(
    server: ServerProcess, spawn_client: SpawnClient, hana: Helper
) -> None:
    client = spawn_client(
        "play", "--server", server.address, "--name", "Ivo", "--join", hana.table_id
    )
    frame = client.next_frame(lambda f: "Hana must" in f.status or f.asks() is not None)
    hana.sit()
    if frame.asks() is not None:  # Ivo places his first estate before Hana
        client.answer(frame)
        frame = client.next_frame(lambda f: "Hana must" in f.status)
    # Hana has not moved: the game waits for her, and her clock shows on Ivo's screen.
    assert re.search(r"\d+:\d\d left", frame.status), frame.status
    client.type("1\r")
    ignored = client.next_frame(lambda f: "Ignored" in f.prompt)
    assert "it is not your turn" in ignored.prompt
    while True:  # Hana decides until the game asks Ivo
        hana.move()
        frame = client.next_frame(lambda f: f.asks() is not None or "Hana must" in f.status)
        if frame.asks() is not None:
            break
    assert frame.asks() == CHOICE
    assert "Ignored what you typed before your turn ('1⏎')" in frame.text
    # The question is open: the "1" typed before it was not taken as Ivo's answer.
    waiting = hana.view().view
    ivo = next(seat.seat for seat in waiting.seats if seat.name == "Ivo")
    assert ivo in waiting.turn.seats
    client.child.sendintr()
    client.expect("You left the game")
    assert client.finish() == 130


def test_the_table_chat_shows_at_80x24_and_a_say_line_writes_to_it(
    server: ServerProcess, spawn_client: SpawnClient, hana: Helper
) -> None:
    client = spawn_client(
        "play", "--server", server.address, "--name", "Ivo", "--join", hana.table_id,
        rows=24, columns=80,
    )  # fmt: skip
    client.next_frame(lambda f: "Hana must" in f.status or f.asks() is not None)
    hana.sit()
    chat = chat_pb2_grpc.ChatServiceStub(hana.channel)
    chat.SendChatMessage(
        chat_pb2.SendChatMessageRequest(table_id=hana.table_id, text="good luck, Ivo"),
        metadata=hana.auth,
    )
    shown = client.next_frame(lambda f: "Hana: good luck, Ivo" in f.text)
    assert len(shown.lines) == 24 and "Your hand:" in shown.text
    # Typed at any time: the answer to a question, or nothing asked, a "/" line is chat.
    client.type("/say thanks, you too\r")
    client.next_frame(lambda f: "Ivo: thanks, you too" in f.text)
    said = chat.WatchChat(
        chat_pb2.WatchChatRequest(table_id=hana.table_id, backlog=10), metadata=hana.auth
    )
    texts = []
    for response in said:
        texts.append((response.message.display_name, response.message.text))
        if len(texts) == 2:
            break
    said.cancel()
    assert texts == [("Hana", "good luck, Ivo"), ("Ivo", "thanks, you too")]
    client.type("/shout hi\r")
    client.next_frame(lambda f: "/shout: type /say TEXT" in f.text)
    client.child.sendintr()
    client.expect("You left the game")
    assert client.finish() == 130


def test_a_client_killed_mid_game_is_resumed_by_another_with_the_stored_credential(
    server: ServerProcess, spawn_client: SpawnClient, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    first = spawn_client(
        "play",
        "--server",
        server.address,
        "--name",
        "Phoenix",
        "--turn-seconds",
        "600",
        rows=40,
        columns=120,
        config=config,
    )
    first.play(decisions=5)  # the sixth question is on the screen
    game_id = _game_id(first.output)
    os.kill(first.child.pid, signal.SIGKILL)
    first.child.expect(pexpect.EOF)
    first.child.close()
    assert first.child.signalstatus == signal.SIGKILL

    stored = config / "verrater" / "credentials.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert json.loads(stored.read_text("utf-8"))["servers"][server.address]["name"] == "Phoenix"
    second = spawn_client("play", "--server", server.address, rows=40, columns=120, config=config)
    second.expect("Welcome back, Phoenix")
    second.expect(rf"1\. Resume game {game_id}: round \d+, your turn \(\d+:\d\d left\)")
    second.expect(r"Your choice \(1-2")
    second.type("1\r")
    second.expect(f"Back to game {game_id}")
    assert second.play_to_the_end() >= 3
    assert second.finish() == 0
    assert f"verrater audit {game_id} --server {server.address}" in second.output


@pytest.fixture(scope="module")
def short_tokens(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose tokens live 8 seconds."""
    process = ServerProcess(tmp_path_factory.mktemp("short"), env={"VERRATER_TOKEN_TTL": "8"})
    process.start()
    try:
        yield process
    finally:
        process.stop()


def test_tokens_that_expire_every_few_seconds_are_renewed_all_game_long(
    short_tokens: ServerProcess, spawn_client: SpawnClient
) -> None:
    client = spawn_client(
        "play",
        "--server",
        short_tokens.address,
        "--name",
        "Renewer",
        "--turn-seconds",
        "10",
        rows=24,
        columns=80,
    )
    client.play(decisions=2)
    # The third question is left to the turn timer: 10 s, longer than a token lives. The bot's
    # decision reaches the screen only through a Watch stream opened again with a new token.
    client.next_frame(lambda frame: "Your turn timer ran out: a bot decided for you" in frame.text)
    client.play_to_the_end()
    assert client.finish() == 0
    assert "the token has expired" not in client.output


def test_make_play_starts_a_game_as_the_readme_says(
    server: ServerProcess, spawn_client: SpawnClient
) -> None:
    up_to_date = subprocess.run(
        ["make", "--question", ".venv/bin/verrater"], cwd=ROOT, check=False
    ).returncode
    if up_to_date != 0:
        pytest.skip("make would (re)install .venv first; `make test` does that before pytest")
    client = spawn_client(
        env={"VERRATER_SERVER": server.address}, command=["make", "--no-print-directory", "play"]
    )
    client.expect("Welcome, ")
    client.next_frame(lambda frame: frame.asks() == CHOICE)
    client.child.sendintr()  # to make and the client alike, as a terminal's Ctrl-C is
    client.child.expect(pexpect.EOF, timeout=30)
    client.child.close()
    assert f"You left the game. Your seat waits for you: run `{RUN} play --server" in client.said
    assert "make: ***" not in client.output, client.output[-500:]
