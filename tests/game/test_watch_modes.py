"""Watch in its views-only modes, and SubmitCommand's version_only answer, end to end.

TURNS is how a client (or a bot) learns it must decide: one view when its seat is asked, the
final one at the end, nothing else. VIEWS gives the latest view each time the game comes to
rest. Across replicas the view still arrives: the replica holding the Watch follows the store.
"""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from services.api.verrater.v1 import events_pb2, game_pb2, view_pb2
from services.codec import decode_record
from services.engine import fold, to_act
from services.eventstore import EventStore, RedisEventStore
from tests.game.harness import Client, ScriptedGame, assert_only_own_secrets, running_server
from tests.support.waiting import wait_until


def _turns(client: Client, game_id: str, seat: int, from_version: int = 0) -> object:
    return client.stub.Watch(
        game_pb2.WatchRequest(
            game_id=game_id, from_version=from_version, mode=game_pb2.WATCH_MODE_TURNS
        ),
        metadata=client.seat_metadata(game_id, seat),
    )


async def _play_seat(
    player: Client, game_id: str, seat: int, rng: random.Random, seen: list[view_pb2.PlayerView]
) -> None:
    """Play one seat from its TURNS stream alone, answering each view with version_only."""
    call = _turns(player, game_id, seat)
    async for response in call:  # type: ignore[attr-defined]
        update = response.update
        assert not update.HasField("event"), "TURNS sends views only"
        assert update.view.version == update.version
        seen.append(update.view)
        if update.view.phase == events_pb2.PHASE_GAME_OVER:
            return
        assert seat in update.view.turn.seats, "TURNS sends a seat only its own turns"
        request = game_pb2.SubmitCommandRequest(
            game_id=game_id,
            expected_version=update.version,
            command_id=f"{seat}-{update.version}",
            command=rng.choice(list(update.view.legal)),
            version_only=True,
        )
        try:
            answer = await player.stub.SubmitCommand(
                request, metadata=player.seat_metadata(game_id, seat)
            )
        except grpc.aio.AioRpcError as error:
            # Several seats discard at the hand limit at once: whoever is second acted on a
            # version that moved on, and its stream brings the next view.
            assert error.code() is grpc.StatusCode.ABORTED, error.details()
            continue
        assert answer.version > update.version
        assert answer.event_count >= 1
        assert not answer.events and not answer.HasField("view")


async def _play_by_turns(clients: list[Client], game_id: str, players: int) -> dict[int, list]:
    seen: dict[int, list[view_pb2.PlayerView]] = {seat: [] for seat in range(players)}
    await asyncio.wait_for(
        asyncio.gather(
            *[
                _play_seat(
                    clients[seat % len(clients)], game_id, seat, random.Random(seat), seen[seat]
                )
                for seat in range(players)
            ]
        ),
        timeout=120,
    )
    return seen


