"""WatchNotifications end to end over gRPC, in memory and on Redis: a player told, across all
their tables and games, exactly once about each thing that concerns them, on the stream and on
the outbound feed, through reconnects, reloads, slow readers and stream limits."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.bootstrap import Backend, start_backend
from services.codec import decode_record
from services.config import Config
from services.engine import at_rest, evolve, initial_state, to_act
from services.eventstore import EventStore, InMemoryEventStore
from services.lobby.store import InMemoryLobbyStore
from services.notifications import (
    Notification,
    TimerRunningOut,
    decode_outbound,
    notification_to_proto,
)
from tests.support.decisions import decide_at_random
from tests.support.status import metadata_of, reason_of
from tests.support.waiting import wait_until

SECRET = "notify-test-secret-at-least-32-bytes-long"
Metadata = tuple[tuple[str, str]]
TIMEOUT = 60.0


@dataclass
class Stack:
    backend: Backend
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    game: game_pb2_grpc.GameServiceAsyncStub
    config: Config
    channel: aio.Channel

    @property
    def notifications(self) -> Any:
        assert self.backend.notifications is not None
        return self.backend.notifications

    @property
    def store(self) -> EventStore:
        assert self.backend.game is not None
        return self.backend.game.store


def config_for(redis_url: str | None, **settings: Any) -> Config:
    return Config(
        bind="127.0.0.1:0",
        token_secret=SECRET,
        redis_url=redis_url,
        command_rate=0,
        lobby_rate=0,
        bots="inprocess",
        **settings,
    )


@asynccontextmanager
async def running(
    redis_url: str | None, *, options: tuple[tuple[str, Any], ...] = (), **settings: Any
) -> AsyncIterator[Stack]:
    """Every service in one process: in memory without a URL, on Redis with one."""
    config = config_for(redis_url, **settings)
    if redis_url is None:
        backend = await start_backend(
            config, event_store=InMemoryEventStore(), lobby_store=InMemoryLobbyStore()
        )
    else:
        backend = await start_backend(config)
    channel = aio.insecure_channel(f"127.0.0.1:{backend.port}", options=list(options))
    try:
        yield Stack(
            backend,
            lobby_pb2_grpc.LobbyServiceStub(channel),  # type: ignore[arg-type]
            game_pb2_grpc.GameServiceStub(channel),  # type: ignore[arg-type]
            config,
            channel,
        )
    finally:
        await channel.close()
        await backend.stop(None)


@pytest.fixture(params=["memory", "redis"])
def redis_url(request: pytest.FixtureRequest) -> str | None:
    """None in memory; else a flushed Redis."""
    if request.param == "memory":
        return None
    url: str = request.getfixturevalue("fresh_redis_url")
    return url


async def guest(stack: Stack, name: str) -> tuple[str, Metadata]:
    session = (
        await stack.lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=name))
    ).session
    return session.player_id, (("authorization", f"Bearer {session.token}"),)


def watch(stack: Stack, player: Metadata, cursor: str = "") -> Any:
    return stack.lobby.WatchNotifications(
        lobby_pb2.WatchNotificationsRequest(cursor=cursor), metadata=player
    )


async def watching(stack: Stack, player: Metadata, cursor: str = "", streams: int = 1) -> Any:
    """A stream once it has caught up and waits for news (`streams` live in all)."""
    call = watch(stack, player, cursor)
    await wait_until(
        lambda: stack.notifications.live_subscriptions == streams, "the stream is live"
    )
    return call


async def next_notification(call: Any) -> lobby_pb2.Notification:
    async with asyncio.timeout(TIMEOUT):
        response = await call.read()
    assert response is not grpc.aio.EOF
    notification: lobby_pb2.Notification = response.notification
    return notification


async def next_turn(call: Any) -> lobby_pb2.Notification:
    """The next YourTurn (passing over the lobby's news, which may come before or after)."""
    notification = await next_notification(call)
    while notification.WhichOneof("kind") != "your_turn":
        notification = await next_notification(call)
    return notification


async def bot_table(stack: Stack, host: Metadata, *, turn_seconds: int = 0) -> lobby_pb2.Table:
    """A 3-seat table: the host and two bots, started."""
    table = (
        await stack.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=3, turn_seconds=turn_seconds), metadata=host
        )
    ).table
    for _ in range(2):
        await stack.lobby.AddBot(
            lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
            metadata=host,
        )
    return (
        await stack.lobby.StartGame(
            lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host
        )
    ).table


