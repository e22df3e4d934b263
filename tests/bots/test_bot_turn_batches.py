"""Bot turns travel in batches: one Celery message carries the turns a game replica announced
while its previous publish ran or within its publish gap, and a real worker plays every turn in
it, each exactly once."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from typing import Any

import grpc
import pytest
import redis

from services.ai.dispatch import CeleryLauncher
from services.ai.turns import BotTurn, GameClient, command_id
from services.ai.worker import TurnPublisher, make_app, play_turns
from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, view_pb2
from services.bootstrap import worker_settings
from services.codec import decode_record, ruleset_to_proto, view_to_proto
from services.config import Config
from services.engine import deciding_seat, view
from services.eventstore import StoreUnavailable
from services.game.server import GameServicer
from services.rpc import TokenIssuer, bearer
from tests.bots.test_bot_seats import SECRET, celery_worker, sandbox_game, stack
from tests.support.waiting import wait_until


async def test_one_message_carries_many_turns_and_the_worker_plays_each_once(
    fresh_redis_url: str,
) -> None:
    async with stack(fresh_redis_url) as s:
        games = [await sandbox_game(s) for _ in range(5)]
        settings = worker_settings(Config(redis_url=fresh_redis_url, token_secret=SECRET))
        # Turns nobody else announces (games without seating): a bot decides each.
        turns = [BotTurn(game, seat, version, "normal") for game, seat, version in games]
        publisher = TurnPublisher(make_app(settings), settings.queue)
        try:
            await asyncio.to_thread(publisher.publish, turns)
        finally:
            publisher.close()
        with redis.Redis.from_url(fresh_redis_url) as broker:
            messages = broker.lrange(settings.queue, 0, -1)
        assert len(messages) == 1
        message = json.loads(messages[0])
        assert message["headers"]["task"] == "verrater.bot_turns"
        _, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        assert len(kwargs["turns"]) == len(games)
        assert s.backend.game is not None
        store = s.backend.game.store
        with celery_worker(fresh_redis_url, s.address, VERRATER_TOKEN_SECRET=SECRET):
            for game_id, seat, version in games:
                for _ in range(600):
                    if await store.version(game_id) > version:
                        break
                    await asyncio.sleep(0.05)
                decided = await store.read(game_id, after_version=version)
                record = decode_record(decided[0].payload)
                assert record.command_id == command_id(game_id, seat, version), "a bot decided"
                assert deciding_seat(record.event) == seat
                assert decided[0].version == version + 1
        # Each turn ran once: one decision per game at the announced version, none after it.
        for game_id, _, version in games:
            assert await store.version(game_id) == version + 1


def _queued_turns(redis_url: str, queue: str) -> list[list[dict[str, object]]]:
    """The turns (task keyword arguments) each message in the broker's queue carries, oldest
    first."""
    with redis.Redis.from_url(redis_url) as broker:
        messages = [json.loads(raw) for raw in reversed(broker.lrange(queue, 0, -1))]
    return [json.loads(base64.b64decode(m["body"]))[1]["turns"] for m in messages]


def test_a_searching_bots_turn_travels_alone(fresh_redis_url: str) -> None:
    """`hard` bots search for a quarter second of CPU, `expert` bots for a hundredth: each of
    their turns is a message of its own, so they spread over the worker processes; instant
    bots' turns share one."""
    settings = worker_settings(Config(redis_url=fresh_redis_url, token_secret=SECRET))
    levels = ["normal", "hard", "easy", "expert", "normal"]
    turns = [BotTurn(f"game{n}", 1, 7, level) for n, level in enumerate(levels)]
    publisher = TurnPublisher(make_app(settings), settings.queue)
    try:
        publisher.publish(turns)
    finally:
        publisher.close()
    carried = _queued_turns(fresh_redis_url, settings.queue)
    assert [[turn["level"] for turn in turns] for turns in carried] == [
        ["normal", "easy", "normal"],
        ["hard"],
        ["expert"],
    ]


