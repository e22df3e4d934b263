"""The Lobby service end to end over gRPC: from guests to a finished game, on both stores."""

from __future__ import annotations

import asyncio
import random
import uuid

import grpc

from services.api.verrater.v1 import events_pb2, game_pb2, lobby_pb2
from services.rpc import bearer
from tests.lobby.harness import Stack, expect, guest, running


async def play_to_end(
    stack: Stack, game_id: str, tokens: dict[int, tuple[tuple[str, str]]]
) -> events_pb2.GameEvent | None:
    """Every seated player acts when the view says so, choosing among its legal options."""
    rng = random.Random(5)
    for _ in range(400):
        spectator = (
            await stack.game.GetView(
                game_pb2.GetViewRequest(game_id=game_id), metadata=next(iter(tokens.values()))
            )
        ).view
        if not spectator.turn.seats:
            assert spectator.phase == events_pb2.PHASE_GAME_OVER
            return None
        seat = spectator.turn.seats[0]
        mine = (
            await stack.game.GetView(
                game_pb2.GetViewRequest(game_id=game_id), metadata=tokens[seat]
            )
        ).view
        await stack.game.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=mine.version,
                command_id=uuid.uuid4().hex,
                command=rng.choice(list(mine.legal)),
            ),
            metadata=tokens[seat],
        )
    raise AssertionError("the game did not end")


async def test_four_guests_go_from_lobby_to_a_finished_game(stack: Stack) -> None:
    players = [await guest(stack, name) for name in ("Anna", "Bert", "Cleo", "Dirk")]
    host_id, host = players[0]
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
    ).table
    assert table.status == lobby_pb2.TABLE_STATUS_OPEN
    for _, metadata in players[1:]:
        table = (
            await stack.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=metadata
            )
        ).table
    assert table.status == lobby_pb2.TABLE_STATUS_FULL
    assert table.ranked
    started = (
        await stack.lobby.StartGame(
            lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host
        )
    ).table
    assert started.status == lobby_pb2.TABLE_STATUS_STARTED
    assert started.host_player_id == host_id
    tokens: dict[int, tuple[tuple[str, str]]] = {}
    for player_id, metadata in players:
        seat_token = await stack.lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=metadata
        )
        assert seat_token.game_id == started.game_id
        assert started.seats[seat_token.seat].player_id == player_id
        tokens[seat_token.seat] = bearer(seat_token.token)
    assert sorted(tokens) == [0, 1, 2, 3]
    await play_to_end(stack, started.game_id, tokens)
    log = await stack.game.GetLog(game_pb2.GetLogRequest(game_id=started.game_id), metadata=host)
    created = log.events[0].event.game_created
    assert [seat.name for seat in created.seats] == ["Anna", "Bert", "Cleo", "Dirk"]
    assert created.ranked


async def test_every_lobby_error_has_a_clear_status(stack: Stack) -> None:
    _, host = await guest(stack, "Host")
    others = [await guest(stack, f"Guest {i}") for i in range(4)]
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    join = lobby_pb2.JoinTableRequest(table_id=table.table_id)
    await expect(grpc.StatusCode.ALREADY_EXISTS, stack.lobby.JoinTable(join, metadata=host))
    await stack.lobby.JoinTable(join, metadata=others[0][1])
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stack.lobby.StartGame(
            lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=others[0][1]
        ),
    )
    await expect(  # not full yet
        grpc.StatusCode.FAILED_PRECONDITION,
        stack.lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host),
    )
    await stack.lobby.JoinTable(join, metadata=others[1][1])
    full = await expect(
        grpc.StatusCode.FAILED_PRECONDITION, stack.lobby.JoinTable(join, metadata=others[2][1])
    )
    assert "full" in full
    await expect(
        grpc.StatusCode.NOT_FOUND,
        stack.lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id="nope"), metadata=host),
    )
    private = (
        await stack.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=4, private=True), metadata=host
        )
    ).table
    assert private.invite_code
    await expect(
        grpc.StatusCode.PERMISSION_DENIED,
        stack.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=private.table_id, invite_code="guess"),
            metadata=others[3][1],
        ),
    )
    joined = (
        await stack.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=private.table_id, invite_code=private.invite_code),
            metadata=others[3][1],
        )
    ).table
    assert len([s for s in joined.seats if s.player_id]) == 2
    for bad in ("", "ab", "x" * 25, "<script>", "     "):
        await expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            stack.lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=bad)),
        )
    expired = stack.config.issuer.mint("someone", ttl_seconds=-5)
    message = await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=bearer(expired)),
    )
    assert "expired" in message
    await expect(
        grpc.StatusCode.UNAUTHENTICATED,
        stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4)),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=5), metadata=host),
    )
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stack.lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
        ),
    )


async def test_two_players_racing_for_the_last_seat_exactly_one_gets_it(stack: Stack) -> None:
    _, host = await guest(stack, "Host")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    join = lobby_pb2.JoinTableRequest(table_id=table.table_id)
    _, first = await guest(stack, "First")
    await stack.lobby.JoinTable(join, metadata=first)
    racers = [await guest(stack, f"Racer {i}") for i in range(6)]
    results = await asyncio.gather(
        *[stack.lobby.JoinTable(join, metadata=metadata) for _, metadata in racers],
        return_exceptions=True,
    )
    winners = [r for r in results if isinstance(r, lobby_pb2.JoinTableResponse)]
    losers = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(winners) == 1
    assert all(loser.code() == grpc.StatusCode.FAILED_PRECONDITION for loser in losers)
    final = (
        await stack.lobby.GetTable(
            lobby_pb2.GetTableRequest(table_id=table.table_id), metadata=host
        )
    ).table
    assert len([seat for seat in final.seats if seat.player_id]) == 3


