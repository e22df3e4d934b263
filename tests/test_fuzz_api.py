"""Property-based fuzzing of every RPC against a real `verrater serve` process.

Random and adversarial requests (wrong seats, other players' tokens, huge lists, negative and
out-of-range numbers, unknown enum values, replayed command ids, expired or forged tokens)
never get INTERNAL or UNKNOWN, never change a game when refused, and never show a seat's hidden
cards to anyone else.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.api.verrater.v1 import (
    ai_pb2,
    ai_pb2_grpc,
    commands_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    view_pb2,
)
from services.bench.common import free_port
from services.rpc import Role, TokenIssuer, bearer

ROOT = Path(__file__).resolve().parent.parent
SECRET = "fuzz-test-secret-at-least-32-bytes-long!"
NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}


@dataclass
class Server:
    channel: grpc.Channel
    game: game_pb2_grpc.GameServiceStub
    lobby: lobby_pb2_grpc.LobbyServiceStub
    ai: ai_pb2_grpc.AiServiceStub
    issuer: TokenIssuer
    game_id: str


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    port = free_port()
    env = {
        **os.environ,
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_TOKEN_SECRET": SECRET,
        "VERRATER_COMMAND_RATE": "0",
        "VERRATER_LOBBY_RATE": "0",
        "VERRATER_LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        grpc.channel_ready_future(channel).result(timeout=30)
        issuer = TokenIssuer(SECRET)
        game = game_pb2_grpc.GameServiceStub(channel)
        service = bearer(issuer.mint("lobby", role=Role.SERVICE))
        created = game.CreateGame(game_pb2.CreateGameRequest(players=4), metadata=service)
        yield Server(
            channel,
            game,
            lobby_pb2_grpc.LobbyServiceStub(channel),
            ai_pb2_grpc.AiServiceStub(channel),
            issuer,
            created.game_id,
        )
    finally:
        channel.close()
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)


numbers = st.one_of(
    st.integers(min_value=-3, max_value=15),
    st.integers(min_value=-(2**31), max_value=2**31 - 1),
)
enum_values = st.integers(min_value=-5, max_value=12)
card_lists = st.lists(numbers, max_size=40)


@st.composite
def commands(draw: st.DrawFn) -> commands_pb2.Command:
    kind = draw(st.sampled_from([
        "none", "place_first_estate", "choose_conflict", "pick_action_card", "play_supply",
        "place_building", "flip_building", "move_building", "pass_build", "discard_cards",
    ]))  # fmt: skip
    command = commands_pb2.Command()
    if kind == "place_first_estate":
        command.place_first_estate.position = draw(numbers)
    elif kind == "choose_conflict":
        command.choose_conflict.first = draw(numbers)
        command.choose_conflict.second = draw(numbers)
    elif kind == "pick_action_card":
        command.pick_action_card.card = draw(enum_values)  # type: ignore[assignment]
    elif kind == "play_supply":
        command.play_supply.cards.extend(draw(card_lists))
    elif kind == "place_building":
        command.place_building.position = draw(numbers)
        command.place_building.side = draw(enum_values)  # type: ignore[assignment]
    elif kind == "flip_building":
        command.flip_building.position = draw(numbers)
    elif kind == "move_building":
        command.move_building.origin = draw(numbers)
        command.move_building.destination = draw(numbers)
        command.move_building.side = draw(enum_values)  # type: ignore[assignment]
    elif kind == "pass_build":
        command.pass_build.SetInParent()
    elif kind == "discard_cards":
        command.discard_cards.cards.extend(draw(card_lists))
    return command


@st.composite
def callers(draw: st.DrawFn, game_id: str, issuer: TokenIssuer) -> tuple[tuple[str, str], ...]:
    """Metadata from every kind of caller, honest or not."""
    kind = draw(st.sampled_from(
        ["seat", "other-game", "spectator", "expired", "forged", "garbage", "none", "service"]
    ))  # fmt: skip
    seat = draw(st.integers(min_value=-1, max_value=5))
    if kind == "seat":
        return bearer(issuer.mint(f"p{seat}", game_id=game_id, seat=seat))
    if kind == "other-game":
        return bearer(issuer.mint("p", game_id="another-game", seat=0))
    if kind == "spectator":
        return bearer(issuer.mint("watcher"))
    if kind == "expired":
        return bearer(issuer.mint("p", game_id=game_id, seat=0, ttl_seconds=-60))
    if kind == "forged":
        forger = TokenIssuer("not-the-secret-but-also-32-bytes-long!!")
        return bearer(forger.mint("p", game_id=game_id, seat=0))
    if kind == "garbage":  # anything a header may carry (gRPC refuses the rest client-side)
        header = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E))
        return (("authorization", draw(header.filter(lambda v: v == v.strip()))),)
    if kind == "service":
        return bearer(issuer.mint("lobby", role=Role.SERVICE, game_id=game_id, seat=seat))
    return ()


def _call(method: object, request: object, metadata: object) -> tuple[grpc.StatusCode, object]:
    try:
        return grpc.StatusCode.OK, method(request, metadata=metadata, timeout=10)  # type: ignore[operator]
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        assert code not in NEVER, error
        assert error.details(), error  # type: ignore[attr-defined]
        return code, None


def _version(server: Server) -> int:
    spectator = bearer(server.issuer.mint("watcher"))
    view: view_pb2.PlayerView = server.game.GetView(
        game_pb2.GetViewRequest(game_id=server.game_id), metadata=spectator
    ).view
    return view.version


def _hands(server: Server) -> dict[int, list[int]]:
    hands = {}
    for seat in range(4):
        token = bearer(server.issuer.mint(f"p{seat}", game_id=server.game_id, seat=seat))
        view = server.game.GetView(
            game_pb2.GetViewRequest(game_id=server.game_id), metadata=token
        ).view
        hands[seat] = list(view.hand.cards)
    return hands


def _check_view(view: view_pb2.PlayerView, seat: int | None, hands: dict[int, list[int]]) -> None:
    if seat is None or seat not in hands:
        assert not view.HasField("hand")
        assert not view.legal
    else:
        assert list(view.hand.cards) == hands[seat]


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(data=st.data())
def test_submit_command_never_fails_inside_and_refusals_change_nothing(
    server: Server, data: st.DataObject
) -> None:
    metadata = data.draw(callers(server.game_id, server.issuer))
    request = game_pb2.SubmitCommandRequest(
        game_id=data.draw(st.sampled_from([server.game_id, "", "nope", "x" * 70, "bad id!"])),
        expected_version=data.draw(st.sampled_from([0, -1, 1, 10**12]) | st.just(_version(server))),
        command_id=data.draw(st.sampled_from(["", "replayed-id", "x" * 200]) | st.uuids().map(str)),
        command=data.draw(commands()),
        turn_timer_expired=data.draw(st.booleans()),
    )
    before = _version(server)
    code, response = _call(server.game.SubmitCommand, request, metadata)
    if code is not grpc.StatusCode.OK:
        assert _version(server) == before
    else:
        assert isinstance(response, game_pb2.SubmitCommandResponse)
        assert response.version >= before
        seat = response.view.seat if response.view.HasField("seat") else None
        _check_view(response.view, seat, _hands(server))


@FUZZ
@given(data=st.data())
def test_views_and_hints_show_each_caller_only_what_they_may_see(
    server: Server, data: st.DataObject
) -> None:
    metadata = data.draw(callers(server.game_id, server.issuer))
    hands = _hands(server)
    game_id = data.draw(st.sampled_from([server.game_id, "nope", ""]))
    code, response = _call(server.game.GetView, game_pb2.GetViewRequest(game_id=game_id), metadata)
    if code is grpc.StatusCode.OK:
        assert isinstance(response, game_pb2.GetViewResponse)
        view = response.view
        seat = view.seat if view.HasField("seat") else None
        _check_view(view, seat, hands)
    level = data.draw(enum_values)
    _call(
        server.ai.SuggestMove,
        ai_pb2.SuggestMoveRequest(game_id=game_id, level=level),  # type: ignore[arg-type]
        metadata,
    )
    _call(server.game.GetLog, game_pb2.GetLogRequest(game_id=game_id), metadata)
    _call(
        server.game.GetRuleset,
        game_pb2.GetRulesetRequest(
            game_id=data.draw(st.sampled_from(["", game_id])), players=data.draw(numbers)
        ),
        metadata,
    )


@FUZZ
@given(data=st.data())
def test_lobby_calls_never_fail_inside(server: Server, data: st.DataObject) -> None:
    name = data.draw(st.text(max_size=40))
    code, session = _call(
        server.lobby.RegisterGuest, lobby_pb2.RegisterGuestRequest(display_name=name), ()
    )
    metadata = (
        bearer(session.session.token)
        if code is grpc.StatusCode.OK
        else data.draw(callers(server.game_id, server.issuer))
    )  # type: ignore[union-attr]
    table_id = data.draw(st.sampled_from(["", "nope", "x" * 100, "bad id!"]) | st.text(max_size=8))
    request_id = data.draw(st.sampled_from(["", "again", "x" * 65, "bad id"]) | st.text(max_size=8))
    _call(
        server.lobby.CreateTable,
        lobby_pb2.CreateTableRequest(
            size=data.draw(numbers), turn_seconds=data.draw(numbers),
            private=data.draw(st.booleans()), host_sits_out=data.draw(st.booleans()),
            request_id=request_id,
        ),
        metadata,
    )  # fmt: skip
    _call(server.lobby.JoinTable, lobby_pb2.JoinTableRequest(table_id=table_id), metadata)
    _call(
        server.lobby.AddBot,
        lobby_pb2.AddBotRequest(table_id=table_id, level=data.draw(enum_values)),  # type: ignore[arg-type]
        metadata,
    )
    _call(
        server.lobby.QuickMatch,
        lobby_pb2.QuickMatchRequest(
            size=data.draw(numbers), fill_with_bots_after_seconds=data.draw(numbers),
            bot_level=data.draw(enum_values),  # type: ignore[arg-type]
        ),
        metadata,
    )  # fmt: skip
    _call(
        server.lobby.ListTables,
        lobby_pb2.ListTablesRequest(size=data.draw(numbers), limit=data.draw(numbers)),
        metadata,
    )
    _call(server.lobby.StartGame, lobby_pb2.StartGameRequest(table_id=table_id), metadata)
    _call(server.lobby.LeaveTable, lobby_pb2.LeaveTableRequest(table_id=table_id), metadata)
    _call(server.lobby.GetSeatToken, lobby_pb2.GetSeatTokenRequest(table_id=table_id), metadata)
    _call(server.lobby.ListMyGames, lobby_pb2.ListMyGamesRequest(), metadata)
    _call(
        server.lobby.RotateCredential,
        lobby_pb2.RotateCredentialRequest(request_id=request_id),
        metadata,
    )
    _call(
        server.lobby.SignIn,
        lobby_pb2.SignInRequest(
            player_id=data.draw(st.sampled_from(["", "p0", "bad id!"]) | st.text(max_size=70)),
            credential=data.draw(st.text(max_size=200)),
        ),
        (),
    )