async def seat_token(stack: Stack, table_id: str, player: Metadata) -> Metadata:
    token = await stack.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table_id), metadata=player
    )
    return (("authorization", f"Bearer {token.token}"),)


async def act(stack: Stack, game_id: str, seat: Metadata, version: int, rng: random.Random) -> bool:
    """Decide on the view at `version` if it is still the game's and the seat's to decide."""
    mine = (await stack.game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=seat)).view
    if mine.version != version or not mine.legal:
        return False
    return await decide_at_random(stack.game, game_id, mine, seat, rng) is not None


async def awaited_of(store: EventStore, game_id: str, seat: int) -> list[int]:
    """Every version at which the game waited for `seat`'s decision, from its log."""
    state = initial_state()
    versions = []
    for stored in await store.read(game_id):
        state = evolve(state, decode_record(stored.payload).event)
        if at_rest(state) and seat in to_act(state):
            versions.append(state.version)
    return versions


def kind(notification: lobby_pb2.Notification) -> str:
    return str(notification.WhichOneof("kind"))


async def outbound_feed(stack: Stack, player_id: str) -> list[lobby_pb2.Notification]:
    """The player's entries of the outbound feed, as a push gateway reads them: on Redis with
    the consumer group `gateway` (created by `gateway_group`), acknowledging what it read."""
    if stack.config.redis_url is None:
        entries = await stack.notifications.outbound("0-0", 100_000)
    else:
        key = stack.notifications.outbound_key
        async with aioredis.Redis.from_url(stack.config.redis_url) as client:
            reply = await client.xreadgroup("gateway", "pusher-1", {key: ">"}, count=100_000)
            entries = [decode_outbound(entry_id, fields) for entry_id, fields in reply[0][1]]
            acked = await client.xack(key, "gateway", *[entry_id for entry_id, _ in reply[0][1]])
            assert acked == len(entries)
    return [
        notification_to_proto(entry.notification, entry.cursor)
        for entry in entries
        if entry.notification.player_id == player_id
    ]


async def gateway_group(stack: Stack) -> None:
    """On Redis, the push gateway's consumer group, reading what is published from now on."""
    if stack.config.redis_url is not None:
        async with aioredis.Redis.from_url(stack.config.redis_url) as client:
            await client.xgroup_create(
                stack.notifications.outbound_key, "gateway", id="$", mkstream=True
            )


async def test_a_player_in_three_games_hears_each_decision_once_in_order_across_a_reconnect(
    redis_url: str | None,
) -> None:
    rng = random.Random(7)
    async with running(redis_url) as stack:
        await gateway_group(stack)
        player, me = await guest(stack, "Juggler")
        call = await watching(stack, me)
        tables = [await bot_table(stack, me) for _ in range(3)]
        seats = {t.game_id: await seat_token(stack, t.table_id, me) for t in tables}
        heard: list[lobby_pb2.Notification] = []
        over: set[str] = set()
        reconnected = False
        while len(over) < 3:
            notification = await next_notification(call)
            heard.append(notification)
            if kind(notification) == "game_over":
                over.add(notification.game_id)
            elif kind(notification) == "your_turn":
                turn = notification.your_turn
                await act(
                    stack, notification.game_id, seats[notification.game_id], turn.version, rng
                )
            if not reconnected and len(heard) == 20:
                # The app is killed: it moves on in every game elsewhere, then watches again
                # from the last cursor it handled.
                call.cancel()
                for game_id, seat in seats.items():
                    view = (
                        await stack.game.GetView(
                            game_pb2.GetViewRequest(game_id=game_id), metadata=seat
                        )
                    ).view
                    await act(stack, game_id, seat, view.version, rng)
                await wait_until(
                    lambda: stack.notifications.live_subscriptions == 0, "the old stream is gone"
                )
                call = await watching(stack, me, heard[-1].cursor)
                reconnected = True
        call.cancel()

        cursors = [n.cursor for n in heard]
        assert len(set(cursors)) == len(cursors)
        assert sorted(cursors, key=lambda c: tuple(map(int, c.split("-")))) == cursors
        for table in tables:
            game_id = table.game_id
            seat = next(s.seat for s in table.seats if s.player_id == player)
            told = [n.your_turn for n in heard if n.game_id == game_id and kind(n) == "your_turn"]
            assert {t.seat for t in told} == {seat}
            assert [t.version for t in told] == await awaited_of(stack.store, game_id, seat)
            assert all(n.table_id == table.table_id for n in heard if n.game_id == game_id)
            lobby_told = [kind(n) for n in heard if n.table_id == table.table_id and not n.game_id]
            assert lobby_told == ["table_full", "game_starting"]
        assert await outbound_feed(stack, player) == heard