async def test_starting_twice_at_once_creates_one_game(stack: Stack) -> None:
    _, host = await guest(stack, "Host")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    for level in (events_pb2.BOT_LEVEL_EASY, events_pb2.BOT_LEVEL_NORMAL):
        table = (
            await stack.lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=level), metadata=host
            )
        ).table
    assert not table.ranked
    start = lobby_pb2.StartGameRequest(table_id=table.table_id)
    results = [
        answer.table
        for answer in await asyncio.gather(
            *[stack.lobby.StartGame(start, metadata=host) for _ in range(5)]
        )
    ]
    assert {r.game_id for r in results} == {results[0].game_id}
    assert all(r.status == lobby_pb2.TABLE_STATUS_STARTED for r in results)
    assert stack.backend.game is not None
    assert (await stack.backend.game.state(results[0].game_id)).version > 0
    created = await stack.backend.game.store.read(results[0].game_id, limit=1)
    assert len(created) == 1  # one log, created once


async def test_open_tables_are_listed_oldest_first_without_private_or_full_ones(
    stack: Stack,
) -> None:
    _, host = await guest(stack, "Lister")
    _, other = await guest(stack, "Other")
    first = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
    ).table
    await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4, private=True), metadata=host)
    second = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    full = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=other)
    ).table
    for _ in range(2):
        await stack.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=full.table_id, level=events_pb2.BOT_LEVEL_EASY),
            metadata=other,
        )
    listed = await stack.lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=host)
    assert [t.table_id for t in listed.tables] == [first.table_id, second.table_id]
    only_three = await stack.lobby.ListTables(lobby_pb2.ListTablesRequest(size=3), metadata=host)
    assert [t.table_id for t in only_three.tables] == [second.table_id]
    await stack.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=first.table_id), metadata=host
    )
    listed = await stack.lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=host)
    assert [t.table_id for t in listed.tables] == [second.table_id]


async def test_quick_match_pairs_players_and_fills_with_bots_after_the_wait(
    stack: Stack,
) -> None:
    _, anna = await guest(stack, "Anna")
    _, bert = await guest(stack, "Bert")
    opened = (
        await stack.lobby.QuickMatch(
            lobby_pb2.QuickMatchRequest(size=4, fill_with_bots_after_seconds=1), metadata=anna
        )
    ).table
    assert opened.turn_seconds == 60, "strangers play with a turn timer"
    watch = stack.lobby.WatchTable(
        lobby_pb2.WatchTableRequest(table_id=opened.table_id), metadata=anna
    )
    joined = (
        await stack.lobby.QuickMatch(lobby_pb2.QuickMatchRequest(size=4), metadata=bert)
    ).table
    assert joined.table_id == opened.table_id
    seen: list[lobby_pb2.Table] = []

    async def follow() -> None:
        async for update in watch:
            seen.append(update.table)

    await asyncio.wait_for(follow(), timeout=15)
    assert await watch.code() == grpc.StatusCode.OK, "the watch ends, done, once the game starts"
    final = seen[-1]
    assert final.status == lobby_pb2.TABLE_STATUS_STARTED
    assert final.game_id
    assert sum(1 for seat in final.seats if seat.bot_level) == 2
    assert not final.ranked
    assert [t.version for t in seen] == sorted({t.version for t in seen})


async def test_watching_a_table_ends_with_ok_when_its_host_leaves_and_it_closes(
    stack: Stack,
) -> None:
    _, host = await guest(stack, "Leaver")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
    ).table
    watch = stack.lobby.WatchTable(
        lobby_pb2.WatchTableRequest(table_id=table.table_id), metadata=host
    )
    updates = aiter(watch)
    first = await asyncio.wait_for(anext(updates), timeout=10)
    assert first.table.status == lobby_pb2.TABLE_STATUS_OPEN
    await stack.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table.table_id), metadata=host
    )
    rest = [update.table.status async for update in updates]
    assert rest == [lobby_pb2.TABLE_STATUS_CLOSED]
    assert await watch.code() == grpc.StatusCode.OK


async def test_tokens_can_be_refreshed(stack: Stack) -> None:
    player_id, metadata = await guest(stack, "Refresher")
    session = (
        await stack.lobby.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=metadata)
    ).session
    assert session.player_id == player_id
    await stack.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(size=4), metadata=bearer(session.token)
    )


async def test_lobby_state_survives_a_lobby_restart(fresh_redis_url: str) -> None:
    async with running("redis", fresh_redis_url) as first:
        _, host = await guest(first, "Keeper")
        table = (
            await first.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
        ).table
    async with running("redis", fresh_redis_url) as second:
        listed = await second.lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=host)
        assert [t.table_id for t in listed.tables] == [table.table_id]
        _, joiner = await guest(second, "Joiner")
        joined = (
            await second.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=joiner
            )
        ).table
        assert len([s for s in joined.seats if s.player_id]) == 2
