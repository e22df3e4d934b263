"""A whole backend under fuzzing, on its own event loop in a thread of the test process, with a
canary game played beside the fuzzing.

Hypothesis drives its examples from the test's (synchronous) thread; each call, and each look
at the stores before and after it, runs on the arena's loop. The stores are read directly: a
refused request must leave the games' logs and the lobby's tables exactly as they were.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from grpc import aio

from services.ai.server import AiServicer
from services.api.verrater.v1 import commands_pb2, game_pb2, game_pb2_grpc, view_pb2
from services.bench.answers import PLAY_PATH, Answer, send
from services.bench.common import percentile
from services.bench.game import Tally, play_games
from services.bench.hostile import HostileCall, Method, Targets
from services.bootstrap import Backend, start_backend
from services.codec import command_to_proto, view_to_proto
from services.config import Config
from services.engine import SeatAssignment, legal_commands, to_act
from services.errors import Reason
from services.game.server import GameServicer
from services.game.service import NewGame
from services.lobby.model import Table
from services.lobby.server import LobbyServicer
from services.rpc import DOMAIN, STATUS_CODES, Identity, InvalidToken, TokenIssuer
from services.stats.server import StatsServicer

SECRET = "hostile-arena-secret-at-least-32-bytes!!"
NEVER = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
PEER = "127.0.0.1"
T = TypeVar("T")


def implemented(method: Method) -> bool:
    """Whether our servicer implements the RPC (else the generated placeholder stands in, and
    the server answers UNIMPLEMENTED, as for a method it does not know)."""
    service, name = method.path.strip("/").split("/")
    for servicer in (AiServicer, GameServicer, LobbyServicer, StatsServicer):
        for base in servicer.__mro__[1:]:
            if base.__name__ == f"{service.rpartition('.')[2]}Servicer":
                return bool(getattr(servicer, name) is not getattr(base, name))
    raise AssertionError(f"no servicer serves {method.path}")


@dataclass(frozen=True)
class Turn:
    """A decision a game awaits: the seats to act (the first decides here), at a version."""

    seats: tuple[int, ...]
    version: int
    legal: list[commands_pb2.Command]


@dataclass
class Canary:
    """Games played back to back beside the fuzzing, over Play streams, as a player would."""

    tally: Tally = field(default_factory=Tally)
    task: asyncio.Task[None] | None = None

    def p99_ms(self) -> float:
        return percentile(self.tally.latencies_ms, 0.99)


class Arena:
    """A backend on `kind` ("memory" or "redis") stores, the fuzzing's targets in it (see
    `_prepare`), and a canary game beside them."""

    def __init__(self, kind: str, redis_url: str | None) -> None:
        self.kind = kind
        self._redis_url = redis_url
        self.issuer = TokenIssuer(SECRET)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"arena-{kind}")
        self._thread.start()
        self.canary = Canary()
        self.backend: Backend
        self.channel: aio.Channel
        self.targets: Targets
        # Games whose every event is compared (no bot, no timer moves them but a request), and
        # ids of games that do not exist (a refused request must not create them).
        self._games: tuple[str, ...] = ()
        self._absent_games = ("fz-absent",)
        self._players: tuple[str, ...] = ()
        self.run(self._start())

    def run(self, work: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        """Run `work` on the arena's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout)

    async def _start(self) -> None:
        config = Config(
            bind="127.0.0.1:0",
            token_secret=SECRET,
            redis_url=self._redis_url,
            # Rate limits would refuse most of the fuzzing before it reaches a handler; they
            # have tests of their own.
            command_rate=0,
            lobby_rate=0,
            guest_rate=0,
            guest_global_rate=0,
            signin_rate=0,
            signin_peer_rate=0,
        )
        self.backend = await start_backend(config)
        self.channel = aio.insecure_channel(f"127.0.0.1:{self.backend.port}")
        await self._prepare()
        stub: game_pb2_grpc.GameServiceAsyncStub = game_pb2_grpc.GameServiceStub(self.channel)
        self.canary.task = asyncio.create_task(
            play_games(
                stub,
                self.issuer,
                think_ms=5,
                api="play",
                rng=random.Random(7),
                tally=self.canary.tally,
            )
        )

    def _me(self, player_id: str) -> Identity:
        return self.issuer.verify(self.issuer.mint(player_id))

    async def _prepare(self) -> None:
        """Players, tables (open, private, started) and games (two fresh, one finished, the
        started table's) for the fuzzing to aim at."""
        lobby, game = self.backend.lobby, self.backend.game
        assert lobby is not None and game is not None
        players = []
        for name in ("Alice", "Bruno", "Clara", "David", "Erika"):
            players.append((await lobby.register_guest(name, PEER)).player.player_id)
        alice, bruno, clara, david, _ = players
        opened = await lobby.create_table(self._me(alice), peer=PEER, size=4)
        private = await lobby.create_table(self._me(bruno), peer=PEER, size=3, private=True)
        started = await lobby.create_table(self._me(alice), peer=PEER, size=4)
        for player in (bruno, clara, david):
            await lobby.join(self._me(player), started.table_id)
        started = await lobby.start(self._me(alice), started.table_id)
        seats = tuple(SeatAssignment(player, f"Seat {i}") for i, player in enumerate(players))
        for game_id, size in (("fz-four", 4), ("fz-three", 3), ("fz-done", 3)):
            await game.start_game(NewGame(players=size, game_id=game_id, seats=seats[:size]))
        rng = random.Random(3)
        while seats_to_act := to_act(state := await game.state("fz-done")):
            seat = seats_to_act[0]
            await game.submit(
                "fz-done",
                seat,
                rng.choice(legal_commands(state, seat)),
                expected_version=state.version,
                command_id=f"done-{state.version}",
            )
        self._games = ("fz-four", "fz-three", "fz-done", started.game_id)
        self._players = tuple(players)
        self.targets = Targets(
            self.issuer,
            game_ids=(*self._games, *self._absent_games),
            table_ids=(opened.table_id, private.table_id, started.table_id, "t-absent"),
            player_ids=(*players, "p-absent"),
        )

    async def state(self) -> dict[str, Any]:
        """What a refused request must not change: the compared games' logs (their heads: the
        hash chains them), whether the absent games exist, the targeted tables, the open tables
        listed, and each player's tables. Tables whose bots are due fill themselves on a timer
        (QuickMatch's `fill_with_bots_after_seconds`) are left out: they change by design."""
        store = self.backend.game.store if self.backend.game is not None else None
        lobby = self.backend.lobby.store if self.backend.lobby is not None else None
        assert store is not None and lobby is not None

        def settled(table: Table | None) -> Table | str | None:
            return "filling" if table is not None and table.fill_bots_at_ms else table

        return {
            "games": {game_id: await store.head(game_id) for game_id in self._games},
            "absent": {game_id: await store.version(game_id) for game_id in self._absent_games},
            "tables": {
                table_id: settled(await lobby.table(table_id))
                for table_id in self.targets.table_ids
            },
            "listed": [
                table.table_id
                for table in await lobby.open_tables(None, 1000)
                if not table.fill_bots_at_ms
            ],
            "mine": {player: await lobby.my_tables(player, 1000) for player in self._players},
        }

    def turn(self, game_id: str) -> Turn | None:
        """Who must decide in the game now, at which version, and what they may send (None
        when the game is over)."""
        assert self.backend.game is not None
        state = self.run(self.backend.game.state(game_id))
        seats = to_act(state)
        if not seats:
            return None
        legal = [command_to_proto(c) for c in legal_commands(state, seats[0])]
        return Turn(seats, state.version, legal)

    def check_unchanged(self, call: HostileCall) -> Answer:
        """Make the call, which must be answered cleanly and change nothing, refused or not (a
        retried command is answered again, and applies nothing)."""
        before = self.run(self.state())
        answer = self.run(send(self.channel, call, first_wait_s=0.1, quiet_s=0.02))
        assert_clean(call, answer)
        assert not answer.write_cut, f"{call}: cut while writing"
        assert self.run(self.state()) == before, f"{call} changed state: {answer}"
        return answer

    def check(self, call: HostileCall) -> Answer:
        """Make the call; assert that it was answered cleanly and, when refused, changed
        nothing (see `assert_clean`)."""
        before = self.run(self.state())
        answer = self.run(send(self.channel, call, first_wait_s=0.1, quiet_s=0.02))
        assert_clean(call, answer)
        if refused_whole(call, answer):
            assert self.run(self.state()) == before, f"a refused request changed state: {call}"
        self.check_views(call, answer)
        return answer

    def check_views(self, call: HostileCall, answer: Answer) -> None:
        """Every view a caller got is its own seat's (or, without a seat, the public one)."""
        identity = self._caller(call)
        for view, game_id in _views(call, answer):
            seat = identity.seat_in(game_id) if identity is not None else None
            if seat is None:
                assert not view.HasField("hand") and not view.legal, f"{call} saw a hand"
                continue
            assert view.seat == seat, f"{call} got seat {view.seat}'s view"
            if call.method.name == "GetView":  # now: the very hand the game deals that seat
                assert self.backend.game is not None
                seen = self.run(self.backend.game.view(game_id, seat))
                assert view.hand == view_to_proto(seen.view, game_id).hand

    def _caller(self, call: HostileCall) -> Identity | None:
        tokens = [value for key, value in call.metadata if key == "authorization"]
        if len(tokens) != 1:
            return None
        try:
            return self.issuer.verify(tokens[0].split(" ")[-1])
        except InvalidToken:
            return None

    def finish_canary(self, timeout: float = 60) -> Canary:
        """Wait for one more canary game to finish (the server still serves it), then stop."""

        async def one_more() -> None:
            task = self.canary.task
            assert task is not None
            finished = len(self.canary.tally.finished)
            async with asyncio.timeout(timeout):
                while len(self.canary.tally.finished) == finished:
                    assert not task.done(), task.exception() if not task.cancelled() else "?"
                    await asyncio.sleep(0.05)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

        self.run(one_more(), timeout + 10)
        return self.canary

    def close(self) -> None:
        async def stop() -> None:
            if self.canary.task is not None:
                self.canary.task.cancel()
                await asyncio.gather(self.canary.task, return_exceptions=True)
            await self.channel.close()
            await self.backend.stop(None)

        try:
            self.run(stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)
            self._loop.close()


