"""Playing a bot seat's turn through the public game API, exactly once.

The announcing replica puts the seat's view (and the game's ruleset) into the turn, so a bot
usually decides at once and submits with one call: the view's version as the expected version
and a command id derived from (game, seat, version). A stale view means ABORTED: the bot reads
the view again and retries. A turn that runs twice (a redelivery after a worker died, a
re-announced turn) submits the same command id again and gets the recorded answer, so the bot
never moves twice.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import random
import time
from collections import OrderedDict
from dataclasses import dataclass

import grpc
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, ruleset_pb2, view_pb2
from services.codec import command_to_proto, ruleset_from_proto, view_from_proto
from services.engine import Ruleset
from services.rpc import Role, TokenIssuer, bearer

from .ismcts import IsmctsPolicy
from .levels import policy_for_level

log = logging.getLogger("verrater.ai")

MAX_ATTEMPTS = 5
#: Seat tokens: minted for five minutes, used for four, at most this many kept.
TOKEN_TTL_S = 300
TOKEN_REUSE_S = 240
TOKEN_CACHE = 4096
#: Channel options for the game service: `dns:///` names (and `ipv4:a,b` lists) resolve to every
#: replica and calls spread over them, instead of all going to the first address.
CHANNEL_OPTIONS = (("grpc.lb_policy_name", "round_robin"),)


def game_channel(address: str) -> aio.Channel:
    """A channel to the game service that balances calls over its replicas."""
    return aio.insecure_channel(address, options=CHANNEL_OPTIONS)


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One decision a bot owes: for `seat` of `game_id`, as of game `version`.

    `turn_timer_expired` marks a human seat whose timer ran out: the bot acts only if the game
    is still at `version` (the human has not moved meanwhile). `view` and `ruleset` are the
    seat's serialized `PlayerView` at `version` and the game's `Ruleset`, when the announcer
    had them (empty: the bot reads them).
    """

    game_id: str
    seat: int
    version: int
    level: str
    turn_timer_expired: bool = False
    view: bytes = b""
    ruleset: bytes = b""

    @property
    def command_id(self) -> str:
        return command_id(self.game_id, self.seat, self.version)

    def as_kwargs(self) -> dict[str, object]:
        """JSON-safe keyword arguments of the `verrater.bot_turn` task."""
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "version": self.version,
            "level": self.level,
            "turn_timer_expired": self.turn_timer_expired,
            "view": base64.b64encode(self.view).decode(),
            "ruleset": base64.b64encode(self.ruleset).decode(),
        }

    @classmethod
    def from_kwargs(
        cls,
        *,
        game_id: str,
        seat: int,
        version: int,
        level: str,
        turn_timer_expired: bool = False,
        view: str = "",
        ruleset: str = "",
    ) -> BotTurn:
        return cls(
            game_id,
            seat,
            version,
            level,
            turn_timer_expired,
            base64.b64decode(view),
            base64.b64decode(ruleset),
        )


def command_id(game_id: str, seat: int, version: int) -> str:
    """The one command id of a bot's decision for `seat` at `version`: every run of the turn
    uses it, so the decision is applied at most once."""
    return f"bot:{game_id}:{seat}:{version}"


#: Rulesets a client remembers: of the games it played bot turns in lately (a worker lives for
#: many games; one forgotten costs a GetRuleset call).
RULESETS_KEPT = 1024


class GameClient:
    """The game API as the AI service uses it: service tokens that name the bot's seat."""

    def __init__(
        self, address: str, issuer: TokenIssuer, *, rulesets_kept: int = RULESETS_KEPT
    ) -> None:
        self._channel = game_channel(address)
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._issuer = issuer
        self._rulesets: OrderedDict[str, Ruleset] = OrderedDict()
        self._rulesets_kept = rulesets_kept
        self._tokens: OrderedDict[tuple[str, int], tuple[tuple[tuple[str, str]], float]] = (
            OrderedDict()
        )

    def _seat_token(self, game_id: str, seat: int) -> tuple[tuple[str, str]]:
        """A token for the seat, reused while it has most of its life left: the game service
        verifies a token it has seen before from its cache, a new one with an HMAC."""
        now = time.monotonic()
        known = self._tokens.get((game_id, seat))
        if known is not None and known[1] > now:
            self._tokens.move_to_end((game_id, seat))
            return known[0]
        token = self._issuer.mint(
            "ai", role=Role.SERVICE, game_id=game_id, seat=seat, ttl_seconds=TOKEN_TTL_S
        )
        metadata = bearer(token)
        self._tokens[(game_id, seat)] = (metadata, now + TOKEN_REUSE_S)
        while len(self._tokens) > TOKEN_CACHE:
            self._tokens.popitem(last=False)
        return metadata

    async def view(self, game_id: str, seat: int) -> view_pb2.PlayerView:
        request = game_pb2.GetViewRequest(game_id=game_id)
        answer = await self._stub.GetView(
            request, metadata=self._seat_token(game_id, seat), timeout=10
        )
        return answer.view

    async def ruleset(self, game_id: str, known: bytes = b"") -> Ruleset:
        """The game's ruleset: cached, else decoded from `known`, else asked for."""
        ruleset = self._rulesets.get(game_id)
        if ruleset is None:
            if known:
                message = ruleset_pb2.Ruleset.FromString(known)
            else:
                answer = await self._stub.GetRuleset(
                    game_pb2.GetRulesetRequest(game_id=game_id), timeout=10
                )
                message = answer.ruleset
            ruleset = self._rulesets[game_id] = ruleset_from_proto(message)
            while len(self._rulesets) > self._rulesets_kept:
                self._rulesets.popitem(last=False)
        self._rulesets.move_to_end(game_id)
        return ruleset

    async def submit(self, turn: BotTurn, view: view_pb2.PlayerView, command: object) -> None:
        await self._stub.SubmitCommand(
            game_pb2.SubmitCommandRequest(
                game_id=turn.game_id,
                expected_version=view.version,
                command_id=command_id(turn.game_id, turn.seat, view.version),
                command=command,  # type: ignore[arg-type]
                turn_timer_expired=turn.turn_timer_expired,
                version_only=True,
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
    ruleset = await client.ruleset(turn.game_id, turn.ruleset)
    policy = policy_for_level(turn.level)
    message = view_pb2.PlayerView.FromString(turn.view) if turn.view else None
    for _ in range(MAX_ATTEMPTS):
        if message is None:
            message = await client.view(turn.game_id, turn.seat)
        if turn.turn_timer_expired and message.version != turn.version:
            return False  # the human moved in time
        if turn.seat not in message.turn.seats:
            return False  # already decided (by an earlier run of this task, or anyone)
        view = view_from_proto(message)
        rng = random.Random(command_id(turn.game_id, turn.seat, message.version))
        if min_think_s > 0 or isinstance(policy, IsmctsPolicy):
            # Search policies think for a while: keep the event loop free meanwhile.
            choice, _ = await asyncio.gather(
                asyncio.to_thread(policy.choose, view, ruleset, rng), asyncio.sleep(min_think_s)
            )
        else:
            choice = policy.choose(view, ruleset, rng)
        try:
            await client.submit(turn, message, command_to_proto(choice.command))
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.ABORTED:
                message = None  # someone else moved first, or the view was stale: read again
                continue
            raise
        log.debug(
            "bot %s (seat %d of %s) played at version %d: %s",
            turn.level,
            turn.seat,
            turn.game_id,
            message.version,
            choice.reason,
        )
        return True
    return False