async def test_a_lobby_started_game_tells_its_people_full_starting_started_and_over(
    redis_url: str | None,
) -> None:
    rng = random.Random(3)
    async with running(redis_url) as stack:
        players = [await guest(stack, name) for name in ("Ann", "Ben", "Cat")]
        calls = [await watching(stack, md, streams=i + 1) for i, (_, md) in enumerate(players)]
        host = players[0][1]
        table = (
            await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=host)
        ).table
        for _, md in players[1:]:
            await stack.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=md
            )
        table = (
            await stack.lobby.StartGame(
                lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host
            )
        ).table
        tokens = [await seat_token(stack, table.table_id, md) for _, md in players]
        seat_of = {s.player_id: s.seat for s in table.seats}
        heard: list[list[lobby_pb2.Notification]] = [[], [], []]

        async def listen(index: int) -> None:
            while not heard[index] or kind(heard[index][-1]) != "game_over":
                notification = await next_notification(calls[index])
                heard[index].append(notification)
                if kind(notification) == "your_turn":
                    turn = notification.your_turn
                    await act(stack, table.game_id, tokens[index], turn.version, rng)

        await asyncio.gather(*(listen(index) for index in range(3)))
        final = (
            await stack.game.GetView(
                game_pb2.GetViewRequest(game_id=table.game_id), metadata=tokens[0]
            )
        ).view
        for index, (player_id, _) in enumerate(players):
            calls[index].cancel()
            mine = heard[index]
            seat = seat_of[player_id]
            assert [kind(n) for n in mine if kind(n) != "your_turn"] == [
                "table_full",
                "game_starting",
                "game_started",
                "game_over",
            ]
            assert all(n.table_id == table.table_id for n in mine)
            started = next(n for n in mine if kind(n) == "game_started")
            assert (started.game_id, started.game_started.seat) == (table.game_id, seat)
            over = mine[-1].game_over
            vp = [s.vp for s in final.seats]
            assert (over.seat, over.final_vp) == (seat, vp[seat])
            assert over.rank == 1 + sum(other > vp[seat] for other in vp)
            assert list(over.winners) == list(final.winners)
            turns = [n.your_turn.version for n in mine if kind(n) == "your_turn"]
            assert turns == await awaited_of(stack.store, table.game_id, seat)


async def test_a_replica_that_reloads_a_game_tells_nobody_twice(redis_url: str | None) -> None:
    async with running(redis_url) as stack:
        _, me = await guest(stack, "Steady")
        call = await watching(stack, me)
        table = await bot_table(stack, me)
        seat = await seat_token(stack, table.table_id, me)
        turn = await next_turn(call)
        # Another game replica, sharing the store (and in memory, the notifications).
        config = replace(stack.config, bots="off")
        replica = await start_backend(
            config,
            frozenset({"game"}),
            event_store=None if redis_url else stack.store,
            notifications=None if redis_url else stack.notifications,
        )
        if not redis_url:  # what the replica shares is the main backend's to close
            replica.closers.remove(stack.store.close)
            replica.closers.remove(stack.notifications.close)
        try:
            channel = aio.insecure_channel(f"127.0.0.1:{replica.port}")
            other = game_pb2_grpc.GameServiceStub(channel)
            view = (
                await other.GetView(  # type: ignore[misc]
                    game_pb2.GetViewRequest(game_id=table.game_id), metadata=seat
                )
            ).view
            assert view.version == turn.your_turn.version
            assert replica.publisher is not None
            await replica.publisher.drain()
            assert (replica.publisher.published, replica.publisher.duplicates) == (0, 1)
            await channel.close()
        finally:
            await replica.stop(None)
        assert await act(stack, table.game_id, seat, view.version, random.Random(1))
        following = await next_turn(call)
        assert following.your_turn.version > turn.your_turn.version
        call.cancel()


#: A client that takes no more than a kilobyte before the server must wait for it to read.
SMALL_WINDOW = (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024))