def _turns_per_message(redis_url: str, queue: str) -> list[list[str]]:
    """The game ids of the turns each message in the broker's queue carries, oldest first."""
    return [[turn["game_id"] for turn in turns] for turns in _queued_turns(redis_url, queue)]


def _bots_waited(launcher: CeleryLauncher, seconds: float) -> None:
    """Bots' moves reached the replica this long after the states that awaited them, lately."""
    for _ in range(400):
        launcher.bot_moved(seconds)


async def test_a_replica_publishes_at_most_once_per_gap_and_a_turn_after_a_quiet_spell_at_once(
    fresh_redis_url: str,
) -> None:
    """While bots wait long for their moves (busy workers), the turns announced within the
    publish gap wait and share one message; the first turn after a quiet spell does not wait;
    closing the launcher sends what still waits."""
    settings = worker_settings(Config(redis_url=fresh_redis_url, token_secret=SECRET))
    launcher = CeleryLauncher(make_app(settings), settings.queue, gap_s=60.0)
    _bots_waited(launcher, 240.0)  # half of it, at most the gap: the whole gap
    launcher(BotTurn("first", 1, 7, "normal"))
    await wait_until(  # far less than the gap: the first turn did not wait for it
        lambda: bool(_turns_per_message(fresh_redis_url, settings.queue)), "the first is sent"
    )
    assert _turns_per_message(fresh_redis_url, settings.queue) == [["first"]]
    for n in range(5):
        launcher(BotTurn(f"game{n}", 1, 7, "normal"))
        await asyncio.sleep(0.01)
    # Once the first round is done, the five are held back: the next round is due a gap (60 s)
    # after the first began, and no round is under way until then.
    await wait_until(lambda: launcher.held_until() is not None, "the next round is scheduled")
    held = launcher.held_until()
    assert held is not None and held - asyncio.get_running_loop().time() > 30
    assert _turns_per_message(fresh_redis_url, settings.queue) == [["first"]], "within the gap"
    await launcher.close()
    assert _turns_per_message(fresh_redis_url, settings.queue) == [
        ["first"],
        [f"game{n}" for n in range(5)],
    ]


async def test_while_bots_answer_at_once_no_turn_is_held_back(fresh_redis_url: str) -> None:
    """The hold follows the bots' wait: when their moves come a few milliseconds after the
    states that awaited them (workers keep up), holding turns back would gather next to
    nothing, so every game's turn goes out at once, whatever the gap allows."""
    settings = worker_settings(Config(redis_url=fresh_redis_url, token_secret=SECRET))
    launcher = CeleryLauncher(make_app(settings), settings.queue, gap_s=60.0)
    _bots_waited(launcher, 0.002)
    try:
        for n in range(5):
            launcher(BotTurn(f"game{n}", 1, 7, "normal"))
            for _ in range(200):  # 10 s at most, far less than the gap
                if len(_turns_per_message(fresh_redis_url, settings.queue)) == n + 1:
                    break
                await asyncio.sleep(0.05)
            assert len(_turns_per_message(fresh_redis_url, settings.queue)) == n + 1
    finally:
        await launcher.close()
    assert _turns_per_message(fresh_redis_url, settings.queue) == [[f"game{n}"] for n in range(5)]


async def test_a_lone_games_bots_moving_one_after_another_never_wait_for_the_gap(
    fresh_redis_url: str,
) -> None:
    """A gap gathers other games' turns into a message; with no other game in play there is
    nothing to gather, so each turn of the one game goes out at once, gap or not."""
    settings = worker_settings(Config(redis_url=fresh_redis_url, token_secret=SECRET))
    launcher = CeleryLauncher(make_app(settings), settings.queue, gap_s=60.0)
    _bots_waited(launcher, 240.0)
    try:
        for version in range(1, 6):
            launcher(BotTurn("lone", version % 4, version, "normal"))
            for _ in range(200):  # 10 s at most, far less than the gap
                if len(_turns_per_message(fresh_redis_url, settings.queue)) == version:
                    break
                await asyncio.sleep(0.05)
            assert len(_turns_per_message(fresh_redis_url, settings.queue)) == version
    finally:
        await launcher.close()
    assert _turns_per_message(fresh_redis_url, settings.queue) == [["lone"]] * 5


