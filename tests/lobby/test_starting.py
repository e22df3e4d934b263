"""Starting a game: the table says STARTING while the game is being created, and only its host
may start it, started or not."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import grpc
import pytest

from services.api.verrater.v1 import events_pb2, lobby_pb2
from services.errors import Reason, ServiceError
from services.lobby import service as lobby_service
from services.lobby.model import GameProgress
from services.lobby.service import GameGateway
from tests.lobby.harness import Stack, guest, refused
from tests.support.waiting import take, wait_until, wait_until_true


class HeldGateway:
    """The real gateway, except that creating a game waits until the test lets it go on."""

    def __init__(self, inner: GameGateway) -> None:
        self.inner = inner
        self.creating = asyncio.Event()
        self.go_on = asyncio.Event()
        self.created = 0

    async def create_game(self, game_id: str, **options: Any) -> None:
        self.creating.set()
        await self.go_on.wait()
        await self.inner.create_game(game_id, **options)
        self.created += 1

    async def progress(self, game_id: str, seat: int | None) -> GameProgress | None:
        return await self.inner.progress(game_id, seat)


async def test_a_table_is_starting_while_its_game_is_created(stack: Stack) -> None:
    assert stack.backend.lobby is not None
    gateway = HeldGateway(stack.backend.lobby.games)
    stack.backend.lobby.games = gateway
    _, host = await guest(stack, "Host")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    for _ in range(2):
        table = (
            await stack.lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
                metadata=host,
            )
        ).table
    assert table.status == lobby_pb2.TABLE_STATUS_FULL
    watch = stack.lobby.WatchTable(
        lobby_pb2.WatchTableRequest(table_id=table.table_id), metadata=host
    )
    updates = aiter(watch)
    assert [u.table.status for u in await take(updates, 1)] == [lobby_pb2.TABLE_STATUS_FULL]
    start = lobby_pb2.StartGameRequest(table_id=table.table_id, request_id="start")
    first = stack.lobby.StartGame(start, metadata=host)
    starting = asyncio.ensure_future(first)
    await asyncio.wait_for(gateway.creating.wait(), timeout=10)

    [seen] = await take(updates, 1)
    assert seen.table.status == lobby_pb2.TABLE_STATUS_STARTING
    assert seen.table.game_id == ""  # not playable yet
    got = (
        await stack.lobby.GetTable(
            lobby_pb2.GetTableRequest(table_id=table.table_id), metadata=host
        )
    ).table
    assert got.status == lobby_pb2.TABLE_STATUS_STARTING
    mine = (await stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=host)).games
    assert [(g.table_id, g.status, g.game_id) for g in mine] == [
        (table.table_id, lobby_pb2.TABLE_STATUS_STARTING, "")
    ]
    await refused(
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_STARTED",
        stack.lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
        ),
    )
    # The host's app gives up waiting; the game is created once all the same, and the retry
    # with the same request id answers STARTED.
    first.cancel()
    gateway.go_on.set()
    [done] = await take(updates, 1)
    assert done.table.status == lobby_pb2.TABLE_STATUS_STARTED and done.table.game_id
    retried = await stack.lobby.StartGame(start, metadata=host)
    assert retried.table.status == lobby_pb2.TABLE_STATUS_STARTED
    assert retried.table.game_id == done.table.game_id
    assert gateway.created == 1
    assert starting.cancelled() or starting.exception() is not None


async def test_only_the_host_may_start_a_table_even_once_it_has_started(stack: Stack) -> None:
    _, host = await guest(stack, "Host")
    _, guest_player = await guest(stack, "Guest")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    await stack.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=guest_player
    )
    await stack.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
        metadata=host,
    )
    start = lobby_pb2.StartGameRequest(table_id=table.table_id)
    started = (await stack.lobby.StartGame(start, metadata=host)).table
    assert started.status == lobby_pb2.TABLE_STATUS_STARTED
    await refused(
        grpc.StatusCode.PERMISSION_DENIED,
        "NOT_HOST",
        stack.lobby.StartGame(start, metadata=guest_player),
    )


class FailingGateway:
    """The real gateway, except that creating a game fails until the test lets it through
    (the game service away, or the lobby cut off half-way through a start)."""

    def __init__(self, inner: GameGateway) -> None:
        self.inner = inner
        self.failing = True
        self.refused = 0

    async def create_game(self, game_id: str, **options: Any) -> None:
        if self.failing:
            self.refused += 1
            raise ServiceError(Reason.GAME_SERVICE_UNAVAILABLE, "the game service is away")
        await self.inner.create_game(game_id, **options)

    async def progress(self, game_id: str, seat: int | None) -> GameProgress | None:
        return await self.inner.progress(game_id, seat)


async def test_a_start_cut_off_half_way_is_finished_by_the_sweep(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An auto-start table whose last join could not create the game stays STARTING, and
    nobody calls StartGame on it: the lobby's sweep finishes the start once the game service
    answers again."""
    monkeypatch.setattr(lobby_service, "START_GRACE_S", 0.0)
    assert stack.backend.lobby is not None
    gateway = FailingGateway(stack.backend.lobby.games)
    stack.backend.lobby.games = gateway
    players = [await guest(stack, name) for name in ("Ada", "Bea", "Cem")]
    _, host = players[0]
    table = (
        await stack.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=3, auto_start=True), metadata=host
        )
    ).table
    await stack.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=players[1][1]
    )
    with contextlib.suppress(grpc.aio.AioRpcError):  # the start it set off failed
        await stack.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=players[2][1]
        )
    get = lobby_pb2.GetTableRequest(table_id=table.table_id)

    async def status() -> int:
        return (await stack.lobby.GetTable(get, metadata=host)).table.status

    assert await status() == lobby_pb2.TABLE_STATUS_STARTING
    await wait_until(lambda: gateway.refused >= 2, "the sweep tried the start again")
    assert await status() == lobby_pb2.TABLE_STATUS_STARTING
    gateway.failing = False

    async def started() -> bool:
        return await status() == lobby_pb2.TABLE_STATUS_STARTED

    await wait_until_true(started, "the sweep finished the start", timeout=60)
    started = (await stack.lobby.GetTable(get, metadata=host)).table
    seat = await stack.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
    )
    assert seat.game_id == started.game_id != ""
