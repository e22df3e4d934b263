"""Limits: rate per player, tables per player, message size, list and name sizes."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import (
    commands_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)
from services.bootstrap import Backend, start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import Role, bearer

SECRET = "limits-test-secret-at-least-32-bytes-long"


@pytest.fixture
async def limited() -> AsyncIterator[tuple[Backend, Config, aio.Channel]]:
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, command_rate=2, lobby_rate=1)
    backend = await start_backend(
        config, event_store=InMemoryEventStore(), lobby_store=InMemoryLobbyStore()
    )
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}")
    try:
        yield backend, config, channel
    finally:
        await channel.close()
        await backend.stop(None)


async def _codes(calls: list[object]) -> list[grpc.StatusCode]:
    codes = []
    for call in calls:
        try:
            await call  # type: ignore[misc]
            codes.append(grpc.StatusCode.OK)
        except grpc.aio.AioRpcError as error:
            codes.append(error.code())
            if error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED:
                details = error.details() or ""
                assert "retry in" in details or "you already host 3 tables" in details
    return codes


async def test_a_player_over_the_command_rate_gets_resource_exhausted_and_nothing_changes(
    limited: tuple[Backend, Config, aio.Channel],
) -> None:
    backend, config, channel = limited
    game = game_pb2_grpc.GameServiceStub(channel)
    service = bearer(config.issuer.mint("lobby", role=Role.SERVICE))
    created = await game.CreateGame(game_pb2.CreateGameRequest(players=4), metadata=service)
    player = bearer(config.issuer.mint("hasty", game_id=created.game_id, seat=0))
    request = game_pb2.SubmitCommandRequest(
        game_id=created.game_id,
        expected_version=created.version,
        command_id="x",
        command=commands_pb2.Command(pass_build=commands_pb2.PassBuild()),
    )
    codes = await _codes([game.SubmitCommand(request, metadata=player) for _ in range(8)])
    # A burst of 2 x 2 commands, then the limit; every one of them was refused by the rules
    # or the limiter, and the log did not move.
    assert codes[:4] == [grpc.StatusCode.FAILED_PRECONDITION] * 4
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes[4:]
    assert backend.game is not None
    assert await backend.game.store.version(created.game_id) == created.version


async def test_lobby_actions_are_rate_limited_and_tables_per_host_are_capped(
    limited: tuple[Backend, Config, aio.Channel],
) -> None:
    _, _, channel = limited
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    session = (
        await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Busy"))
    ).session
    host = bearer(session.token)
    create = lobby_pb2.CreateTableRequest(size=4)
    codes = await _codes([lobby.CreateTable(create, metadata=host) for _ in range(4)])
    assert codes[:3] == [grpc.StatusCode.OK] * 3
    assert codes[3] == grpc.StatusCode.RESOURCE_EXHAUSTED  # a fourth table: the host cap
    codes = await _codes([lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=host)])
    assert codes == [grpc.StatusCode.OK]  # reading is not an action
    more = await _codes(
        [
            lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id="missing"), metadata=host)
            for _ in range(4)
        ]
    )
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in more


async def test_a_seat_token_refused_by_the_lobby_spends_nothing_of_its_players_lobby_rate(
    limited: tuple[Backend, Config, aio.Channel],
) -> None:
    """Whoever holds a seat token (a bot playing that seat for the player) is refused every
    lobby call; those refusals must not use up the player's own lobby budget."""
    _, config, channel = limited
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    session = (
        await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="Lends A Seat"))
    ).session
    seat = bearer(config.issuer.mint(session.player_id, game_id="g1", seat=0))
    refusals = []
    for _ in range(16):  # four times the burst (4 at lobby_rate=1)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=seat)
        refusals.append(refused.value.code())
    assert set(refusals) == {grpc.StatusCode.PERMISSION_DENIED}  # PLAYER_TOKEN_REQUIRED each
    own = bearer(session.token)
    codes = await _codes(
        [lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=own) for _ in range(4)]
    )
    assert codes == [grpc.StatusCode.OK] * 4, "the player's whole burst is still theirs"


async def test_oversized_and_overlong_requests_are_refused(
    limited: tuple[Backend, Config, aio.Channel],
) -> None:
    _, config, channel = limited
    game = game_pb2_grpc.GameServiceStub(channel)
    token = bearer(config.issuer.mint("big", game_id="g1", seat=0))
    huge = game_pb2.SubmitCommandRequest(game_id="g1", command_id="x" * (2 * 1024 * 1024))
    with pytest.raises(grpc.aio.AioRpcError) as too_big:
        await game.SubmitCommand(huge, metadata=token)
    assert too_big.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    many_cards = game_pb2.SubmitCommandRequest(
        game_id="g1",
        command_id="y",
        command=commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=[2] * 1000)),
    )
    with pytest.raises(grpc.aio.AioRpcError) as too_many:
        await game.SubmitCommand(many_cards, metadata=token)
    assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
