"""The AI's game client remembers the rulesets of the games it played lately, not of every game
a long-lived worker ever played."""

from __future__ import annotations

from services.ai.turns import BotTurn, GameClient
from services.api.verrater.v1 import game_pb2
from services.codec import ruleset_to_proto
from services.engine import Ruleset
from services.rpc import TokenIssuer


class CountingGame:
    """The one call of the game service `ruleset` makes, counted."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def GetRuleset(  # noqa: N802  # the RPC's name
        self, request: game_pb2.GetRulesetRequest, timeout: float
    ) -> game_pb2.GetRulesetResponse:
        self.asked.append(request.game_id)
        return game_pb2.GetRulesetResponse(ruleset=ruleset_to_proto(Ruleset.standard(4)))


async def test_the_rulesets_of_the_games_played_lately_are_kept_and_no_more() -> None:
    client = GameClient("127.0.0.1:1", TokenIssuer("a" * 32), rulesets_kept=2)
    game = CountingGame()
    client._stub = game  # type: ignore[assignment]
    try:
        for game_id in ("g1", "g2", "g1", "g3", "g1", "g2"):
            assert (await client.ruleset(BotTurn(game_id, 0, 1, "normal"))).players == 4
    finally:
        await client.close()
    # g1 stays (used lately); g2 went when g3 came, so it is asked for again.
    assert game.asked == ["g1", "g2", "g3", "g2"]
