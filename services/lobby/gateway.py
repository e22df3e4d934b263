"""The lobby's side of the game service: creating games and reading how they stand over gRPC,
checking sandbox setups."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, view_pb2
from services.codec import MalformedMessage, bot_level_to_proto, setup_from_proto
from services.engine import (
    CreateGame,
    Ruleset,
    RuleViolation,
    SeatAssignment,
    execute,
    initial_state,
    new_seed,
)
from services.errors import Reason, ServiceError
from services.rpc import Role, TokenIssuer, bearer

from .model import GameProgress
from .store import LobbyUnavailable

#: How long a call to the game service may take before the lobby answers UNAVAILABLE.
CREATE_TIMEOUT_S = 10.0
VIEW_TIMEOUT_S = 5.0
#: Service tokens live as long as one call.
SERVICE_TOKEN_TTL_S = 300


def setup_to_dict(setup: events_pb2.ExplicitSetup) -> dict[str, Any]:
    """A sandbox setup as JSON-able data (how the lobby keeps it with the table)."""
    return json_format.MessageToDict(setup, preserving_proto_field_name=True)


def setup_from_dict(data: dict[str, Any]) -> events_pb2.ExplicitSetup:
    return json_format.ParseDict(data, events_pb2.ExplicitSetup())


def progress_from_view(view: view_pb2.PlayerView, seat: int | None) -> GameProgress:
    """Where the game stands for `seat`, from that seat's view."""
    deadline = view.turn.deadline.ToMilliseconds() if view.turn.HasField("deadline") else None
    if view.phase != events_pb2.PHASE_GAME_OVER:
        return GameProgress(
            round=view.round,
            version=view.version,
            your_turn=seat is not None and seat in view.turn.seats,
            deadline_ms=deadline,
        )
    vps = [each.vp for each in view.seats]
    if seat is None or not 0 <= seat < len(vps):
        return GameProgress(round=view.round, version=view.version, finished=True)
    return GameProgress(
        round=view.round,
        version=view.version,
        finished=True,
        final_vp=vps[seat],
        # Competition ranking: the winners (most VP) are 1, equal VP share a rank (1, 1, 3).
        rank=1 + sum(vp > vps[seat] for vp in vps),
    )


def validate_setup(players: int, data: dict[str, Any]) -> None:
    """Refuse a sandbox setup the rules would refuse, when the table is opened, not at start."""
    try:
        setup = setup_from_proto(setup_from_dict(data))
        execute(initial_state(), CreateGame(Ruleset.standard(players), new_seed(), setup))
    except (MalformedMessage, json_format.ParseError) as error:
        raise ServiceError(
            Reason.MALFORMED_REQUEST, f"setup is malformed: {error}", field="setup"
        ) from error
    except RuleViolation as violation:
        raise ServiceError(
            Reason.INVALID_SETUP, f"setup: {violation.message}", field="setup"
        ) from violation


class GrpcGameGateway:
    """Creates games through the game service's public API with a service token."""

    def __init__(self, address: str, issuer: TokenIssuer) -> None:
        # `dns:///` names (and `ipv4:a,b` lists) resolve to every game replica: spread the calls.
        self._channel = aio.insecure_channel(
            address, options=(("grpc.lb_policy_name", "round_robin"),)
        )
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._issuer = issuer

    async def create_game(
        self,
        game_id: str,
        *,
        players: int,
        builder_may_move: bool,
        setup: dict[str, Any] | None,
        seats: tuple[SeatAssignment, ...],
        ranked: bool,
        turn_seconds: int,
    ) -> None:
        request = game_pb2.CreateGameRequest(
            game_id=game_id,
            players=players,
            builder_may_move=builder_may_move,
            seats=[
                events_pb2.SeatAssignment(
                    player_id=seat.player_id,
                    name=seat.name,
                    bot_level=bot_level_to_proto(seat.bot_level),
                )
                for seat in seats
            ],
            ranked=ranked,
            turn_seconds=turn_seconds,
        )
        if setup is not None:
            request.setup.CopyFrom(setup_from_dict(setup))
        token = self._issuer.mint("lobby", role=Role.SERVICE, ttl_seconds=SERVICE_TOKEN_TTL_S)
        try:
            await self._stub.CreateGame(request, metadata=bearer(token), timeout=CREATE_TIMEOUT_S)
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.ALREADY_EXISTS:
                return  # a repeated start: the game is there, which is all we wanted
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise LobbyUnavailable(
                    f"the game service is unavailable, retry starting: {error.details()}",
                    Reason.GAME_SERVICE_UNAVAILABLE,
                ) from error
            raise ServiceError(
                Reason.GAME_REFUSED, f"the game service refused the game: {error.details()}"
            ) from error

    async def progress(self, game_id: str, seat: int | None) -> GameProgress | None:
        # A service token bound to the seat: the view that seat's player would get.
        token = self._issuer.mint(
            "lobby", role=Role.SERVICE, game_id=game_id, seat=seat, ttl_seconds=SERVICE_TOKEN_TTL_S
        )
        try:
            answer = await self._stub.GetView(
                game_pb2.GetViewRequest(game_id=game_id),
                metadata=bearer(token),
                timeout=VIEW_TIMEOUT_S,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.NOT_FOUND:
                return None
            raise LobbyUnavailable(
                f"the game service could not be asked about game {game_id}, retry: "
                f"{error.details()}",
                Reason.GAME_SERVICE_UNAVAILABLE,
            ) from error
        return progress_from_view(answer.view, seat)

    async def close(self) -> None:
        await self._channel.close()
