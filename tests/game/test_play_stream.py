"""Play: one bidirectional stream per seat, turns out and commands in, end to end.

A seat opens the stream, gets its view whenever it must decide, answers on the same stream and
gets each command's result there: applied, or refused with the status SubmitCommand would have
failed with, while the stream stays open. Stream-level mistakes (no open, a second open, no
seat, an expired token) end the stream with their status; nothing a client sends changes the
log unless it is a legal command.
"""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest
from grpc import aio

from services.api.verrater.v1 import commands_pb2, errors_pb2, events_pb2, game_pb2, view_pb2
from services.codec import decode_record
from services.engine import fold
from services.eventstore import EventStore, InMemoryEventStore, RedisEventStore
from services.rpc import Role, bearer
from tests.game.harness import Client, assert_only_own_secrets, running_server

ABORTED = grpc.StatusCode.ABORTED.value[0]
FAILED_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION.value[0]
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT.value[0]
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED.value[0]
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


def _open(game_id: str, from_version: int = 0) -> game_pb2.PlayRequest:
    return game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id, from_version=from_version))


def _command(
    command: commands_pb2.Command, version: int, command_id: str, game_id: str = ""
) -> game_pb2.PlayRequest:
    return game_pb2.PlayRequest(
        command=game_pb2.SubmitCommandRequest(
            game_id=game_id, expected_version=version, command_id=command_id, command=command
        )
    )


async def _read(call: aio.StreamStreamCall) -> game_pb2.PlayResponse:  # type: ignore[type-arg]
    message = await asyncio.wait_for(call.read(), timeout=20)
    assert isinstance(message, game_pb2.PlayResponse), message
    return message


async def _read_result(call: aio.StreamStreamCall) -> game_pb2.CommandResult:  # type: ignore[type-arg]
    """The next command result (turns that arrive first are skipped)."""
    while True:
        message = await _read(call)
        if message.HasField("result"):
            return message.result


async def _status_of_ended(call: aio.StreamStreamCall) -> grpc.StatusCode:  # type: ignore[type-arg]
    with pytest.raises(grpc.aio.AioRpcError) as error:
        while await asyncio.wait_for(call.read(), timeout=20) is not aio.EOF:
            pass
    return error.value.code()


async def _play_seat(
    client: Client, game_id: str, seat: int, rng: random.Random, seen: list[view_pb2.PlayerView]
) -> int:
    """Play one seat over its Play stream alone; return how many commands it had applied."""
    call = client.stub.Play(metadata=client.seat_metadata(game_id, seat))
    await call.write(_open(game_id))
    applied = 0
    pending: set[str] = set()
    while (message := await asyncio.wait_for(call.read(), timeout=60)) is not aio.EOF:
        assert isinstance(message, game_pb2.PlayResponse)
        if message.HasField("result"):
            result = message.result
            assert result.command_id in pending, "every result answers a command of this stream"
            pending.discard(result.command_id)
            if result.HasField("applied"):
                applied += 1
                assert result.applied.event_count >= 1
                assert not result.applied.events and not result.applied.HasField("view")
            else:
                # Several seats discard at the hand limit at once: the second acted on a version
                # that moved on, and the stream brings its next turn.
                assert result.refused.code == ABORTED, result.refused
            continue
        update = message.turn
        assert not update.HasField("event"), "a Play stream sends views only"
        assert update.view.version == update.version
        seen.append(update.view)
        if update.view.phase == events_pb2.PHASE_GAME_OVER:
            continue  # the stream ends after the final view
        assert seat in update.view.turn.seats, "a seat gets only its own turns"
        command_id = f"{seat}-{update.version}"
        pending.add(command_id)
        await call.write(_command(rng.choice(list(update.view.legal)), update.version, command_id))
    assert await call.code() is grpc.StatusCode.OK
    assert not pending, "every command was answered before the stream ended"
    return applied


