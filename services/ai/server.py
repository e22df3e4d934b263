"""The Ai gRPC service: move suggestions for a caller's own seat.

The suggestion is computed from the view the game service gives *the caller's own token*, so
the AI can never use information the caller could not see: it does not hold a privileged view.
"""

from __future__ import annotations

import asyncio
import random
from typing import NoReturn

import grpc
from grpc import aio

from services.api.verrater.v1 import ai_pb2, ai_pb2_grpc, game_pb2, game_pb2_grpc, lobby_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.rpc.interceptor import Context, caller
from services.rpc.tokens import METADATA_KEY

from .levels import policy_for_level

_LEVELS = {
    lobby_pb2.BOT_LEVEL_UNSPECIFIED: "normal",
    lobby_pb2.BOT_LEVEL_EASY: "easy",
    lobby_pb2.BOT_LEVEL_NORMAL: "normal",
    lobby_pb2.BOT_LEVEL_HARD: "hard",
}


async def _abort(context: Context, code: grpc.StatusCode, message: str) -> NoReturn:
    await context.abort(code, message)
    raise AssertionError("context.abort returns only by raising")


class AiServicer(ai_pb2_grpc.AiServicer):
    """SuggestMove over the public game API."""

    def __init__(self, game_address: str) -> None:
        self._channel = aio.insecure_channel(game_address)
        self._game = game_pb2_grpc.GameStub(self._channel)

    async def SuggestMove(
        self, request: ai_pb2.SuggestMoveRequest, context: Context
    ) -> ai_pb2.Suggestion:
        """A legal move for the caller's seat and a short reason."""
        identity = caller()
        if identity is None:
            await _abort(context, grpc.StatusCode.UNAUTHENTICATED, "this call needs a token")
        if identity.seat_in(request.game_id) is None:
            await _abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"your token is not bound to a seat in game {request.game_id!r}",
            )
        if request.level not in _LEVELS:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, "unknown bot level")
        forwarded = tuple(
            (key, value)
            for key, value in context.invocation_metadata() or ()
            if key == METADATA_KEY
        )
        try:
            message = await self._game.GetView(
                game_pb2.GetViewRequest(game_id=request.game_id), metadata=forwarded, timeout=10
            )
            ruleset = ruleset_from_proto(
                await self._game.GetRuleset(
                    game_pb2.GetRulesetRequest(game_id=request.game_id), timeout=10
                )
            )
        except grpc.aio.AioRpcError as error:
            await _abort(context, error.code(), error.details() or "the game service refused")
        if not message.legal:
            await _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                "your seat has no decision to make now",
            )
        policy = policy_for_level(_LEVELS[request.level])
        choice = await asyncio.to_thread(
            policy.choose, view_from_proto(message), ruleset, random.Random()
        )
        return ai_pb2.Suggestion(
            command=command_to_proto(choice.command), reason=choice.reason, version=message.version
        )

    async def close(self) -> None:
        await self._channel.close()
