"""The Game gRPC service end to end: real servers on loopback, real Redis, scripted clients."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.api.verrater.v1 import (
    cards_pb2,
    commands_pb2,
    errors_pb2,
    events_pb2,
    game_pb2,
)
from services.audit.export import LogEntry
from services.audit.verify import audit
from services.codec import decode_record, event_from_proto
from services.engine import Phase, fold
from services.eventstore import EventStore, RedisEventStore, verify_chain
from services.game.service import GameApplication
from services.rpc import TokenIssuer, bearer
from tests.game.harness import ScriptedGame, running_server
from tests.support.status import reason_of


async def _assert_intact(store: EventStore, game_id: str) -> None:
    """No gap, no duplicate, and `verrater audit` finds nothing in the finished game."""
    stored = await store.read(game_id)
    assert [item.version for item in stored] == list(range(1, len(stored) + 1))
    report = audit([LogEntry.from_stored(item) for item in stored])
    assert report.ok, report.summary()


async def _log_versions(store: EventStore, game_id: str) -> list[int]:
    return [event.version for event in await store.read(game_id)]


@pytest.mark.parametrize("players", [4, 3])
async def test_complete_game_through_the_api(store: EventStore, players: int) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(players)
        game = ScriptedGame(client, game_id, random.Random(players))
        final = await game.play_to_end()
        assert final.phase == events_pb2.PHASE_GAME_OVER
        assert list(final.winners)
        assert final.seed  # revealed at the end
        log = await client.stub.GetLog(
            game_pb2.GetLogRequest(game_id=game_id), metadata=client.spectator_metadata()
        )
        versions = [entry.version for entry in log.events]
        assert versions == list(range(1, len(versions) + 1))
        stored = await store.read(game_id)
        assert verify_chain(stored) is None
        state = fold(decode_record(item.payload).event for item in stored)
        assert state.phase is Phase.GAME_OVER
        assert state.round == (8 if players == 4 else 9) or len(set(state.houses)) == 1
        assert [event_from_proto(entry.event) for entry in log.events]


async def test_two_services_on_one_redis_apply_exactly_one_of_two_racing_commands(
    fresh_redis_url: str,
) -> None:
    store_a = RedisEventStore.from_url(fresh_redis_url)
    store_b = RedisEventStore.from_url(fresh_redis_url)
    async with running_server(store_a) as (_, a), running_server(store_b) as (_, b):
        game_id = await a.create_game(4)
        for _ in range(10):
            view = await a.view(game_id, None)
            seat = view.turn.seats[0]
            mine = await b.view(game_id, seat)
            options = list(mine.legal)
            if len(options) < 2:
                await ScriptedGame(a, game_id, random.Random(0)).step()
                continue
            first, second = options[0], options[1]
            results = await asyncio.gather(
                a.submit(game_id, seat, first, mine.version),
                b.submit(game_id, seat, second, mine.version),
                return_exceptions=True,
            )
            successes = [r for r in results if isinstance(r, game_pb2.SubmitCommandResponse)]
            failures = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
            assert len(successes) == 1, results
            assert len(failures) == 1
            assert failures[0].code() in (
                grpc.StatusCode.ABORTED,
                grpc.StatusCode.FAILED_PRECONDITION,  # the winner's move ended the seat's turn
            )
        versions = await _log_versions(store_a, game_id)
        assert versions == list(range(1, len(versions) + 1))


async def test_a_command_without_its_id_or_version_is_refused_and_changes_nothing(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seat = (await client.view(game_id, None)).turn.seats[0]
        mine = await client.view(game_id, seat)
        before = await store.read(game_id)
        for fields, reason in (
            ({"expected_version": mine.version}, "MISSING_FIELD"),  # no command id
            ({"command_id": "no-version"}, "MISSING_FIELD"),  # no expected version
            ({"command_id": "bad id!", "expected_version": mine.version}, "INVALID_ID"),
            ({"command_id": "x" * 129, "expected_version": mine.version}, "INVALID_ID"),
        ):
            request = game_pb2.SubmitCommandRequest(game_id=game_id, command=mine.legal[0])
            for name, value in fields.items():
                setattr(request, name, value)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.SubmitCommand(
                    request, metadata=client.seat_metadata(game_id, seat)
                )
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT, fields
            assert reason_of(refused.value) == reason, fields
        assert await store.read(game_id) == before


async def test_repeated_command_id_is_applied_once_and_answers_the_same(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        view = await client.view(game_id, None)
        seat = view.turn.seats[0]
        mine = await client.view(game_id, seat)
        command = mine.legal[0]
        first = await client.submit(game_id, seat, command, mine.version, command_id="same-id")
        again = await client.submit(game_id, seat, command, mine.version, command_id="same-id")
        assert again == first
        # The decision event carries its metadata as the log stores it.
        log = await store.read(game_id)
        decision = decode_record(log[first.version - first.event_count].payload)
        assert decision.recorded_at_ms > 0 and decision.command_id == "same-id"
        assert (first.events[0].command_id, first.events[0].recorded_at_ms) == (
            "same-id",
            decision.recorded_at_ms,
        )
        both = await asyncio.gather(
            *[
                client.submit(game_id, seat, command, mine.version, command_id="same-id")
                for _ in range(5)
            ]
        )
        assert all(answer == first for answer in both)
        assert await store.version(game_id) == first.version
        # The same id with another command is refused with its own reason and changes nothing.
        other = next(candidate for candidate in mine.legal if candidate != command)
        before = await store.read(game_id)
        with pytest.raises(grpc.aio.AioRpcError) as reused:
            await client.submit(game_id, seat, other, mine.version, command_id="same-id")
        assert reused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(reused.value) == "COMMAND_ID_REUSED"
        assert await store.read(game_id) == before
        await ScriptedGame(client, game_id, random.Random(2)).play_to_end()
        await _assert_intact(store, game_id)
        stored = await store.read(game_id)
        ids = [decode_record(item.payload).command_id for item in stored]
        assert ids.count("same-id") == 1


async def test_watch_resumes_from_a_version_with_exactly_the_later_events(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        game = ScriptedGame(client, game_id, random.Random(7))
        for _ in range(12):
            await game.step()
        total = await store.version(game_id)
        resume_from = total // 2
        call = client.stub.Watch(
            game_pb2.WatchRequest(
                game_id=game_id, from_version=resume_from, mode=game_pb2.WATCH_MODE_EVENTS
            ),
            metadata=client.spectator_metadata(),
        )
        received: list[int] = []
        async for response in call:
            update = response.update
            received.append(update.version)
            if update.version == total:
                break
        call.cancel()
        assert received == list(range(resume_from + 1, total + 1))
        # Live: a new decision reaches a watcher that is already waiting.
        live = client.stub.Watch(
            game_pb2.WatchRequest(
                game_id=game_id, from_version=total, mode=game_pb2.WATCH_MODE_EVENTS
            ),
            metadata=client.spectator_metadata(),
        )
        await game.step()
        update = (await asyncio.wait_for(live.read(), timeout=10)).update
        assert update.version == total + 1
        live.cancel()
        await game.play_to_end()
        await _assert_intact(store, game_id)


def _assert_hides_others(update_event: events_pb2.GameEvent, seat: int) -> None:
    kind = update_event.WhichOneof("event")
    if kind == "game_created":
        assert not update_event.game_created.HasField("seed")
    if kind == "supply_dealt":
        assert not update_event.supply_dealt.HasField("deck")
    if kind == "action_cards_dealt":
        assert not update_event.action_cards_dealt.HasField("set_aside")
    if kind == "action_card_picked" and update_event.action_card_picked.seat != seat:
        assert not update_event.action_card_picked.HasField("card")
    if kind == "cards_drawn" and update_event.cards_drawn.seat != seat:
        assert not update_event.cards_drawn.HasField("cards")
    if kind == "discard_pile_reshuffled":
        assert not update_event.discard_pile_reshuffled.HasField("order")


async def test_no_seat_sees_another_seats_hidden_cards(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        game = ScriptedGame(client, game_id, random.Random(3))
        state_store = store
        for _ in range(40):
            await game.step()
            state = fold(decode_record(e.payload).event for e in await state_store.read(game_id))
            for seat in range(4):
                view = await client.view(game_id, seat)
                assert list(view.hand.cards) == list(state.hands[seat])
                if view.HasField("pick"):
                    assert state.picks[seat] is not None
                    assert view.pick == int(state.picks[seat]) + 1
                others_picks = [s for s in view.seats if s.seat != seat]
                if not state.revealed:
                    assert all(not s.HasField("revealed_pick") for s in others_picks)
                if view.HasField("offered"):
                    assert tuple(view.turn.seats) == (seat,)
            spectator = await client.view(game_id, None)
            assert not spectator.HasField("hand")
            assert not spectator.HasField("pick")
            assert not spectator.legal
        for seat in range(4):
            call = client.stub.Watch(
                game_pb2.WatchRequest(
                    game_id=game_id, from_version=0, mode=game_pb2.WATCH_MODE_EVENTS
                ),
                metadata=client.seat_metadata(game_id, seat),
            )
            total = await store.version(game_id)
            async for response in call:
                update = response.update
                _assert_hides_others(update.event, seat)
                if update.version == total:
                    break
            call.cancel()


async def _expect(code: grpc.StatusCode, call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == code, caught.value.details()
    assert caught.value.details()
    return caught.value


async def test_bad_requests_get_their_status_and_change_nothing(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        before = await store.read(game_id)
        view = await client.view(game_id, None)
        seat = view.turn.seats[0]
        other = (seat + 1) % 4
        mine = await client.view(game_id, seat)
        good = mine.legal[0]
        request = game_pb2.SubmitCommandRequest(
            game_id=game_id, expected_version=mine.version, command_id="x", command=good
        )
        stub = client.stub
        # no token, a forged token, an expired token
        await _expect(grpc.StatusCode.UNAUTHENTICATED, stub.SubmitCommand(request))
        forged = TokenIssuer("a-forger-guessing-the-secret-wrongly-32b").mint(
            "p", game_id=game_id, seat=seat
        )
        await _expect(
            grpc.StatusCode.UNAUTHENTICATED, stub.SubmitCommand(request, metadata=bearer(forged))
        )
        expired = client.issuer.mint("p", game_id=game_id, seat=seat, ttl_seconds=-10)
        await _expect(
            grpc.StatusCode.UNAUTHENTICATED, stub.SubmitCommand(request, metadata=bearer(expired))
        )
        # a spectator or another game's seat may not act
        await _expect(
            grpc.StatusCode.PERMISSION_DENIED,
            stub.SubmitCommand(request, metadata=client.spectator_metadata()),
        )
        await _expect(
            grpc.StatusCode.PERMISSION_DENIED,
            stub.SubmitCommand(request, metadata=client.seat_metadata("other-game", seat)),
        )
        # wrong seat: the rules say whose turn it is
        error = await _expect(
            grpc.StatusCode.FAILED_PRECONDITION,
            stub.SubmitCommand(request, metadata=client.seat_metadata(game_id, other)),
        )
        status = rpc_status.from_call(error)
        assert status is not None
        info, detail = error_details_pb2.ErrorInfo(), errors_pb2.RuleViolationDetail()
        assert len(status.details) == 2
        assert status.details[0].Unpack(info) and status.details[1].Unpack(detail)
        assert (info.domain, info.reason) == ("verrater.v1", "RULE_VIOLATION")
        assert errors_pb2.ViolationCode.Name(detail.code) == "VIOLATION_CODE_NOT_YOUR_TURN"
        # illegal card / position
        bad_position = commands_pb2.Command(
            place_first_estate=commands_pb2.PlaceFirstEstate(position=99)
        )
        await _expect(
            grpc.StatusCode.FAILED_PRECONDITION,
            client.submit(game_id, seat, bad_position, mine.version),
        )
        wrong_phase = commands_pb2.Command(pass_build=commands_pb2.PassBuild())
        await _expect(
            grpc.StatusCode.FAILED_PRECONDITION,
            client.submit(game_id, seat, wrong_phase, mine.version),
        )
        # malformed: no command at all, a bad game id, a negative version
        await _expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            client.submit(game_id, seat, commands_pb2.Command(), mine.version),
        )
        await _expect(
            grpc.StatusCode.INVALID_ARGUMENT, client.submit("bad id!", seat, good, mine.version)
        )
        await _expect(grpc.StatusCode.INVALID_ARGUMENT, client.submit(game_id, seat, good, -1))
        # stale version, unknown game, log of a running game, game creation by a player
        await _expect(grpc.StatusCode.ABORTED, client.submit(game_id, seat, good, 1))
        # a version the game has not reached (another game's, or one a restored store lost)
        ahead = await _expect(
            grpc.StatusCode.ABORTED, client.submit(game_id, seat, good, mine.version + 5)
        )
        assert "has not reached it" in (ahead.details() or "")
        await _expect(grpc.StatusCode.NOT_FOUND, client.submit("nope", 0, good, 5))
        await _expect(
            grpc.StatusCode.FAILED_PRECONDITION,
            stub.GetLog(
                game_pb2.GetLogRequest(game_id=game_id), metadata=client.spectator_metadata()
            ),
        )
        await _expect(
            grpc.StatusCode.PERMISSION_DENIED,
            stub.CreateGame(
                game_pb2.CreateGameRequest(players=4),
                metadata=client.seat_metadata(game_id, 0),
            ),
        )
        await _expect(
            grpc.StatusCode.INVALID_ARGUMENT,
            stub.CreateGame(
                game_pb2.CreateGameRequest(players=5), metadata=client.service_metadata()
            ),
        )
        assert await store.read(game_id) == before
        # and the game goes on
        await client.submit(game_id, seat, good, mine.version)


async def test_a_new_service_process_rebuilds_the_game_identically(fresh_redis_url: str) -> None:
    store = RedisEventStore.from_url(fresh_redis_url)
    async with running_server(store) as (server, client):
        game_id = await client.create_game(4)
        game = ScriptedGame(client, game_id, random.Random(11))
        for _ in range(30):
            await game.step()
        assert server.game is not None
        live = await server.game.state(game_id)
    fresh_store = RedisEventStore.from_url(fresh_redis_url)
    try:
        rebuilt = await GameApplication(fresh_store).state(game_id)
    finally:
        await fresh_store.close()
    assert rebuilt == live


async def test_ruleset_is_public_and_shows_provisional_cells(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        ruleset = (await client.stub.GetRuleset(game_pb2.GetRulesetRequest(players=4))).ruleset
        assert ruleset.rounds == 8
        city = ruleset.card_table.landscapes[-1]
        assert city.cp == 15
        assert [cell.points for cell in city.vp] == [15, 9, 4, 1]
        assert [cell.provisional for cell in city.vp] == [True, True, False, True]
        # No source prints a conflict value: every one is marked provisional.
        assert all(spec.cp_provisional for spec in ruleset.card_table.landscapes)
        # What each action card does, as data.
        specs = {spec.card: spec for spec in ruleset.action_cards}
        assert set(specs) == set(cards_pb2.ActionCard.values()) - {0}
        traitor = specs[cards_pb2.ACTION_CARD_TRAITOR]
        assert (traitor.switches_house, traitor.victory_points) == (True, 1)
        assert specs[cards_pb2.ACTION_CARD_DIPLOMAT5].conflict_points == 5
        diplomat2 = specs[cards_pb2.ACTION_CARD_DIPLOMAT2]
        assert (diplomat2.conflict_points, diplomat2.cards_drawn) == (2, 1)
        strategist = specs[cards_pb2.ACTION_CARD_STRATEGIST]
        assert (strategist.takes_strategist, strategist.victory_points) == (True, 2)
        farmer = specs[cards_pb2.ACTION_CARD_FARMER]
        assert (farmer.cards_drawn, farmer.replaces_estate_draw) == (3, True)
        assert specs[cards_pb2.ACTION_CARD_BUILDER].builds