async def test_seats_play_a_whole_game_over_play_streams_seeing_only_their_own_secrets(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seen: dict[int, list[view_pb2.PlayerView]] = {seat: [] for seat in range(4)}
        applied = await asyncio.wait_for(
            asyncio.gather(
                *[
                    _play_seat(client, game_id, seat, random.Random(seat), seen[seat])
                    for seat in range(4)
                ]
            ),
            timeout=120,
        )
        stored = await store.read(game_id)
        assert [item.version for item in stored] == list(range(1, len(stored) + 1))
        records = [decode_record(item.payload) for item in stored]
        events = [record.event for record in records]
        final = fold(events)
        assert final.phase.name == "GAME_OVER"
        # Every applied command is one decision in the log, and nothing else decided.
        assert sum(applied) == sum(1 for record in records if record.seat >= 0)
        for seat, views in seen.items():
            assert views[-1].phase == events_pb2.PHASE_GAME_OVER
            assert views[-1].version == final.version
            versions = [view.version for view in views]
            assert versions == sorted(set(versions))
            assert_only_own_secrets(views, events, seat)


async def test_a_play_stream_on_one_replica_plays_with_seats_on_another(
    fresh_redis_url: str,
) -> None:
    """Seats split across two replicas: each learns of the other replica's commands."""
    stores = [RedisEventStore.from_url(fresh_redis_url) for _ in range(2)]
    async with running_server(stores[0]) as (_, one), running_server(stores[1]) as (_, two):
        game_id = await one.create_game(3)
        seen: dict[int, list[view_pb2.PlayerView]] = {seat: [] for seat in range(3)}
        await asyncio.wait_for(
            asyncio.gather(
                *[
                    _play_seat((one, two)[seat % 2], game_id, seat, random.Random(seat), seen[seat])
                    for seat in range(3)
                ]
            ),
            timeout=120,
        )
        final = fold(decode_record(item.payload).event for item in await stores[0].read(game_id))
        assert final.phase.name == "GAME_OVER"
        assert all(views[-1].version == final.version for views in seen.values())


async def test_refused_commands_are_answered_on_the_open_stream_and_change_nothing(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        call = client.stub.Play(metadata=client.seat_metadata(game_id, seat))
        await call.write(_open(game_id))
        turn = (await _read(call)).turn
        assert seat in turn.view.turn.seats
        before = await store.read(game_id)
        good = turn.view.legal[0]
        version = turn.version

        # The rules refuse: the violation comes with it, as in SubmitCommand's status details.
        wrong_phase = commands_pb2.Command(pass_build=commands_pb2.PassBuild())
        await call.write(_command(wrong_phase, version, "wrong-phase"))
        result = await _read_result(call)
        assert result.command_id == "wrong-phase"
        assert result.refused.code == FAILED_PRECONDITION
        assert result.refused.violation.code != errors_pb2.VIOLATION_CODE_UNSPECIFIED
        assert result.refused.message
        # Malformed: no command; another game's id; a negative version.
        await call.write(_command(commands_pb2.Command(), version, "empty"))
        assert (await _read_result(call)).refused.code == INVALID_ARGUMENT
        await call.write(_command(good, version, "elsewhere", game_id="another-game"))
        refused = (await _read_result(call)).refused
        assert refused.code == INVALID_ARGUMENT
        assert game_id in refused.message
        await call.write(_command(good, -1, "negative"))
        assert (await _read_result(call)).refused.code == INVALID_ARGUMENT
        # Stale: acted on a version the game has left.
        await call.write(_command(good, version - 1, "stale"))
        assert (await _read_result(call)).refused.code == ABORTED
        assert await store.read(game_id) == before

        # The stream is still open, and the game goes on; a retried id answers the same.
        await call.write(_command(good, version, "good"))
        applied = (await _read_result(call)).applied
        assert applied.version > version
        await call.write(_command(good, version, "good"))
        again = await _read_result(call)
        assert again.applied == applied
        assert len(await store.read(game_id)) == applied.version
        call.cancel()


async def test_stream_level_mistakes_end_the_stream_with_their_status(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        stub = client.stub
        mine = client.seat_metadata(game_id, seat)
        before = await store.read(game_id)
        good = (await client.view(game_id, seat)).legal[0]

        async def ended(metadata: object, *requests: game_pb2.PlayRequest) -> grpc.StatusCode:
            call = stub.Play(metadata=metadata)  # type: ignore[arg-type]
            try:
                for request in requests:
                    await call.write(request)
            except grpc.aio.AioRpcError as error:
                # The server may end the stream before a write reaches it (a call without a
                # token is refused at once): the write then reports the status.
                return error.code()
            return await _status_of_ended(call)

        # A command before the open, or an empty first message.
        assert await ended(mine, _command(good, 2, "early")) is grpc.StatusCode.INVALID_ARGUMENT
        assert await ended(mine, game_pb2.PlayRequest()) is grpc.StatusCode.INVALID_ARGUMENT
        # A second open.
        assert await ended(mine, _open(game_id), _open(game_id)) is grpc.StatusCode.INVALID_ARGUMENT
        # A bad game id, a negative version, a version the game has not reached.
        assert await ended(mine, _open("bad id!")) is grpc.StatusCode.INVALID_ARGUMENT
        assert await ended(mine, _open(game_id, -1)) is grpc.StatusCode.INVALID_ARGUMENT
        assert await ended(mine, _open(game_id, 999)) is grpc.StatusCode.OUT_OF_RANGE
        # No token, a spectator's token, another game's seat, a game that does not exist.
        assert await ended((), _open(game_id)) is grpc.StatusCode.UNAUTHENTICATED
        spectator = client.spectator_metadata()
        assert await ended(spectator, _open(game_id)) is grpc.StatusCode.PERMISSION_DENIED
        elsewhere = client.seat_metadata("other-game", seat)
        assert await ended(elsewhere, _open(game_id)) is grpc.StatusCode.PERMISSION_DENIED
        unknown = client.seat_metadata("no-such-game", 0)
        assert await ended(unknown, _open("no-such-game")) is grpc.StatusCode.NOT_FOUND
        assert await store.read(game_id) == before


async def test_a_command_sent_after_the_token_expired_ends_the_stream_unapplied(
    store: EventStore,
) -> None:
    now = [time.time()]
    async with running_server(store, clock=lambda: now[0]) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        # Minted by the server's clock: by the wall clock, a second that ticked over since
        # `now` was read would put the expiry past `now + 60`.
        token = client.issuer.mint(
            f"player-{seat}", game_id=game_id, seat=seat, ttl_seconds=60, now=now[0]
        )
        call = client.stub.Play(metadata=bearer(token))
        await call.write(_open(game_id))
        turn = (await _read(call)).turn
        before = await store.read(game_id)
        now[0] += 60  # the server's clock reaches the token's expiry
        await call.write(_command(turn.view.legal[0], turn.version, "late"))
        assert await _status_of_ended(call) is grpc.StatusCode.UNAUTHENTICATED
        assert await store.read(game_id) == before


async def test_a_stream_ends_when_its_token_expires_though_nothing_flows(
    store: EventStore,
) -> None:
    now = [time.time()]
    async with running_server(store, clock=lambda: now[0]) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        # Issued a minute before it expires (whole seconds); the server's clock stands two
        # seconds before its expiry when the stream opens.
        expiry = int(now[0]) + 60
        token = client.issuer.mint(
            f"player-{seat}", game_id=game_id, seat=seat, ttl_seconds=60, now=expiry - 60
        )
        now[0] = expiry - 2
        call = client.stub.Play(metadata=bearer(token))
        await call.write(_open(game_id))
        await _read(call)  # the turn; then the client sends nothing
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(call.read(), timeout=20)
        assert ended.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert "expired" in (ended.value.details() or "")


async def test_a_play_streams_commands_count_against_the_players_command_rate() -> None:
    store = InMemoryEventStore()
    async with running_server(store, command_rate=1) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        call = client.stub.Play(metadata=client.seat_metadata(game_id, seat))
        await call.write(_open(game_id))
        turn = (await _read(call)).turn
        before = await store.read(game_id)
        codes = []
        for n in range(4):  # a burst of two is allowed at one command a second
            await call.write(_command(turn.view.legal[0], turn.version - 1, f"stale-{n}"))
            codes.append((await _read_result(call)).refused)
        assert [refused.code for refused in codes] == [ABORTED, ABORTED] + [RESOURCE_EXHAUSTED] * 2
        assert "too many command requests" in codes[-1].message
        assert await store.read(game_id) == before
        call.cancel()


async def test_a_services_command_for_a_persons_seat_is_refused_on_the_stream(
    store: EventStore,
) -> None:
    """A service's token (the AI's workers) plays bot seats: on a person's seat its command is
    refused (PERSONS_SEAT), as on SubmitCommand, and nothing is appended."""
    people = [events_pb2.SeatAssignment(player_id=f"p{n}", name=f"P{n}") for n in range(4)]
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4, seats=people)
        seat = (await client.view(game_id, None)).turn.seats[0]
        service = client.issuer.mint("ai", role=Role.SERVICE, game_id=game_id, seat=seat)
        call = client.stub.Play(metadata=bearer(service))
        await call.write(_open(game_id))
        turn = (await _read(call)).turn
        before = await store.read(game_id)
        await call.write(_command(turn.view.legal[0], turn.version, "for-a-person"))
        refused = (await _read_result(call)).refused
        assert refused.code == PERMISSION_DENIED
        assert refused.reason == "PERSONS_SEAT"
        assert f"seat {seat}" in refused.message
        assert await store.read(game_id) == before
        call.cancel()
