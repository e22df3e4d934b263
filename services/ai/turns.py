"""Playing a bot seat's turn through the public game API, exactly once.

The bot reads its seat's view with a seat token, lets its policy choose from that view alone,
and submits with the view's version as the expected version and a command id derived from
(game, seat, version). A stale version means re-read and retry; a task that runs twice (a
Celery redelivery after a worker died) submits the same command id again and gets the recorded
answer, so the bot never moves twice.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import OrderedDict
from dataclasses import dataclass

import grpc
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, view_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.engine import Ruleset
from services.rpc import Role, TokenIssuer, bearer

from .levels import policy_for_level

log = logging.getLogger("verrater.ai")

MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One decision a bot owes: for `seat` of `game_id`, as of game `version`.

    `turn_timer_expired` marks a human seat whose timer ran out: the bot acts only if the game
    is still at `version` (the human has not moved meanwhile).
    """

    game_id: str
    seat: int
    version: int
    level: str
    turn_timer_expired: bool = False

    @property
    def command_id(self) -> str:
        return f"bot:{self.game_id}:{self.seat}:{self.version}"

    def as_kwargs(self) -> dict[str, object]:
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "version": self.version,
            "level": self.level,
            "turn_timer_expired": self.turn_timer_expired,
        }


#: Rulesets a client remembers: of the games it played bot turns in lately (a worker lives for
#: many games; one forgotten costs a GetRuleset call).
RULESETS_KEPT = 1024


class GameClient:
    """The game API as the AI service uses it: service tokens that name the bot's seat."""

    def __init__(
        self, address: str, issuer: TokenIssuer, *, rulesets_kept: int = RULESETS_KEPT
    ) -> None:
        self._channel = aio.insecure_channel(address)
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._issuer = issuer
        self._rulesets: OrderedDict[str, Ruleset] = OrderedDict()
        self._rulesets_kept = rulesets_kept

    def _seat_token(self, game_id: str, seat: int) -> tuple[tuple[str, str]]:
        token = self._issuer.mint(
            "ai", role=Role.SERVICE, game_id=game_id, seat=seat, ttl_seconds=300
        )
        return bearer(token)

    async def view(self, game_id: str, seat: int) -> view_pb2.PlayerView:
        request = game_pb2.GetViewRequest(game_id=game_id)
        answer = await self._stub.GetView(
            request, metadata=self._seat_token(game_id, seat), timeout=10
        )
        return answer.view

    async def ruleset(self, game_id: str) -> Ruleset:
        ruleset = self._rulesets.get(game_id)
        if ruleset is not None:
            self._rulesets.move_to_end(game_id)
            return ruleset
        message = await self._stub.GetRuleset(
            game_pb2.GetRulesetRequest(game_id=game_id), timeout=10
        )
        ruleset = self._rulesets[game_id] = ruleset_from_proto(message.ruleset)
        while len(self._rulesets) > self._rulesets_kept:
            self._rulesets.popitem(last=False)
        return ruleset

    async def submit(self, turn: BotTurn, view: view_pb2.PlayerView, command: object) -> None:
        await self._stub.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=turn.game_id,
                expected_version=view.version,
                command_id=f"bot:{turn.game_id}:{turn.seat}:{view.version}",
                command=command,  # type: ignore[arg-type]
                turn_timer_expired=turn.turn_timer_expired,
            ),
            metadata=self._seat_token(turn.game_id, turn.seat),
            timeout=10,
        )

    async def close(self) -> None:
        await self._channel.close()


async def play_bot_turn(client: GameClient, turn: BotTurn, min_think_s: float = 0.0) -> bool:
    """Decide and submit the turn; False when there was nothing (left) to do.

    `min_think_s` makes the bot take at least that long per move (bots that answer instantly
    feel odd to people; operators set it with VERRATER_BOT_MIN_THINK_MS).
    """
    ruleset = await client.ruleset(turn.game_id)
    policy = policy_for_level(turn.level)
    for _ in range(MAX_ATTEMPTS):
        message = await client.view(turn.game_id, turn.seat)
        if turn.turn_timer_expired and message.version != turn.version:
            return False  # the human moved in time
        if turn.seat not in message.turn.seats:
            return False  # already decided (by an earlier run of this task, or anyone)
        view = view_from_proto(message)
        rng = random.Random(f"{turn.command_id}:{message.version}")
        # Search policies think for a while: keep the event loop free meanwhile.
        choice, _ = await asyncio.gather(
            asyncio.to_thread(policy.choose, view, ruleset, rng), asyncio.sleep(min_think_s)
        )
        try:
            await client.submit(turn, message, command_to_proto(choice.command))
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.ABORTED:
                continue  # someone else moved first: read again
            raise
        log.info(
            "bot %s (seat %d of %s) played at version %d: %s",
            turn.level,
            turn.seat,
            turn.game_id,
            message.version,
            choice.reason,
        )
        return True
    return False