def assert_clean(call: HostileCall, answer: Answer) -> None:
    """Never UNKNOWN or INTERNAL; every refusal carries an ErrorInfo of our domain whose reason
    is a `Reason`, with the status code the table gives it. A method the servicer does not
    implement answers UNIMPLEMENTED, as gRPC does for one it does not know."""
    if answer.refusal is not None and answer.refusal.code is grpc.StatusCode.UNIMPLEMENTED:
        assert not implemented(call.method), f"{call}: UNIMPLEMENTED from a served method"
        return
    for refused in answer.refusals():
        assert refused.code not in NEVER, f"{call}: {refused}"
        assert refused.domain == DOMAIN, f"{call}: a refusal without our ErrorInfo: {refused}"
        assert refused.reason in Reason.__members__, f"{call}: unknown reason {refused}"
        assert STATUS_CODES[Reason(refused.reason)] is refused.code, f"{call}: {refused}"
        assert refused.message, f"{call}: a refusal without a message"


def refused_whole(call: HostileCall, answer: Answer) -> bool:
    """Whether the call as a whole was refused (a Play stream: ended with a refusal before any
    decision of it was applied), so that it must have changed nothing."""
    if answer.status is None or answer.status is grpc.StatusCode.OK:
        return False
    return call.method.path != PLAY_PATH or answer.decisions_applied == 0


def _views(call: HostileCall, answer: Answer) -> list[tuple[view_pb2.PlayerView, str]]:
    """The views in the answer, with their games."""
    name = call.method.name
    views: list[tuple[view_pb2.PlayerView, str]] = []
    for raw in answer.responses:
        if name == "GetView":
            view = game_pb2.GetViewResponse.FromString(raw).view
            views.append((view, view.game_id))
        elif name == "SubmitCommand":
            response = game_pb2.SubmitCommandResponse.FromString(raw)
            if response.HasField("view"):
                views.append((response.view, response.view.game_id))
        elif name == "Watch":
            update = game_pb2.WatchResponse.FromString(raw).update
            if update.HasField("view"):
                views.append((update.view, update.view.game_id))
        elif name == "Play":
            response = game_pb2.PlayResponse.FromString(raw)
            if response.HasField("turn") and response.turn.HasField("view"):
                views.append((response.turn.view, response.turn.view.game_id))
    return views
