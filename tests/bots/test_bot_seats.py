"""Bots in real games: Celery workers on a real Redis broker, and in-process in embedded mode."""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from typing import Any

import grpc
import pytest
import redis
from grpc import aio

from services.ai.worker import make_app
from services.api.verrater.v1 import (
    ai_pb2,
    ai_pb2_grpc,
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    view_pb2,
)
from services.audit.export import LogEntry
from services.audit.verify import audit
from services.bench.common import free_port
from services.bootstrap import Backend, start_backend, worker_settings
from services.codec import decode_record
from services.config import Config
from services.engine import deciding_seat
from services.eventstore import InMemoryEventStore, RedisEventStore
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import Role, TokenIssuer, bearer
from tests.support.decisions import decide_at_random

SECRET = "bots-test-secret-at-least-32-bytes-long!"
Metadata = tuple[tuple[str, str]]


@dataclass
class Stack:
    backend: Backend
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    game: game_pb2_grpc.GameServiceAsyncStub
    ai: ai_pb2_grpc.AiServiceAsyncStub
    address: str


@asynccontextmanager
async def stack(redis_url: str | None, **settings: Any) -> AsyncIterator[Stack]:
    """Distributed (Redis stores, bots on Celery) with a URL; embedded (in memory) without.
    `settings` are more of the game service's `Config` (the broker, say)."""
    if redis_url is None:
        config = Config(bind="127.0.0.1:0", token_secret=SECRET, command_rate=0)
        backend = await start_backend(
            config, event_store=InMemoryEventStore(), lobby_store=InMemoryLobbyStore()
        )
    else:
        config = replace(
            Config(bind="127.0.0.1:0", token_secret=SECRET, redis_url=redis_url, command_rate=0),
            **settings,
        )
        backend = await start_backend(
            config,
            frozenset({"game", "lobby"}),
            event_store=RedisEventStore.from_url(redis_url),
            lobby_store=RedisLobbyStore.from_url(redis_url),
        )
    address = f"127.0.0.1:{backend.port}"
    channel = aio.insecure_channel(address)
    try:
        yield Stack(
            backend,
            lobby_pb2_grpc.LobbyServiceStub(channel),  # type: ignore[arg-type]
            game_pb2_grpc.GameServiceStub(channel),  # type: ignore[arg-type]
            ai_pb2_grpc.AiServiceStub(channel),  # type: ignore[arg-type]
            address,
        )
    finally:
        await channel.close()
        await backend.stop(None)


@contextmanager
def celery_worker(
    redis_url: str, game_address: str, **env: str
) -> Iterator[subprocess.Popen[bytes]]:
    """`verrater worker` as an operator runs it, in its own process group; its log is shown
    when the test fails."""
    with tempfile.TemporaryFile() as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "worker"],
            env={
                **os.environ,
                "REDIS_URL": redis_url,
                "VERRATER_GAME_ADDR": game_address,
                "VERRATER_TOKEN_SECRET": SECRET,
                **env,
            },
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield worker
        except BaseException:
            log.seek(0)
            print("--- worker log (tail) ---\n" + log.read().decode(errors="replace")[-4000:])
            raise
        finally:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
                    worker.wait()


async def guest(s: Stack, name: str) -> Metadata:
    session = (
        await s.lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=name))
    ).session
    return bearer(session.token)


async def bot_table(
    s: Stack,
    host: Metadata,
    bots: int,
    *,
    sits_out: bool = False,
    turn_seconds: int = 0,
    level: events_pb2.BotLevel.ValueType = events_pb2.BOT_LEVEL_NORMAL,
) -> lobby_pb2.Table:
    table = (
        await s.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=4, host_sits_out=sits_out, turn_seconds=turn_seconds),
            metadata=host,
        )
    ).table
    for _ in range(bots):
        table = (
            await s.lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=level),
                metadata=host,
            )
        ).table
    return (
        await s.lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host)
    ).table


