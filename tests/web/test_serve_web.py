"""`verrater serve web`: the door as its own process in front of services elsewhere, as the
distributed deployment runs it (docker-compose.yml, deploy/k8s/web.yaml)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
from grpc import aio

from services.api.verrater.v1 import lobby_pb2
from services.bench.common import free_port, wait_until_serving
from services.web.grpcweb import CONTENT_TYPE, frame
from tests.web.harness import web_answer

ROOT = Path(__file__).resolve().parents[2]


def serve(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", *args],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def register_through(url: str, name: str) -> bytes:
    request = urllib.request.Request(
        url + "/verrater.v1.LobbyService/RegisterGuest",
        data=frame(lobby_pb2.RegisterGuestRequest(display_name=name).SerializeToString()),
        headers={"Content-Type": CONTENT_TYPE},
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=5) as reply:
                return bytes(reply.read())
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


async def _serving(address: str) -> None:
    async with aio.insecure_channel(address) as channel:
        await wait_until_serving(channel)


def test_the_door_alone_forwards_to_the_services_by_their_addresses(tmp_path: Path) -> None:
    backend_port = free_port()
    backend = serve(
        [],
        {"VERRATER_BIND": f"127.0.0.1:{backend_port}", "VERRATER_WEB_BIND": ""},
        tmp_path / "backend.log",
    )
    web_port = free_port()
    address = f"127.0.0.1:{backend_port}"
    door = serve(
        ["web"],
        {
            "VERRATER_WEB_BIND": f"127.0.0.1:{web_port}",
            "VERRATER_LOBBY_ADDR": address,
            "VERRATER_GAME_ADDR": address,
            "VERRATER_AI_ADDR": address,
            "VERRATER_TOKEN_SECRET": "",  # the door holds none, and needs none
        },
        tmp_path / "door.log",
    )
    try:
        asyncio.run(_serving(address))  # the services first: the door forwards to them
        answer = web_answer(register_through(f"http://127.0.0.1:{web_port}", "Distant"))
        assert answer.code == grpc.StatusCode.OK, (tmp_path / "door.log").read_text()
        session = lobby_pb2.RegisterGuestResponse.FromString(answer.messages[0]).session
        assert session.display_name == "Distant" and session.credential
    finally:
        for child in (door, backend):
            child.terminate()
            child.wait(timeout=30)
    assert door.returncode == 0, (tmp_path / "door.log").read_text()


def test_the_door_alone_names_the_addresses_it_lacks(tmp_path: Path) -> None:
    door = serve(
        ["web"],
        {"VERRATER_WEB_BIND": f"127.0.0.1:{free_port()}", "VERRATER_GAME_ADDR": ""},
        tmp_path / "door.log",
    )
    assert door.wait(timeout=30) != 0
    output = (tmp_path / "door.log").read_text()
    assert "VERRATER_LOBBY_ADDR" in output and "VERRATER_GAME_ADDR" in output