class _WatchedClient(GameClient):
    """The workers' game client, noting what it asks of the game service: the moves of each
    SubmitCommands call, how many such calls were under way at once (the most ever), and how
    many views had come back when the first move was sent."""

    def __init__(self, address: str) -> None:
        super().__init__(address, TokenIssuer(SECRET))
        self.calls: list[int] = []
        self.calls_at_once = 0
        self.most_calls_at_once = 0
        self.views_read = 0
        self.views_read_at_first_move: int | None = None

    async def view(self, turn: BotTurn) -> view_pb2.PlayerView:
        seen = await super().view(turn)
        self.views_read += 1
        return seen

    async def _answer_together(self, moves: list[Any]) -> None:
        if self.views_read_at_first_move is None:
            self.views_read_at_first_move = self.views_read
        self.calls.append(len(moves))
        self.calls_at_once += 1
        self.most_calls_at_once = max(self.most_calls_at_once, self.calls_at_once)
        try:
            await super()._answer_together(moves)
        finally:
            self.calls_at_once -= 1


async def _announced(s: Any, game_id: str, seat: int, version: int) -> BotTurn:
    """The turn as the announcing replica sends it: with the seat's view and the ruleset."""
    assert s.backend.game is not None
    state = await s.backend.game.state(game_id)
    assert state.version == version
    return BotTurn(
        game_id,
        seat,
        version,
        "normal",
        view=view_to_proto(view(state, seat), game_id).SerializeToString(),
        ruleset=ruleset_to_proto(state.rules).SerializeToString(),
    )


async def test_a_messages_bots_think_together_and_their_moves_reach_the_game_a_call_at_a_time() -> (
    None
):
    """The bots of a message think together (a second each, here), but their moves reach the
    replica one call after another (moves decided while a call is under way go in the next):
    a burst of calls arriving together queued people's commands behind it. Every bot moves."""
    async with stack(None) as s:
        games = [await sandbox_game(s) for _ in range(5)]
        turns = [BotTurn(game, seat, version, "normal") for game, seat, version in games]
        client = _WatchedClient(s.address)
        try:
            moved = await play_turns(client, turns, min_think_s=1.0)
        finally:
            await client.close()
        assert moved == len(turns)
        assert client.most_calls_at_once == 1
        assert sum(client.calls) == len(turns)
        assert client.views_read_at_first_move == len(turns), "the bots thought together"
        assert s.backend.game is not None
        for game_id, _, version in games:
            assert await s.backend.game.store.version(game_id) == version + 1


async def test_the_moves_of_turns_announced_with_their_views_go_in_one_call() -> None:
    """Turns as a replica announces them carry the seats' views: their bots decide at once,
    and all their moves go to the replica in one SubmitCommands call, which it takes one after
    another: one call, not one per move, on the worker and on the replica."""
    async with stack(None) as s:
        turns = [await _announced(s, *await sandbox_game(s)) for _ in range(5)]
        client = _WatchedClient(s.address)
        try:
            moved = await play_turns(client, turns, min_think_s=0.0)
        finally:
            await client.close()
        assert moved == len(turns)
        assert client.calls == [len(turns)]
        assert client.views_read == 0
        assert s.backend.game is not None
        for turn in turns:
            assert await s.backend.game.store.version(turn.game_id) == turn.version + 1