async def follow_to_the_end(
    s: Stack, game_id: str, spectator: Metadata, humans: dict[int, Metadata]
) -> view_pb2.PlayerView:
    """Watch the game; whenever a scripted human must act, act; return the final view."""
    rng = random.Random(9)
    updates = s.game.Watch(
        game_pb2.WatchRequest(game_id=game_id, from_version=0, mode=game_pb2.WATCH_MODE_EVENTS),
        metadata=spectator,
    )
    async for response in updates:
        update = response.update
        if not update.HasField("view"):
            continue
        if update.view.phase == events_pb2.PHASE_GAME_OVER:
            updates.cancel()
            return update.view
        for seat in update.view.turn.seats:
            if seat in humans:
                mine = (
                    await s.game.GetView(
                        game_pb2.GetViewRequest(game_id=game_id), metadata=humans[seat]
                    )
                ).view
                if mine.version != update.version or not mine.legal:
                    continue  # the watcher is behind; a later update brings us back here
                await decide_at_random(s.game, game_id, mine, humans[seat], rng)
    raise AssertionError("the watch stream ended before the game did")


async def game_of_four_people(s: Stack) -> tuple[str, int, int]:
    """A started game whose seats are all people (nobody announces a bot turn for it): its
    id, a seat that must act now, and the version."""
    host = await guest(s, "Host")
    table = (await s.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)).table
    for n in range(3):
        player = await guest(s, f"Player {n}")
        join = lobby_pb2.JoinTableRequest(table_id=table.table_id)
        await s.lobby.JoinTable(join, metadata=player)
    table = (
        await s.lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host)
    ).table
    _, token = await seat_token(s, table.table_id, host)
    view = (
        await s.game.GetView(game_pb2.GetViewRequest(game_id=table.game_id), metadata=token)
    ).view
    return table.game_id, view.turn.seats[0], view.version


async def sandbox_game(s: Stack, **create_fields: Any) -> tuple[str, int, int]:
    """A game of four created without seating, as a tool creates one: the services may play
    every seat, and nobody announces a bot turn for it. Its id, a seat that must act now, and
    the version. `create_fields` are more of the CreateGameRequest (seats, turn_seconds)."""
    service = bearer(TokenIssuer(SECRET).mint("test", role=Role.SERVICE))
    game_id = f"g{uuid.uuid4().hex[:12]}"
    create = game_pb2.CreateGameRequest(game_id=game_id, players=4, **create_fields)
    await s.game.CreateGame(create, metadata=service)
    view = (await s.game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=service)).view
    return game_id, view.turn.seats[0], view.version


async def seat_token(s: Stack, table_id: str, player: Metadata) -> tuple[int, Metadata]:
    token = await s.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table_id), metadata=player
    )
    return token.seat, bearer(token.token)


async def _decisions(store: object, game_id: str) -> list[tuple[int, int]]:
    stored = await store.read(game_id)
    out = []
    for item in stored:
        seat = deciding_seat(decode_record(item.payload).event)
        if seat is not None:
            out.append((item.version, seat))
    return out


async def test_one_scripted_player_and_three_celery_bots_finish_a_game(
    fresh_redis_url: str,
) -> None:
    async with stack(fresh_redis_url) as s:
        with celery_worker(fresh_redis_url, s.address):
            human = await guest(s, "Scripted")
            table = await bot_table(s, human, 3)
            seat, token = await seat_token(s, table.table_id, human)
            final = await asyncio.wait_for(
                follow_to_the_end(s, table.game_id, human, {seat: token}), timeout=180
            )
    assert list(final.winners)


