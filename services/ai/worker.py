"""Celery: bot moves computed by workers, with Redis as broker and result backend.

Two tasks:
- `verrater.compute_move(view, ruleset, level)`: pure. A serialized `verrater.v1.PlayerView`
  and `verrater.v1.Ruleset` in, a serialized `verrater.v1.Command` and a reason out. Anyone with
  access to the broker may use it for their own bots.
- `verrater.bot_turn(game_id, seat, version, level, turn_timer_expired)`: play a bot seat's turn
  through the game API (`services.ai.turns`). Acknowledged only after it ran (`acks_late`), so
  a worker that dies mid-task has the task redelivered; the command id makes the redelivery
  harmless.

Run a worker with `verrater worker` (REDIS_URL, VERRATER_GAME_ADDR, VERRATER_TOKEN_SECRET).
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
from typing import Any

from celery import Celery

from services.api.verrater.v1 import ruleset_pb2, view_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.rpc import DEVELOPMENT_SECRET, TokenIssuer

from .levels import policy_for_level
from .turns import BotTurn, GameClient, play_bot_turn

#: Seconds before the broker hands an unacknowledged task (its worker died) to another worker.
VISIBILITY_TIMEOUT_DEFAULT = 30


def make_app(redis_url: str | None = None) -> Celery:
    url = redis_url or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    visibility = int(os.environ.get("VERRATER_TASK_VISIBILITY", VISIBILITY_TIMEOUT_DEFAULT))
    app = Celery("verrater", broker=url, backend=url)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=3600,
        broker_transport_options={"visibility_timeout": visibility},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    app.task(name="verrater.compute_move")(compute_move)
    app.task(name="verrater.bot_turn")(bot_turn)
    return app


def compute_move(view: str, ruleset: str, level: str, seed: int | None = None) -> dict[str, Any]:
    """A move for the seat whose view this is (base64 protobuf in and out, JSON-safe)."""
    player_view = view_from_proto(view_pb2.PlayerView.FromString(base64.b64decode(view)))
    rules = ruleset_from_proto(ruleset_pb2.Ruleset.FromString(base64.b64decode(ruleset)))
    choice = policy_for_level(level).choose(player_view, rules, random.Random(seed))
    command = command_to_proto(choice.command).SerializeToString()
    return {"command": base64.b64encode(command).decode(), "reason": choice.reason}


def bot_turn(
    game_id: str, seat: int, version: int, level: str, turn_timer_expired: bool = False
) -> bool:
    """Play one bot turn through the game API; True when the bot moved."""
    turn = BotTurn(game_id, seat, version, level, turn_timer_expired)
    address = os.environ.get("VERRATER_GAME_ADDR", "127.0.0.1:50051")
    issuer = TokenIssuer(os.environ.get("VERRATER_TOKEN_SECRET", DEVELOPMENT_SECRET))
    think_s = float(os.environ.get("VERRATER_BOT_MIN_THINK_MS", "0")) / 1000

    async def run() -> bool:
        client = GameClient(address, issuer)
        try:
            return await play_bot_turn(client, turn, think_s)
        finally:
            await client.close()

    return asyncio.run(run())


app = make_app()