async def test_seats_play_a_whole_game_from_their_turns_streams(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        seen = await _play_by_turns([client], game_id, 4)
        stored = await store.read(game_id)
        assert [item.version for item in stored] == list(range(1, len(stored) + 1))
        final = fold(decode_record(item.payload).event for item in stored)
        assert final.phase.name == "GAME_OVER"
        for seat, views in seen.items():
            assert views[-1].phase == events_pb2.PHASE_GAME_OVER
            assert views[-1].version == final.version
            # Every view but the last asked this seat to decide, and each is news.
            assert all(seat in view.turn.seats for view in views[:-1])
            versions = [view.version for view in views]
            assert versions == sorted(set(versions))
            events = [decode_record(item.payload).event for item in stored]
            assert_only_own_secrets(views, events, seat)


async def test_a_turns_watch_on_one_replica_sees_commands_applied_on_another(
    fresh_redis_url: str,
) -> None:
    store_a = RedisEventStore.from_url(fresh_redis_url)
    store_b = RedisEventStore.from_url(fresh_redis_url)
    async with running_server(store_a) as (_, a), running_server(store_b) as (_, b):
        game_id = await a.create_game(4)
        # Seats 0 and 2 watch and submit on replica A, seats 1 and 3 on replica B.
        await _play_by_turns([a, b], game_id, 4)
        stored = await store_a.read(game_id)
        assert [item.version for item in stored] == list(range(1, len(stored) + 1))
        assert fold(decode_record(item.payload).event for item in stored).phase.name == "GAME_OVER"


async def test_turns_resumes_after_the_version_it_was_given(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        spectator = await client.view(game_id, None)
        seat = spectator.turn.seats[0]
        # The seat to act gets its view at once from 0, and nothing when it already has it.
        call = _turns(client, game_id, seat)
        first = (await asyncio.wait_for(call.read(), timeout=10)).update  # type: ignore[attr-defined]
        assert first.version == spectator.version and seat in first.view.turn.seats
        call.cancel()  # type: ignore[attr-defined]
        again = _turns(client, game_id, seat, from_version=spectator.version)
        pending = asyncio.ensure_future(again.read())  # type: ignore[attr-defined]
        # Play on until the seat must decide again: what the stream sends first is that later
        # turn, never the view at the version the client already had.
        rng = random.Random(7)
        now = spectator
        for _ in range(200):
            actor = now.turn.seats[0]
            mine = await client.view(game_id, actor)
            await client.submit(game_id, actor, rng.choice(list(mine.legal)), mine.version)
            now = await client.view(game_id, None)
            if seat in now.turn.seats:
                break
        news = (await asyncio.wait_for(pending, timeout=10)).update
        assert news.version == now.version > spectator.version
        again.cancel()  # type: ignore[attr-defined]


async def test_views_mode_sends_the_latest_view_at_rest_without_events(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        call = client.stub.Watch(
            game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_VIEWS),
            metadata=client.spectator_metadata(),
        )
        first = (await asyncio.wait_for(call.read(), timeout=10)).update
        assert not first.HasField("event")
        assert not first.view.HasField("hand") and not first.view.legal  # a spectator's view
        seat = first.view.turn.seats[0]
        mine = await client.view(game_id, seat)
        response = await client.submit(game_id, seat, mine.legal[0], mine.version)
        second = (await asyncio.wait_for(call.read(), timeout=10)).update
        assert second.version == response.version
        state = fold(decode_record(item.payload).event for item in await store.read(game_id))
        assert list(second.view.turn.seats) == list(to_act(state))
        call.cancel()


async def test_a_spectator_has_no_turns_to_watch(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(3)
        call = client.stub.Watch(
            game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_TURNS),
            metadata=client.spectator_metadata(),
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call.read()
        assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "spectator" in (caught.value.details() or "")
        unknown = client.stub.Watch(
            game_pb2.WatchRequest(game_id=game_id, mode=7),  # type: ignore[arg-type]
            metadata=client.seat_metadata(game_id, 0),
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await unknown.read()
        assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        # A missing mode is refused too, never taken for one of the modes.
        missing = client.stub.Watch(
            game_pb2.WatchRequest(game_id=game_id),
            metadata=client.seat_metadata(game_id, 0),
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await missing.read()
        assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "mode is required" in (caught.value.details() or "")


async def test_a_cancelled_watch_releases_its_follower(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        calls = [
            client.stub.Watch(
                game_pb2.WatchRequest(game_id=game_id, mode=mode),
                metadata=client.seat_metadata(game_id, 0),
            )
            for mode in (
                game_pb2.WATCH_MODE_EVENTS,
                game_pb2.WATCH_MODE_VIEWS,
                game_pb2.WATCH_MODE_TURNS,
            )
        ]
        for call in calls[:2]:
            await asyncio.wait_for(call.read(), timeout=10)
        # However many watchers, one follower (one store subscription) for the game.
        await wait_until(lambda: store.live_subscriptions == 1, "one follower for the game")
        for call in calls:
            call.cancel()
        await wait_until(lambda: store.live_subscriptions == 0, "the follower is released")


async def _read_to(call: object, version: int, grouped: bool) -> list[game_pb2.WatchResponse]:
    """A Watch stream's responses up to and including the one that reaches `version`."""
    responses: list[game_pb2.WatchResponse] = []
    while True:
        response = await asyncio.wait_for(call.read(), timeout=10)  # type: ignore[attr-defined]
        assert response is not grpc.aio.EOF, "the stream ended early"
        responses.append(response)
        last = response.updates[-1] if grouped else response.update
        if last.version >= version:
            return responses


async def test_grouped_events_are_the_same_updates_one_response_per_batch(
    store: EventStore,
) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        game = ScriptedGame(client, game_id, random.Random(11))
        for _ in range(10):
            await game.step()
        total = await store.version(game_id)
        for seat in (0, 2, None):
            metadata = (
                client.spectator_metadata() if seat is None else client.seat_metadata(game_id, seat)
            )
            streams = {
                grouped: client.stub.Watch(
                    game_pb2.WatchRequest(
                        game_id=game_id, mode=game_pb2.WATCH_MODE_EVENTS, grouped=grouped
                    ),
                    metadata=metadata,
                )
                for grouped in (False, True)
            }
            one_by_one = await _read_to(streams[False], total, grouped=False)
            batches = await _read_to(streams[True], total, grouped=True)
            # The same updates, redacted the same way for the same caller, in the same order.
            singles = [response.update for response in one_by_one]
            assert [u for batch in batches for u in batch.updates] == singles
            assert [u.version for u in singles] == list(range(1, total + 1))
            # Each event carries its metadata as the log stores it: the decision's command id,
            # and on a batch's first event when the batch was appended.
            stored = [decode_record(item.payload) for item in await store.read(game_id)]
            assert [
                (u.event.command_id, u.event.turn_timer_expired, u.event.recorded_at_ms)
                for u in singles
            ] == [(r.command_id, r.turn_timer_expired, r.recorded_at_ms) for r in stored[:total]]
            assert sum(u.event.recorded_at_ms > 0 for u in singles) == len(batches)
            # Each response is one batch: it ends where the game is at rest (the view), and
            # nothing before that carries a view.
            for batch in batches:
                assert not batch.HasField("update") and batch.updates
                assert batch.updates[-1].HasField("view")
                assert not any(u.HasField("view") for u in batch.updates[:-1])
            assert len(batches) == sum(u.HasField("view") for u in singles) < len(singles)
            # Live: the next decision and what it sets off come as one more response.
            await game.step()
            now = await store.version(game_id)
            live = (await asyncio.wait_for(streams[True].read(), timeout=10)).updates  # type: ignore[attr-defined]
            assert [u.version for u in live] == list(range(total + 1, now + 1))
            assert live[-1].view.version == now
            total = now
            for call in streams.values():
                call.cancel()  # type: ignore[attr-defined]


async def test_grouped_views_modes_send_one_update_per_response(store: EventStore) -> None:
    async with running_server(store) as (_, client):
        game_id = await client.create_game(4)
        call = client.stub.Watch(
            game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_VIEWS, grouped=True),
            metadata=client.spectator_metadata(),
        )
        first = await asyncio.wait_for(call.read(), timeout=10)
        assert len(first.updates) == 1 and not first.HasField("update")
        assert first.updates[0].view.version == first.updates[0].version
        assert not first.updates[0].HasField("event")
        call.cancel()