async def test_four_bots_play_a_whole_game_after_the_lobby_starts_it(fresh_redis_url: str) -> None:
    """And the worker's metrics count the messages it took, and the one it discarded."""
    metrics = free_port()
    async with stack(fresh_redis_url) as s:
        with celery_worker(fresh_redis_url, s.address, VERRATER_METRICS_PORT=str(metrics)):
            organiser = await guest(s, "Organiser")
            table = await bot_table(s, organiser, 4, sits_out=True)
            assert table.status == lobby_pb2.TABLE_STATUS_STARTED
            final = await asyncio.wait_for(
                follow_to_the_end(s, table.game_id, organiser, {}), timeout=180
            )
            app = make_app(worker_settings(Config(redis_url=fresh_redis_url)))
            app.send_task("verrater.no_such_task", queue="verrater.bots")
            async with asyncio.timeout(30):
                while 'why="unknown task"} 1.0' not in (scraped := await scrape(metrics)):
                    await asyncio.sleep(0.1)
    assert list(final.winners)
    took = re.search(r'verrater_worker_messages_total\{task="verrater.bot_turns"\} (\d+)', scraped)
    assert took is not None and int(took.group(1)) > 0
    assert "process_cpu_seconds_total" in scraped
    assert "verrater_commands_total" not in scraped  # the game service's, all 0 in a worker


async def scrape(port: int) -> str:
    def get() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            return str(reply.read().decode())

    try:
        return await asyncio.to_thread(get)
    except OSError:
        return ""  # not listening yet


async def test_a_worker_killed_mid_move_is_replaced_and_the_bot_moves_exactly_once(
    fresh_redis_url: str,
) -> None:
    broker = redis.Redis.from_url(fresh_redis_url)
    async with stack(fresh_redis_url) as s:
        organiser = await guest(s, "Organiser")
        with celery_worker(
            fresh_redis_url,
            s.address,
            VERRATER_BOT_MIN_THINK_MS="4000",
            VERRATER_TASK_VISIBILITY="2",
        ) as slow:
            table = await bot_table(s, organiser, 4, sits_out=True)
            # Wait until the slow worker holds the first bot task (reserved, not acknowledged).
            async with asyncio.timeout(30):
                while not broker.hlen("unacked"):
                    await asyncio.sleep(0.05)
            os.killpg(slow.pid, signal.SIGKILL)
            slow.wait()
        assert s.backend.game is not None
        store = s.backend.game.store
        assert await _decisions(store, table.game_id) == []  # the killed worker never moved
        with celery_worker(fresh_redis_url, s.address, VERRATER_TASK_VISIBILITY="2"):
            final = await asyncio.wait_for(
                follow_to_the_end(s, table.game_id, organiser, {}), timeout=180
            )
        assert list(final.winners)
        decisions = await _decisions(store, table.game_id)
        versions = [version for version, _ in decisions]
        assert len(versions) == len(set(versions))
        stored = await store.read(table.game_id)
        assert [item.version for item in stored] == list(range(1, len(stored) + 1))
        report = audit([LogEntry.from_stored(item) for item in stored])
        assert report.ok, report.summary()
    broker.close()


async def test_embedded_bots_play_in_process_and_suggest_moves() -> None:
    async with stack(None) as s:
        human = await guest(s, "Solo")
        table = await bot_table(s, human, 3)
        seat, token = await seat_token(s, table.table_id, human)
        spectator = await guest(s, "Watcher")
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await s.ai.SuggestMove(
                ai_pb2.SuggestMoveRequest(game_id=table.game_id), metadata=spectator
            )
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # Wait for the human's turn, ask for a hint, and play it.
        updates = s.game.Watch(
            game_pb2.WatchRequest(game_id=table.game_id, mode=game_pb2.WATCH_MODE_EVENTS),
            metadata=token,
        )
        async with asyncio.timeout(30):
            async for response in updates:
                if response.update.HasField("view") and seat in response.update.view.turn.seats:
                    break
        updates.cancel()
        hint = await s.ai.SuggestMove(
            ai_pb2.SuggestMoveRequest(game_id=table.game_id, level=events_pb2.BOT_LEVEL_NORMAL),
            metadata=token,
        )
        mine = (
            await s.game.GetView(game_pb2.GetViewRequest(game_id=table.game_id), metadata=token)
        ).view
        assert hint.command in list(mine.legal)
        assert hint.reason
        await s.game.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=table.game_id,
                expected_version=hint.version,
                command_id="hint-1",
                command=hint.command,
            ),
            metadata=token,
        )
        final = await asyncio.wait_for(
            follow_to_the_end(s, table.game_id, token, {seat: token}), timeout=120
        )
        assert list(final.winners)