async def test_a_client_that_does_not_read_is_cut_off_as_a_slow_reader(
    redis_url: str | None,
) -> None:
    async with running(
        redis_url, notify_pending=4, notify_streams=1, options=SMALL_WINDOW
    ) as stack:
        player, me = await guest(stack, "Sleepy")
        call = await watching(stack, me)
        sent = 0
        async with asyncio.timeout(TIMEOUT):
            while stack.notifications.live_subscriptions:  # until the stream is cut off
                await stack.notifications.publish(
                    [
                        Notification(
                            player, f"timer:{sent + i}", TimerRunningOut(0, sent + i, 9), 1, "t"
                        )
                        for i in range(10)
                    ]
                )
                sent += 10
                await asyncio.sleep(0.02)  # pacing: the stream stalls for a second first
            # The server ended the stream it was stuck sending on, although this client has
            # read nothing: the player's one stream is free again.
            while True:
                again = watch(stack, me)
                settled = asyncio.ensure_future(again.code())
                live = asyncio.ensure_future(
                    wait_until(lambda: stack.notifications.live_subscriptions == 1, "live")
                )
                done, _ = await asyncio.wait({settled, live}, return_when=asyncio.FIRST_COMPLETED)
                if live in done:
                    settled.cancel()
                    again.cancel()
                    break
                live.cancel()
                assert settled.result() is grpc.StatusCode.RESOURCE_EXHAUSTED  # too many yet
                await asyncio.sleep(0.05)
        got = 0
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            async for _ in call:
                got += 1
        assert ended.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(ended.value) == "SLOW_READER"
        assert 0 < got < sent


async def test_a_player_may_hold_only_so_many_notification_streams(
    redis_url: str | None,
) -> None:
    async with running(redis_url, notify_streams=2) as stack:
        _, me = await guest(stack, "Tabs")
        _, other = await guest(stack, "Else")
        first = await watching(stack, me)
        second = await watching(stack, me, streams=2)
        third = watch(stack, me)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await third.read()
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(refused.value) == "TOO_MANY_STREAMS"
        assert metadata_of(refused.value)["limit"] == "2"  # the key game streams use too
        elsewhere = await watching(stack, other, streams=3)  # the limit is per player
        first.cancel()
        await wait_until(lambda: stack.notifications.live_subscriptions == 2, "one closed")
        again = await watching(stack, me, streams=3)
        for call in (second, elsewhere, again):
            call.cancel()


async def test_a_malformed_or_foreign_cursor_is_invalid_and_an_old_one_expired(
    redis_url: str | None,
) -> None:
    async with running(redis_url) as stack:
        _, me = await guest(stack, "Cursor")
        table = await bot_table(stack, me)
        call = await watching(stack, me, "0-0")
        first = await next_notification(call)
        assert (kind(first), first.table_id) == ("table_full", table.table_id)
        call.cancel()
        millis = int(first.cursor.split("-")[0])
        for cursor, code, reason in [
            ("not-a-cursor", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
            ("12", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
            (f"{millis + 3_600_000}-0", grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"),
            ("1500000000000-0", grpc.StatusCode.OUT_OF_RANGE, "CURSOR_EXPIRED"),
        ]:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await watch(stack, me, cursor).read()
            assert (refused.value.code(), reason_of(refused.value)) == (code, reason), cursor


async def test_a_bot_taking_over_on_the_turn_timer_is_told(redis_url: str | None) -> None:
    async with running(redis_url) as stack:
        _, me = await guest(stack, "Asleep")
        call = await watching(stack, me)
        table = await bot_table(stack, me, turn_seconds=5)
        seat = next(s.seat for s in table.seats if s.bot_level == events_pb2.BOT_LEVEL_UNSPECIFIED)
        turns: list[int] = []
        warnings: list[tuple[int, int]] = []
        deadlines: dict[int, int] = {}
        notification = await next_notification(call)
        while kind(notification) != "bot_took_over":  # nobody acts for us: the timer runs out
            if kind(notification) == "your_turn":
                turns.append(notification.your_turn.version)
                deadlines[notification.your_turn.version] = (
                    notification.your_turn.deadline.ToMilliseconds()
                )
            if kind(notification) == "timer_running_out":
                warned = notification.timer_running_out
                warnings.append((warned.version, warned.deadline.ToMilliseconds()))
            notification = await next_notification(call)
        call.cancel()
        took = notification.bot_took_over
        assert took.seat == seat and took.version > turns[0]
        # Warned first (a fifth of the turn before the deadline), about the decision awaited.
        assert warnings and warnings[0] == (turns[0], deadlines[turns[0]])
        assert (notification.game_id, notification.table_id) == (table.game_id, table.table_id)
