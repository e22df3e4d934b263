"""Running game servers on loopback and scripted clients that play through the public API."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import grpc
from grpc import aio

from services.api.verrater.v1 import commands_pb2, game_pb2, game_pb2_grpc, view_pb2
from services.bootstrap import Backend, start_backend
from services.config import Config
from services.engine import Event, fold
from services.eventstore import EventStore
from services.rpc import Role, TokenIssuer, bearer

SECRET = "test-secret-not-for-production-32-bytes-long"


@dataclass
class Client:
    """A gRPC client of one server, holding the tokens it uses."""

    channel: aio.Channel
    stub: game_pb2_grpc.GameServiceStub
    issuer: TokenIssuer

    def service_metadata(self) -> tuple[tuple[str, str]]:
        return bearer(self.issuer.mint("lobby", role=Role.SERVICE))

    def seat_metadata(self, game_id: str, seat: int) -> tuple[tuple[str, str]]:
        return bearer(self.issuer.mint(f"player-{seat}", game_id=game_id, seat=seat))

    def spectator_metadata(self) -> tuple[tuple[str, str]]:
        return bearer(self.issuer.mint("spectator"))

    async def create_game(self, players: int, **fields: object) -> str:
        response = await self.stub.CreateGame(
            game_pb2.CreateGameRequest(players=players, **fields),  # type: ignore[arg-type]
            metadata=self.service_metadata(),
        )
        return response.game_id

    async def view(self, game_id: str, seat: int | None) -> view_pb2.PlayerView:
        metadata = self.spectator_metadata() if seat is None else self.seat_metadata(game_id, seat)
        answer = await self.stub.GetView(
            game_pb2.GetViewRequest(game_id=game_id), metadata=metadata
        )
        return answer.view

    async def submit(
        self,
        game_id: str,
        seat: int,
        command: commands_pb2.Command,
        expected_version: int,
        command_id: str | None = None,
    ) -> game_pb2.SubmitCommandResponse:
        return await self.stub.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=expected_version,
                command_id=command_id or uuid.uuid4().hex,
                command=command,
            ),
            metadata=self.seat_metadata(game_id, seat),
        )


@asynccontextmanager
async def running_server(
    store: EventStore, clock: Callable[[], float] = time.time, *, command_rate: float = 0
) -> AsyncIterator[tuple[Backend, Client]]:
    """A game server on a free loopback port and a client connected to it; `clock` is the
    wall clock its tokens expire by, `command_rate` each player's commands a second (0: no
    limit)."""
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, bots="off", command_rate=command_rate)
    issuer = config.issuer
    server = await start_backend(config, frozenset({"game"}), event_store=store, clock=clock)
    channel = aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield server, Client(channel, game_pb2_grpc.GameServiceStub(channel), issuer)
    finally:
        await channel.close()
        await server.stop(None)


@dataclass
class ScriptedGame:
    """Scripted players: each seat picks a random option from the legal list its view shows."""

    client: Client
    game_id: str
    rng: random.Random
    decisions: int = 0
    versions_seen: list[int] = field(default_factory=list)

    async def step(self) -> view_pb2.PlayerView:
        """One decision by whoever must act; returns the acting seat's view afterwards."""
        spectator = await self.client.view(self.game_id, None)
        seat = spectator.turn.seats[0]
        mine = await self.client.view(self.game_id, seat)
        assert mine.legal, "the seat to act is offered legal commands"
        command = self.rng.choice(list(mine.legal))
        response = await self.client.submit(self.game_id, seat, command, mine.version)
        self.decisions += 1
        self.versions_seen.append(response.version)
        return response.view

    async def play_to_end(self, max_decisions: int = 400) -> view_pb2.PlayerView:
        for _ in range(max_decisions):
            spectator = await self.client.view(self.game_id, None)
            if not spectator.turn.seats:
                return spectator
            await self.step()
        raise AssertionError("the game did not end")


def assert_only_own_secrets(
    views: list[view_pb2.PlayerView], events: list[Event], seat: int
) -> None:
    """Each of `seat`'s views holds exactly the seat's own secrets at its version, and no one
    else's: its own hand and pick, and other seats' picks only once revealed."""
    for view in views:
        state = fold(events[: view.version])
        assert view.seat == seat
        assert list(view.hand.cards) == list(state.hands[seat])
        if not state.revealed:
            assert not any(other.HasField("revealed_pick") for other in view.seats)
        if view.HasField("pick"):
            assert state.picks[seat] is not None


def status_of(error: grpc.aio.AioRpcError) -> grpc.StatusCode:
    return error.code()
