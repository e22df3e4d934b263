"""A person's decision in tests that play games beside bots."""

from __future__ import annotations

import random
import uuid

import grpc

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, view_pb2

Metadata = tuple[tuple[str, str], ...]


async def decide_at_random(
    game: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    view: view_pb2.PlayerView,
    token: Metadata,
    rng: random.Random,
) -> game_pb2.SubmitCommandResponse | None:
    """Submit a random legal command on the seat's `view`; None when the game moved on first
    (ABORTED: at the hand limit several seats discard at once, and a bot may get in first)."""
    try:
        answer: game_pb2.SubmitCommandResponse = await game.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=view.version,
                command_id=uuid.uuid4().hex,
                command=rng.choice(list(view.legal)),
            ),
            metadata=token,
        )
    except grpc.aio.AioRpcError as error:
        if error.code() is not grpc.StatusCode.ABORTED:
            raise
        return None
    return answer
