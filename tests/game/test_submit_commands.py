"""SubmitCommands: several seats' decisions in one call, each with its own seat token.

Each command is taken as SubmitCommand would take it with its token, in the order sent, and
answered in that order; a refused one changes nothing and does not stop the others. Only a
request wrong as a whole (no commands, too many, no valid token on the call) fails the call.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from services.api.verrater.v1 import commands_pb2, game_pb2
from services.eventstore import EventStore, InMemoryEventStore
from services.game import server as game_server
from services.game.server import MAX_COMMANDS_PER_CALL
from services.rpc import bearer
from tests.game.harness import Client, running_server

ABORTED = grpc.StatusCode.ABORTED.value[0]
INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT.value[0]
NOT_FOUND = grpc.StatusCode.NOT_FOUND.value[0]
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED.value[0]
RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED.value[0]


def _seat_token(client: Client, game_id: str, seat: int) -> str:
    return client.issuer.mint(f"player-{seat}", game_id=game_id, seat=seat)


def _entry(
    token: str,
    game_id: str,
    command: commands_pb2.Command,
    version: int,
    command_id: str,
) -> game_pb2.SeatCommand:
    return game_pb2.SeatCommand(
        token=token,
        command=game_pb2.SubmitCommandRequest(
            game_id=game_id, expected_version=version, command_id=command_id, command=command
        ),
    )


async def _turn(client: Client, game_id: str) -> tuple[int, int, commands_pb2.Command]:
    """The seat to act, the version, and a legal command of its."""
    seat = (await client.view(game_id, None)).turn.seats[0]
    mine = await client.view(game_id, seat)
    return seat, mine.version, mine.legal[0]


async def test_commands_of_several_games_are_taken_in_order_and_each_answered(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        first, second = await client.create_game(4), await client.create_game(3)
        seat_a, version_a, good_a = await _turn(client, first)
        seat_b, version_b, good_b = await _turn(client, second)
        token_a = _seat_token(client, first, seat_a)
        token_b = _seat_token(client, second, seat_b)
        entries = [
            _entry(token_a, first, good_a, version_a, "a-good"),
            _entry(token_b, second, good_b, version_b, "b-good"),
            # Acted on the version the first command just left.
            _entry(token_a, first, good_a, version_a, "a-stale"),
            _entry("not-a-token", first, good_a, version_a + 1, "no-token"),
            # A seat token of the first game does not act in the second.
            _entry(token_a, second, good_b, version_b + 1, "wrong-game"),
            _entry(_seat_token(client, "g0000000000ff", 0), "g0000000000ff", good_a, 1, "unknown"),
            _entry(token_a, first, commands_pb2.Command(), version_a + 1, "empty"),
            # A retry of an applied command answers as the first time.
            _entry(token_a, first, good_a, version_a, "a-good"),
        ]
        answer = await client.stub.SubmitCommands(
            game_pb2.SubmitCommandsRequest(commands=entries), metadata=client.spectator_metadata()
        )
        results = answer.results
        assert [result.command_id for result in results] == [e.command.command_id for e in entries]
        applied = [result.applied for result in results if result.HasField("applied")]
        assert len(applied) == 3
        assert results[0].applied.version > version_a
        assert results[1].applied.version > version_b
        assert results[7].applied == results[0].applied
        for result in applied:
            assert result.event_count >= 1
            assert not result.events and not result.HasField("view"), "version_only is implied"
        codes = [result.refused.code for result in results[2:7]]
        assert codes == [ABORTED, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, INVALID_ARGUMENT]
        assert [result.refused.reason for result in results[2:7]] == [
            "STALE_VERSION",
            "TOKEN_INVALID",
            "NOT_YOUR_SEAT",
            "GAME_NOT_FOUND",
            "MALFORMED_COMMAND",
        ]
        assert all(result.refused.message for result in results[2:7])
        # Exactly the two good commands were appended.
        assert len(await store.read(first)) == results[0].applied.version
        assert len(await store.read(second)) == results[1].applied.version


async def test_a_call_without_commands_or_with_too_many_changes_nothing(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seat, version, good = await _turn(client, game_id)
        token = _seat_token(client, game_id, seat)
        before = await store.read(game_id)
        too_many = [
            _entry(token, game_id, good, version, f"c{n}") for n in range(MAX_COMMANDS_PER_CALL + 1)
        ]
        for entries in ([], too_many):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.SubmitCommands(
                    game_pb2.SubmitCommandsRequest(commands=entries), metadata=bearer(token)
                )
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert f"1 to {MAX_COMMANDS_PER_CALL} commands" in (refused.value.details() or "")
        # Without a valid token on the call itself, though each command has its own.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await client.stub.SubmitCommands(game_pb2.SubmitCommandsRequest(commands=too_many[:1]))
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert await store.read(game_id) == before


async def test_each_of_a_persons_commands_counts_against_their_command_rate() -> None:
    """A call of many commands is not a way around the per-player rate limit."""
    store = InMemoryEventStore()
    async with running_server(store, command_rate=1) as (_, client):
        game_id = await client.create_game(4)
        seat, version, good = await _turn(client, game_id)
        token = _seat_token(client, game_id, seat)
        before = await store.read(game_id)
        stale = [_entry(token, game_id, good, version - 1, f"stale-{n}") for n in range(4)]
        answer = await client.stub.SubmitCommands(
            game_pb2.SubmitCommandsRequest(commands=stale), metadata=bearer(token)
        )
        # A burst of two is allowed at one command a second.
        codes = [result.refused.code for result in answer.results]
        assert codes == [ABORTED, ABORTED, RESOURCE_EXHAUSTED, RESOURCE_EXHAUSTED]
        assert "too many command requests" in answer.results[-1].refused.message
        assert await store.read(game_id) == before


async def test_the_commands_of_concurrent_calls_are_taken_one_at_a_time_and_people_go_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two SubmitCommands calls at once (two workers' bot moves): the replica takes their
    commands one at a time, so a person's SubmitCommand waits behind one of them at most; it
    does not wait for the calls to end."""
    async with running_server(InMemoryEventStore()) as (backend, client):
        assert backend.game is not None
        app = backend.game
        taking: list[str] = []
        most = {"batched": 0, "all": 0}
        submit = app.submit

        async def slow_submit(game_id: str, seat: int, command: Any, **more: Any) -> Any:
            taking.append(more["command_id"])
            batched = sum(1 for taken in taking if taken.startswith("batch"))
            most["batched"] = max(most["batched"], batched)
            most["all"] = max(most["all"], len(taking))
            try:
                await asyncio.sleep(0.05)
                return await submit(game_id, seat, command, **more)
            finally:
                taking.remove(more["command_id"])

        monkeypatch.setattr(app, "submit", slow_submit)
        # A command holds the turn HOLD_S at most (then waits beside the others, for a store
        # that does not answer): here the store answers, however slowly a busy machine runs
        # this test's 50 ms decisions, so the hold must outlast them.
        monkeypatch.setattr(game_server, "HOLD_S", 30.0)
        games = [await client.create_game(4) for _ in range(3)]
        turns = [await _turn(client, game_id) for game_id in games]

        def stale(game: int, n: int) -> game_pb2.SeatCommand:
            seat, version, good = turns[game]
            token = _seat_token(client, games[game], seat)
            return _entry(token, games[game], good, version - 1, f"batch-{game}-{n}")

        calls = [
            client.stub.SubmitCommands(
                game_pb2.SubmitCommandsRequest(commands=[stale(game, n) for n in range(3)]),
                metadata=client.spectator_metadata(),
            )
            for game in (0, 1)
        ]
        seat, version, good = turns[2]
        person = client.submit(games[2], seat, good, version, command_id="person")
        answers = await asyncio.gather(*calls, person)
        assert [len(answer.results) for answer in answers[:2]] == [3, 3]
        assert answers[2].version > version
        assert most["batched"] == 1, "no two commands of SubmitCommands calls at once"
        assert most["all"] == 2, "the person's command went between them"
