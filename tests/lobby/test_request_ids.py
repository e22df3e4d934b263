"""Request ids: a retried lobby call answers what the first copy answered and changes nothing
more, even when the copies race; the same id for another request is refused."""

from __future__ import annotations

import asyncio

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2
from services.rpc import bearer
from tests.lobby.harness import Metadata, Stack, guest, refused, register, running

REUSED = grpc.StatusCode.FAILED_PRECONDITION


async def _my_table_ids(stack: Stack, metadata: Metadata) -> list[str]:
    games = await stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=metadata)
    return [game.table_id for game in games.games]


async def test_two_identical_create_table_calls_racing_create_one_table(stack: Stack) -> None:
    _, host = await guest(stack, "Hasty Host")
    create = lobby_pb2.CreateTableRequest(size=4, request_id="create-1")
    answers = await asyncio.gather(
        *(stack.lobby.CreateTable(create, metadata=host) for _ in range(2))
    )
    assert answers[0].SerializeToString() == answers[1].SerializeToString()
    assert await _my_table_ids(stack, host) == [answers[0].table.table_id]
    later = await stack.lobby.CreateTable(create, metadata=host)  # a retry after the race
    assert later == answers[0]
    listed = await stack.lobby.ListTables(lobby_pb2.ListTablesRequest(), metadata=host)
    assert [t.table_id for t in listed.tables] == [answers[0].table.table_id]


async def test_the_same_request_id_for_another_request_is_refused_and_changes_nothing(
    stack: Stack,
) -> None:
    _, host = await guest(stack, "Reuser")
    first = await stack.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(size=4, request_id="mine"), metadata=host
    )
    info = await refused(
        REUSED,
        "REQUEST_ID_REUSED",
        stack.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=3, request_id="mine"), metadata=host
        ),
    )
    assert info.metadata["field"] == "request_id"
    await refused(  # another method with the same id is another request too
        REUSED,
        "REQUEST_ID_REUSED",
        stack.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=first.table.table_id, request_id="mine"),
            metadata=host,
        ),
    )
    assert await _my_table_ids(stack, host) == [first.table.table_id]
    table = await stack.lobby.GetTable(
        lobby_pb2.GetTableRequest(table_id=first.table.table_id), metadata=host
    )
    assert table.table == first.table  # the refused leave left it as it was
    # Request ids are per caller: another player's "mine" is theirs.
    _, other = await guest(stack, "Other")
    theirs = await stack.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(size=3, request_id="mine"), metadata=other
    )
    assert theirs.table.table_id != first.table.table_id


async def test_a_failed_first_attempt_lets_its_retry_run_again(stack: Stack) -> None:
    _, host = await guest(stack, "Impatient")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
    ).table
    start = lobby_pb2.StartGameRequest(table_id=table.table_id, request_id="go")
    await refused(REUSED, "TABLE_NOT_FULL", stack.lobby.StartGame(start, metadata=host))
    for _ in range(2):
        await stack.lobby.AddBot(
            lobby_pb2.AddBotRequest(
                table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY, request_id=""
            ),
            metadata=host,
        )
    started = await stack.lobby.StartGame(start, metadata=host)
    assert started.table.status == lobby_pb2.TABLE_STATUS_STARTED


async def test_joins_and_bots_with_a_request_id_happen_once(stack: Stack) -> None:
    _, host = await guest(stack, "Host")
    _, joiner = await guest(stack, "Joiner")
    table = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
    ).table
    join = lobby_pb2.JoinTableRequest(table_id=table.table_id, request_id="join")
    joins = await asyncio.gather(*(stack.lobby.JoinTable(join, metadata=joiner) for _ in range(3)))
    assert len({answer.SerializeToString() for answer in joins}) == 1  # no ALREADY_SEATED
    bot = lobby_pb2.AddBotRequest(table_id=table.table_id, request_id="bot")
    bots = await asyncio.gather(*(stack.lobby.AddBot(bot, metadata=host) for _ in range(3)))
    assert len({answer.SerializeToString() for answer in bots}) == 1
    final = (
        await stack.lobby.GetTable(
            lobby_pb2.GetTableRequest(table_id=table.table_id), metadata=host
        )
    ).table
    assert [bool(seat.player_id) for seat in final.seats] == [True, True, True, False]


async def test_a_retried_registration_is_the_same_guest_with_the_same_credential(
    stores: tuple[str, str | None],
) -> None:
    async with running(*stores, guest_rate=0.25) as stack:  # one guest per address, for now
        copies = await asyncio.gather(
            *(register(stack, "Twice", request_id="first-launch") for _ in range(3))
        )
        assert len({session.SerializeToString() for session in copies}) == 1
        assert copies[0].credential
        await refused(  # another name is another request
            REUSED, "REQUEST_ID_REUSED", register(stack, "Other Name", request_id="first-launch")
        )
        await refused(  # and a new guest from this address would be one too many
            grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", register(stack, "Third")
        )


async def test_a_retried_rotation_rotates_once(stack: Stack) -> None:
    session = await register(stack, "Rotator")
    rotate = lobby_pb2.RotateCredentialRequest(request_id="rotate-1")
    first, retried = await asyncio.gather(
        *(stack.lobby.RotateCredential(rotate, metadata=bearer(session.token)) for _ in range(2))
    )
    assert first.session.credential == retried.session.credential != session.credential
    # A retry after the answer was lost carries the token of before the rotation: it still gets
    # the first answer (the token's refusal is for new rotations and refreshes).
    later = await stack.lobby.RotateCredential(rotate, metadata=bearer(session.token))
    assert later.session.credential == first.session.credential
    await stack.lobby.SignIn(
        lobby_pb2.SignInRequest(player_id=session.player_id, credential=first.session.credential)
    )


async def test_malformed_request_ids_are_refused(stack: Stack) -> None:
    _, host = await guest(stack, "Sloppy")
    for bad in ("has space", "x" * 65, "trailing\n", "ümlaut"):
        info = await refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ID",
            stack.lobby.CreateTable(
                lobby_pb2.CreateTableRequest(size=4, request_id=bad), metadata=host
            ),
        )
        assert info.metadata["field"] == "request_id"
        await refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ID",
            register(stack, "Fine Name", request_id=bad),
        )
    assert await _my_table_ids(stack, host) == []
