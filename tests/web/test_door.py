"""The door as HTTP: what it refuses before any call, CORS, the browser's address, the page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import grpc
import pytest

from services.api.verrater.v1 import lobby_pb2
from services.config import ALL_SERVICES, Config, secured
from services.rpc import DEVELOPMENT_SECRET
from services.web import Origins
from services.web.door import MAX_REQUEST_BYTES
from services.web.grpcweb import (
    CONTENT_TYPE,
    call_metadata,
    frame,
    grpc_timeout,
    percent_encoded,
    single_message,
)
from tests.web.harness import door_stack, web_answer

REGISTER = "/verrater.v1.LobbyService/RegisterGuest"


def register(name: str) -> bytes:
    return lobby_pb2.RegisterGuestRequest(display_name=name).SerializeToString()


async def test_an_oversized_body_is_refused_before_it_is_read(tmp_path: Path) -> None:
    async with door_stack(tmp_path) as stack:
        body = frame(b"\0" * MAX_REQUEST_BYTES)
        async with stack.http.post(
            stack.url + REGISTER, data=body, headers={"Content-Type": CONTENT_TYPE}
        ) as reply:
            answer = web_answer(await reply.read())
        assert answer.code == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_only_grpc_web_is_spoken_and_play_is_not_offered(tmp_path: Path) -> None:
    async with door_stack(tmp_path) as stack:
        async with stack.http.post(
            stack.url + REGISTER,
            data=frame(register("Plain")),
            headers={"Content-Type": "text/plain"},
        ) as reply:
            assert reply.status == 415
        play = await stack.web("/verrater.v1.GameService/Play", b"")
        assert play.code == grpc.StatusCode.UNIMPLEMENTED
        assert "WATCH_MODE_TURNS" in play.details and "SubmitCommand" in play.details
        unknown = await stack.web("/verrater.v1.GameService/Nothing", b"")
        native = await stack.native("/verrater.v1.GameService/Nothing", b"")
        assert unknown.code == native.code == grpc.StatusCode.UNIMPLEMENTED
        two_frames = frame(register("Twice")) + frame(register("Twice"))
        async with stack.http.post(
            stack.url + REGISTER, data=two_frames, headers={"Content-Type": CONTENT_TYPE}
        ) as reply:
            assert web_answer(await reply.read()).code == grpc.StatusCode.INVALID_ARGUMENT


async def test_cross_origin_calls_only_from_configured_origins(tmp_path: Path) -> None:
    async with door_stack(tmp_path, web_origins="https://play.example") as stack:
        preflight = {
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,x-grpc-web",
        }
        async with stack.http.options(stack.url + REGISTER, headers=preflight) as reply:
            assert reply.status == 204
            assert reply.headers["Access-Control-Allow-Origin"] == "https://play.example"
            assert "authorization" in reply.headers["Access-Control-Allow-Headers"]
        async with stack.http.post(
            stack.url + REGISTER,
            data=frame(register("Remote")),
            headers={"Content-Type": CONTENT_TYPE, "Origin": "https://play.example"},
        ) as reply:
            assert reply.headers["Access-Control-Allow-Origin"] == "https://play.example"
            assert "grpc-status-details-bin" in reply.headers["Access-Control-Expose-Headers"]
            assert web_answer(await reply.read()).code == grpc.StatusCode.OK
        for method in ("OPTIONS", "POST"):
            async with stack.http.request(
                method,
                stack.url + REGISTER,
                data=frame(register("Intruder")),
                headers={**preflight, "Origin": "https://evil.example"},
            ) as reply:
                assert reply.status == 403
                assert "Access-Control-Allow-Origin" not in reply.headers
        async with stack.http.post(  # the door's own page: same origin, no CORS needed
            stack.url + REGISTER,
            data=frame(register("Local")),
            headers={"Content-Type": CONTENT_TYPE, "Origin": stack.url},
        ) as reply:
            assert reply.status == 200
            assert "Access-Control-Allow-Origin" not in reply.headers


async def test_the_lobby_counts_the_browsers_address_not_the_doors(tmp_path: Path) -> None:
    """The door appends the browser's address to x-forwarded-for; a spoofed one is ignored."""
    async with door_stack(tmp_path, guest_rate=1.0) as stack:  # bursts of 4 per address
        for number in range(4):
            spoofed = {"X-Forwarded-For": f"203.0.113.{number}"}
            answer = await stack.web(REGISTER, register(f"Guest {number}"), headers=spoofed)
            assert answer.code == grpc.StatusCode.OK
        native = await stack.native(REGISTER, register("Native"))
        assert native.reasons == ("RATE_LIMITED",), "the browser on 127.0.0.1 is 127.0.0.1"


def test_origins_are_parsed_strictly() -> None:
    assert Origins.parse("https://a.example, http://localhost:5173/").admits(
        "http://localhost:5173"
    )
    assert Origins.parse("*").admits("https://anything.example")
    assert not Origins.parse("").admits("https://a.example")
    with pytest.raises(ValueError, match="not an origin"):
        Origins.parse("a.example")


def test_framing_and_metadata() -> None:
    assert single_message(frame(b"abc")) == b"abc"
    with pytest.raises(ValueError, match="compressed"):
        single_message(b"\x01" + frame(b"abc")[1:])
    assert grpc_timeout("1500m") == 1.5 and grpc_timeout("junk") is None
    assert percent_encoded("Zug ungültig 100%") == "Zug ungültig 100%25".replace("ü", "%C3%BC")
    metadata = call_metadata(
        [
            ("Authorization", "Bearer a"),
            ("authorization", "Bearer b"),
            ("Cookie", "secret=1"),
            ("X-Trace-Id", "t1"),
            ("x-blob-bin", "AAE"),
            ("Sec-Fetch-Mode", "cors"),
        ]
    )
    assert metadata == [
        ("authorization", "Bearer a"),
        ("authorization", "Bearer b"),
        ("x-trace-id", "t1"),
        ("x-blob-bin", b"\x00\x01"),
    ]


async def test_the_page_and_health(tmp_path: Path) -> None:
    async with door_stack(tmp_path) as stack:
        async with stack.http.get(stack.url + "/healthz") as reply:
            assert reply.status == 200
        async with stack.http.get(stack.url + "/") as reply:
            assert reply.status == 200
            assert "text/html" in reply.headers["Content-Type"]
            assert "default-src 'self'" in reply.headers["Content-Security-Policy"]
            page = await reply.text()
        assert "<title>Verräter Online</title>" in page
        async with stack.http.get(stack.url + "/assets/missing.js") as reply:
            assert reply.status == 404
        async with stack.http.get(stack.url + "/assets/..%2f..%2fdoor.py") as reply:
            assert reply.status in (404, 405)  # never a file outside the page's folder


def test_a_door_open_to_other_hosts_never_serves_the_development_secret() -> None:
    """The door reaches every service: embedded mode with the door off loopback signs tokens
    with a secret of its own, as it does when the gRPC port is off loopback."""
    local = Config()
    assert secured(local, ALL_SERVICES).token_secret == DEVELOPMENT_SECRET
    for config in (replace(local, web_bind="0.0.0.0:8080"), replace(local, bind="0.0.0.0:50051")):
        assert secured(config, ALL_SERVICES).token_secret != DEVELOPMENT_SECRET
    assert secured(replace(local, web_bind=""), ALL_SERVICES).token_secret == DEVELOPMENT_SECRET