async def test_expert_bots_sit_at_a_table_play_it_out_and_hint_with_a_reason() -> None:
    async with stack(None) as s:
        human = await guest(s, "Student")
        table = await bot_table(s, human, 3, level=events_pb2.BOT_LEVEL_EXPERT)
        assert [seat.bot_level for seat in table.seats].count(events_pb2.BOT_LEVEL_EXPERT) == 3
        seat, token = await seat_token(s, table.table_id, human)
        turns = s.game.Watch(
            game_pb2.WatchRequest(game_id=table.game_id, mode=game_pb2.WATCH_MODE_TURNS),
            metadata=token,
        )
        turn = (await asyncio.wait_for(turns.read(), timeout=30)).update
        turns.cancel()
        assert seat in turn.view.turn.seats
        levels = [other.bot_level for other in turn.view.seats]
        assert levels.count(events_pb2.BOT_LEVEL_EXPERT) == 3
        hint = await s.ai.SuggestMove(
            ai_pb2.SuggestMoveRequest(game_id=table.game_id, level=events_pb2.BOT_LEVEL_EXPERT),
            metadata=token,
        )
        assert hint.command in list(turn.view.legal)
        assert hint.reason
        if len(turn.view.legal) > 1:
            assert "sampled rounds" in hint.reason, hint.reason
        final = await asyncio.wait_for(
            follow_to_the_end(s, table.game_id, token, {seat: token}), timeout=120
        )
        assert list(final.winners)


async def test_a_five_second_table_shows_the_deadline_and_a_bot_decides_at_it() -> None:
    async with stack(None) as s:
        human = await guest(s, "Sleepy")
        table = await bot_table(s, human, 3, turn_seconds=5)
        seat, token = await seat_token(s, table.table_id, human)
        assert s.backend.game is not None
        store = s.backend.game.store
        turns = s.game.Watch(
            game_pb2.WatchRequest(game_id=table.game_id, mode=game_pb2.WATCH_MODE_TURNS),
            metadata=token,
        )
        turn = (await asyncio.wait_for(turns.read(), timeout=30)).update
        turns.cancel()
        assert seat in turn.view.turn.seats
        # The clock starts when the game came to rest at the seat's decision: the append time of
        # the batch that led there, as the log records it.
        records = [decode_record(item.payload) for item in await store.read(table.game_id)]
        rest_since = [r.recorded_at_ms for r in records[: turn.version] if r.recorded_at_ms][-1]
        deadline = turn.view.turn.deadline.ToMilliseconds()
        assert deadline == rest_since + 5000
        # GetView says the same.
        now = await s.game.GetView(game_pb2.GetViewRequest(game_id=table.game_id), metadata=token)
        assert now.view.turn.deadline.ToMilliseconds() == deadline
        # Every view carries the table's time per decision, what a countdown never exceeds.
        assert turn.view.turn_seconds == now.view.turn_seconds == 5

        async def timed_out() -> list[tuple[int, int]]:
            records = [decode_record(item.payload) for item in await store.read(table.game_id)]
            return [
                (deciding_seat(r.event) or 0, r.recorded_at_ms)
                for r in records
                if r.turn_timer_expired
            ]

        async with asyncio.timeout(30):
            while not await timed_out():
                await asyncio.sleep(0.1)
        [(decided_for, decided_at)] = (await timed_out())[:1]
        assert decided_for == seat
        assert decided_at >= deadline, "a bot never decides for a person before the deadline"