async def test_a_game_service_without_submit_commands_gets_one_call_per_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Workers of this release beside game replicas of an earlier one (a rolling upgrade): the
    replica answers UNIMPLEMENTED, and the moves go one by one in SubmitCommand calls."""
    monkeypatch.setattr(
        GameServicer, "SubmitCommands", game_pb2_grpc.GameServiceServicer.SubmitCommands
    )
    async with stack(None) as s:
        turns = [await _announced(s, *await sandbox_game(s)) for _ in range(3)]
        client = _WatchedClient(s.address)
        try:
            assert await play_turns(client, turns, min_think_s=0.0) == len(turns)
            later = [await _announced(s, *await sandbox_game(s)) for _ in range(2)]
            assert await play_turns(client, later, min_think_s=0.0) == len(later)
        finally:
            await client.close()
        assert client.calls == [len(turns)], "after UNIMPLEMENTED, no more SubmitCommands calls"
        assert s.backend.game is not None
        for turn in [*turns, *later]:
            assert await s.backend.game.store.version(turn.game_id) == turn.version + 1


async def test_a_move_whose_store_is_away_is_left_to_the_replica_that_met_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The replica answers one move of a SubmitCommands call UNAVAILABLE, its game's store being
    away: the others are applied, and the worker does not wait for that store (its process
    would hold every turn queued behind it for as long as a failover): the replica, which met
    the failure, loads the game again once its store answers, and announces its turn again."""
    async with stack(None) as s:
        turns = [await _announced(s, *await sandbox_game(s)) for _ in range(3)]
        assert s.backend.game is not None
        app = s.backend.game
        append = app.store.append
        refused: list[str] = []

        async def store_away_once(game_id: str, *args: Any) -> Any:
            if game_id == turns[1].game_id and not refused:
                refused.append(game_id)
                raise StoreUnavailable("the game's master is failing over")
            return await append(game_id, *args)

        monkeypatch.setattr(app.store, "append", store_away_once)
        client = _WatchedClient(s.address)
        try:
            assert await play_turns(client, turns, min_think_s=0.0) == len(turns) - 1
        finally:
            await client.close()
        assert refused == [turns[1].game_id]
        assert client.calls == [3], "the refused move is not sent again by the worker"
        await wait_until(lambda: app.waiting_for_store == 0, "the replica loaded it again")
        for turn in turns:
            moved = 0 if turn.game_id == turns[1].game_id else 1
            assert await app.store.version(turn.game_id) == turn.version + moved


async def test_a_move_whose_wake_up_cannot_be_set_is_loaded_again_by_the_replica(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wake-up a new state needs is set before its append. When the timers' store does not
    answer (the same Redis restarting), the move is refused STORE_UNAVAILABLE before anything
    is appended, and a worker leaves it to the replica as it does a failed append (the test
    above): so the replica must load the game again once its store answers, and announce its
    turn, as for a failed append. Before, nobody did until the bots' resend wake-up, 3 s later:
    the fault bench's Redis restart stalled a game that long."""
    async with stack(None) as s:
        people = [events_pb2.SeatAssignment(player_id=f"p{n}", name=f"P{n}") for n in range(4)]
        game_id, seat, version = await sandbox_game(s, seats=people, turn_seconds=600)
        assert s.backend.game is not None
        app = s.backend.game
        wake_ups = app._wake_ups
        assert wake_ups is not None
        timers = wake_ups._timers
        set_wake_up = timers.set
        refused: list[str] = []

        async def timers_away_once(game_id: str, *args: Any) -> Any:
            if not refused:
                refused.append(game_id)
                raise StoreUnavailable("turn timers unreachable: the Redis restarts")
            return await set_wake_up(game_id, *args)

        monkeypatch.setattr(timers, "set", timers_away_once)
        person = bearer(TokenIssuer(SECRET).mint(f"p{seat}", game_id=game_id, seat=seat))
        read = game_pb2.GetViewRequest(game_id=game_id)
        view = (await s.game.GetView(read, metadata=person)).view
        submit = game_pb2.SubmitCommandRequest(
            game_id=game_id,
            expected_version=version,
            command_id=uuid.uuid4().hex,
            command=view.legal[0],
        )
        with pytest.raises(grpc.aio.AioRpcError) as away:
            await s.game.SubmitCommand(submit, metadata=person)
        assert away.value.code() is grpc.StatusCode.UNAVAILABLE
        assert refused == [game_id]
        assert await app.store.version(game_id) == version, "nothing was appended"
        assert app.waiting_for_store == 1, "the replica that met the failure loads it again"
        await wait_until(lambda: app.waiting_for_store == 0, "the replica loaded it again")
        await s.game.SubmitCommand(submit, metadata=person)  # the same command, retried
        assert await app.store.version(game_id) > version
