"""`verrater serve` as a user runs it: a real process, signals, the README's own commands."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import (
    commands_pb2,
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)
from services.bench.common import free_port, wait_until_serving
from services.codec import decode_record
from services.eventstore import RedisEventStore
from services.rpc import DEVELOPMENT_SECRET, Role, TokenIssuer, bearer
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parent.parent
SECRET = "serve-test-secret-at-least-32-bytes-long"


@contextmanager
def process(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    child = subprocess.Popen(
        args,
        cwd=ROOT,
        # The web door's own free port, unless the test names one (8080 may be taken).
        env={**os.environ, "VERRATER_WEB_BIND": f"127.0.0.1:{free_port()}", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # signals reach make and the server it runs
    )
    try:
        yield child
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def terminate(child: subprocess.Popen[bytes], timeout: float = 30) -> tuple[int, str]:
    """SIGTERM the server (not make around it, which would report the signal as an error)."""
    children = subprocess.run(
        ["pgrep", "-P", str(child.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in children or [str(child.pid)]:
        os.kill(int(pid), signal.SIGTERM)
    output, _ = child.communicate(timeout=timeout)
    return child.returncode, output.decode(errors="replace")


async def register_and_open_table(port: int) -> lobby_pb2.Table:
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        await wait_until_serving(channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        session = (
            await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Newcomer"))
        ).session
        table: lobby_pb2.Table = (
            await lobby.CreateTable(
                lobby_pb2.CreateTableRequest(size=4), metadata=bearer(session.token)
            )
        ).table
        return table


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the quick start has a sh code block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_readme_quick_start_is_make_run_make_play_and_make_test() -> None:
    # `make play` is run as written by tests/client/test_screen.py.
    assert quick_start_commands() == ["make run", "make play", "make test"]


def test_readme_run_command_serves_the_whole_backend_and_stops_on_sigterm() -> None:
    run_command = quick_start_commands()[0]
    port, web_port = free_port(), free_port()
    env = {"VERRATER_BIND": f"127.0.0.1:{port}", "VERRATER_WEB_BIND": f"127.0.0.1:{web_port}"}
    with process(run_command.split(), env) as child:
        table = asyncio.run(register_and_open_table(port))
        assert table.status == lobby_pb2.TABLE_STATUS_OPEN
        # The browser's door and the page, from the package alone.
        with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/", timeout=10) as page:
            assert b"<title>Verr" in page.read()
        code, output = terminate(child)
    assert code == 0, output
    assert "shutting down" in output


def test_distributed_mode_refuses_the_development_secret(redis_url: str) -> None:
    env = {
        "REDIS_URL": redis_url,
        "VERRATER_BIND": f"127.0.0.1:{free_port()}",
        "VERRATER_TOKEN_SECRET": "",  # unset
    }
    with process([sys.executable, "-m", "services.cli", "serve", "game"], env) as child:
        output, _ = child.communicate(timeout=30)
    assert child.returncode != 0
    assert b"VERRATER_TOKEN_SECRET" in output


async def _hammer(port: int, issuer: TokenIssuer, acknowledged: dict[str, set[str]]) -> None:
    """Play games as fast as possible until the server goes away, noting acknowledged ids."""
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        game = game_pb2_grpc.GameServiceStub(channel)
        service = bearer(issuer.mint("lobby", role=Role.SERVICE))
        try:
            while True:
                created = await game.CreateGame(
                    game_pb2.CreateGameRequest(players=4), metadata=service
                )
                game_id = created.game_id
                acknowledged[game_id] = set()
                while True:
                    view = (
                        await game.GetView(
                            game_pb2.GetViewRequest(game_id=game_id), metadata=service
                        )
                    ).view
                    if not view.turn.seats:
                        break
                    seat = view.turn.seats[0]
                    token = bearer(issuer.mint(f"p{seat}", game_id=game_id, seat=seat))
                    mine = (
                        await game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=token)
                    ).view
                    command_id = uuid.uuid4().hex
                    await game.SubmitCommand(
                        game_pb2.SubmitCommandRequest(
                            game_id=game_id,
                            expected_version=mine.version,
                            command_id=command_id,
                            command=mine.legal[0],
                        ),
                        metadata=token,
                    )
                    acknowledged[game_id].add(command_id)
        except grpc.aio.AioRpcError as error:
            # Shutting down: the server refuses new calls (UNAVAILABLE) or drops a call that
            # arrived as it closed (CANCELLED; a client retries it with the same command id).
            assert error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), error


def test_sigterm_finishes_in_flight_commands_and_loses_no_event(fresh_redis_url: str) -> None:
    port = free_port()
    issuer = TokenIssuer(SECRET)
    env = {
        "REDIS_URL": fresh_redis_url,
        "VERRATER_TOKEN_SECRET": SECRET,
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_COMMAND_RATE": "0",
    }
    with process([sys.executable, "-m", "services.cli", "serve", "game"], env) as child:

        async def scenario() -> dict[str, set[str]]:
            async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                await wait_until_serving(channel)
            acknowledged: dict[str, set[str]] = {}
            players = [asyncio.create_task(_hammer(port, issuer, acknowledged)) for _ in range(3)]
            # The signal comes in full play: once commands got in, with more under way.
            await wait_until(
                lambda: sum(map(len, acknowledged.values())) > 10, "commands got in", 60
            )
            os.killpg(child.pid, signal.SIGTERM)
            await asyncio.gather(*players)
            return acknowledged

        acknowledged = asyncio.run(scenario())
        child.wait(timeout=30)
        assert child.returncode == 0

    async def logged_command_ids(game_id: str) -> set[str]:
        store = RedisEventStore.from_url(fresh_redis_url)
        try:
            stored = await store.read(game_id)
        finally:
            await store.close()
        return {decode_record(item.payload).command_id for item in stored} - {""}

    assert sum(map(len, acknowledged.values())) > 10, "commands got in before the signal"
    for game_id, ids in acknowledged.items():
        assert ids <= asyncio.run(logged_command_ids(game_id)), game_id


def test_metrics_and_structured_logs_carry_context_and_never_a_token() -> None:
    port, metrics_port = free_port(), free_port()
    env = {
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_METRICS_PORT": str(metrics_port),
        "VERRATER_LOG_FORMAT": "json",
    }
    tokens: list[str] = []

    async def scenario() -> str:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await wait_until_serving(channel)
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            game = game_pb2_grpc.GameServiceStub(channel)
            session = (
                await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Ops"))
            ).session
            tokens.append(session.token)
            host = bearer(session.token)
            table = (
                await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
            ).table
            for _ in range(2):
                await lobby.AddBot(
                    lobby_pb2.AddBotRequest(
                        table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY
                    ),
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
            tokens.append(seat.token)
            wrong = game_pb2.SubmitCommandRequest(
                game_id=table.game_id,
                expected_version=1,
                command_id="ops-wrong-1",
                command=commands_pb2.Command(pass_build=commands_pb2.PassBuild()),
            )
            try:
                await game.SubmitCommand(
                    wrong, metadata=(*bearer(seat.token), ("x-trace-id", "trace-ops-1"))
                )
            except grpc.aio.AioRpcError as error:
                assert error.code() in (
                    grpc.StatusCode.ABORTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                )
            return table.game_id

    with process([sys.executable, "-m", "services.cli", "serve"], env) as child:
        game_id = asyncio.run(scenario())
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics") as page:
            metrics = page.read().decode()
        code, output = terminate(child)
    assert code == 0, output
    assert 'verrater_commands_total{outcome="aborted",type="pass_build"}' in metrics or (
        'verrater_commands_total{outcome="failed_precondition",type="pass_build"}' in metrics
    )
    assert "verrater_command_seconds_bucket" in metrics
    assert "verrater_active_games" in metrics
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    refused = [line for line in lines if line.get("event") == "refused"]
    assert refused, output
    assert refused[0]["game_id"] == game_id
    assert refused[0]["command_id"] == "ops-wrong-1"
    assert refused[0]["trace_id"] == "trace-ops-1"
    assert "seat" in refused[0]
    assert refused[0]["reason"] == "STALE_VERSION"
    for token in tokens:
        assert token not in output
        assert token.split(".")[2] not in output  # not even the signature


def test_a_configured_secret_shorter_than_32_bytes_is_refused() -> None:
    env = {"VERRATER_BIND": f"127.0.0.1:{free_port()}", "VERRATER_TOKEN_SECRET": "too-short"}
    with process([sys.executable, "-m", "services.cli", "serve"], env) as child:
        output, _ = child.communicate(timeout=30)
    assert child.returncode != 0
    assert b"at least 32" in output


def test_embedded_mode_off_loopback_never_accepts_the_public_development_secret() -> None:
    port = free_port()
    # An empty variable is an unset one.
    env = {"VERRATER_BIND": f"0.0.0.0:{port}", "VERRATER_TOKEN_SECRET": ""}

    async def scenario() -> tuple[grpc.StatusCode, grpc.StatusCode]:
        async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await wait_until_serving(channel)
            lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
            game = game_pb2_grpc.GameServiceStub(channel)
            forged = TokenIssuer(DEVELOPMENT_SECRET).mint("lobby", role=Role.SERVICE)
            try:
                await game.CreateGame(
                    game_pb2.CreateGameRequest(players=4), metadata=bearer(forged)
                )
                forged_code = grpc.StatusCode.OK
            except grpc.aio.AioRpcError as error:
                forged_code = error.code()
            session = (
                await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Remote"))
            ).session
            try:
                await lobby.CreateTable(
                    lobby_pb2.CreateTableRequest(size=4), metadata=bearer(session.token)
                )
                issued_code = grpc.StatusCode.OK
            except grpc.aio.AioRpcError as error:
                issued_code = error.code()
            return forged_code, issued_code

    with process([sys.executable, "-m", "services.cli", "serve"], env) as child:
        forged_code, issued_code = asyncio.run(scenario())
        code, output = terminate(child)
    assert code == 0, output
    assert forged_code is grpc.StatusCode.UNAUTHENTICATED
    assert issued_code is grpc.StatusCode.OK  # the server's own tokens work
    assert "random secret" in output


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["serve", "lobby"], {}, "set VERRATER_GAME_ADDR"),
        (["serve", "game"], {"VERRATER_BOTS": "celry"}, "VERRATER_BOTS must be one of"),
        (["serve", "game"], {}, "bots on Celery workers need VERRATER_BROKER_URL"),
        (["worker"], {}, "set VERRATER_BROKER_URL"),
        (["serve"], {"VERRATER_GRACE_SECONDS": "soon"}, "VERRATER_GRACE_SECONDS must be a number"),
        (["serve"], {"VERRATER_METRICS_PORT": "9.5"}, "VERRATER_METRICS_PORT must be a whole"),
    ],
)
def test_a_setting_that_cannot_work_is_named_without_a_traceback(
    args: list[str], env: dict[str, str], message: str
) -> None:
    """A process built by hand and missing a variable says which one and exits with 2, before
    it listens anywhere (a worker: before it takes its broker's Redis for granted)."""
    unset = ("REDIS_URL", "VERRATER_BROKER_URL", "VERRATER_GAME_ADDR", "VERRATER_BOTS")
    base = {name: value for name, value in os.environ.items() if name not in unset}
    result = subprocess.run(
        [sys.executable, "-m", "services.cli", *args],
        check=False,
        cwd=ROOT,
        env={
            **base,
            "VERRATER_BIND": f"127.0.0.1:{free_port()}",
            "VERRATER_TOKEN_SECRET": SECRET,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("verrater: ") and message in result.stderr
    assert "Traceback" not in result.stderr


@contextmanager
def taken_port() -> Iterator[int]:
    """A loopback port some other program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


#: (command, the variables naming the taken address (PORT: its port), what must be said)
TAKEN = [
    (["serve"], {"VERRATER_WEB_BIND": "127.0.0.1:PORT"}, ["--web-bind", "VERRATER_WEB_BIND"]),
    (["serve"], {"VERRATER_BIND": "127.0.0.1:PORT"}, ["--bind", "VERRATER_BIND"]),
    (["serve", "--web-bind", "127.0.0.1:PORT"], {}, ["--web-bind ''"]),
    (["serve", "game"], {"VERRATER_BIND": "127.0.0.1:PORT"}, ["--bind", "VERRATER_BIND"]),
    (["serve"], {"VERRATER_METRICS_PORT": "PORT"}, ["VERRATER_METRICS_PORT"]),
    (["serve", "web"], {"VERRATER_WEB_BIND": "127.0.0.1:PORT"}, ["--web-bind"]),
    (["worker"], {"VERRATER_METRICS_PORT": "PORT"}, ["VERRATER_METRICS_PORT"]),
]


@pytest.mark.parametrize(
    ("args", "env", "named"),
    TAKEN,
    ids=["door", "grpc", "door-flag", "game", "metrics", "door-alone", "worker-metrics"],
)
def test_an_address_in_use_is_one_line_naming_it_and_what_moves_it(
    args: list[str], env: dict[str, str], named: list[str]
) -> None:
    """Another program on the port (say 8080, the browser's door): every command that listens
    says so in one line with the address and the flag or variable to change, and exits 2."""
    base = {name: value for name, value in os.environ.items() if not name.startswith("VERRATER")}
    with taken_port() as port:
        result = subprocess.run(
            [sys.executable, "-m", "services.cli", *(a.replace("PORT", str(port)) for a in args)],
            check=False,
            cwd=ROOT,
            env={
                **base,
                "VERRATER_BIND": f"127.0.0.1:{free_port()}",
                "VERRATER_WEB_BIND": f"127.0.0.1:{free_port()}",
                "VERRATER_TOKEN_SECRET": SECRET,
                "VERRATER_BOTS": "off",
                "VERRATER_BROKER_URL": "redis://127.0.0.1:9/0",  # a worker never reaches it
                "VERRATER_LOBBY_ADDR": "127.0.0.1:9",
                "VERRATER_GAME_ADDR": "127.0.0.1:9",
                "VERRATER_AI_ADDR": "127.0.0.1:9",
                **{name: value.replace("PORT", str(port)) for name, value in env.items()},
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("verrater: ") and f":{port} " in lines[0]
    assert "in use" in lines[0]
    for name in named:
        assert name in lines[0]


def test_a_worker_writes_json_log_lines_only(redis_url: str) -> None:
    """With VERRATER_LOG_FORMAT=json every line a worker writes on stderr is a JSON object (a
    library's warning included), and Celery's plain-text banner is not printed."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "VERRATER_BOT_QUEUE": f"verrater.test.{uuid.uuid4().hex}",
        "VERRATER_TOKEN_SECRET": SECRET,
        "VERRATER_LOG_FORMAT": "json",
    }
    env.pop("VERRATER_BROKER_URL", None)
    worker = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "worker", "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        lines: list[str] = []
        assert worker.stderr is not None
        for raw in worker.stderr:  # until the worker says it is ready
            lines.append(raw.decode())
            if "ready" in lines[-1]:
                break
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        out, err = worker.communicate(timeout=30)
    lines += err.decode().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert any("ready" in record["event"] for record in records)
    assert all({"event", "level", "timestamp"} <= set(record) for record in records)
    assert b"[queues]" not in out  # the banner
