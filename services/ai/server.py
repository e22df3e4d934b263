"""The Ai gRPC service: move suggestions for a caller's own seat.

The suggestion is computed from the view the game service gives *the caller's own token*, so
the AI can never use information the caller could not see: it does not hold a privileged view.
"""

from __future__ import annotations

import asyncio
import random

import grpc

from services.api.verrater.v1 import ai_pb2, ai_pb2_grpc, game_pb2, game_pb2_grpc
from services.codec import (
    bot_level_from_proto,
    command_to_proto,
    ruleset_from_proto,
    view_from_proto,
)
from services.engine import BotLevel
from services.errors import Reason, ServiceError
from services.rpc import METADATA_KEY, Context, authenticated, checked_id, relayed

from .levels import policy_for_level
from .turns import game_channel


class AiServicer(ai_pb2_grpc.AiServiceServicer):
    """SuggestMove over the public game API."""

    def __init__(self, game_address: str) -> None:
        self._channel = game_channel(game_address)
        self._game = game_pb2_grpc.GameServiceStub(self._channel)

    async def SuggestMove(
        self, request: ai_pb2.SuggestMoveRequest, context: Context
    ) -> ai_pb2.SuggestMoveResponse:
        """A legal move for the caller's seat and a short reason."""
        identity = authenticated()
        game_id = checked_id(request.game_id, "game_id")
        if identity.seat_in(game_id) is None:
            raise ServiceError(
                Reason.NOT_YOUR_SEAT,
                f"your token is not bound to a seat in game {game_id!r}; ask the lobby for a "
                "seat token",
            )
        level = bot_level_from_proto(request.level, "level") or BotLevel.NORMAL
        forwarded = tuple(
            (key, value)
            for key, value in context.invocation_metadata() or ()
            if key == METADATA_KEY
        )
        try:
            answer = await self._game.GetView(
                game_pb2.GetViewRequest(game_id=game_id), metadata=forwarded, timeout=10
            )
            rules = await self._game.GetRuleset(
                game_pb2.GetRulesetRequest(game_id=game_id), timeout=10
            )
        except grpc.aio.AioRpcError as error:
            raise relayed(error, Reason.GAME_SERVICE_UNAVAILABLE) from None
        message = answer.view
        if not message.legal:
            raise ServiceError(Reason.NO_DECISION_PENDING, "your seat has no decision to make now")
        choice = await asyncio.to_thread(
            policy_for_level(level).choose,
            view_from_proto(message),
            ruleset_from_proto(rules.ruleset),
            random.Random(),
        )
        return ai_pb2.SuggestMoveResponse(
            command=command_to_proto(choice.command), reason=choice.reason, version=message.version
        )

    async def close(self) -> None:
        await self._channel.close()
