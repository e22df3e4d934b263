"""A bot turn forged on the workers' broker cannot play a person's seat.

The workers mint a service token for whatever seat a turn names, so the game service checks
the seat itself: services play bot seats (and the seats of games without seating), and a
person's seat only as a stand-in once its turn timer has run out. Played here through the
workers' own `GameClient` against a real game server, as a worker plays a turn it was sent.
"""

from __future__ import annotations

import grpc
import pytest

from services.ai.turns import BotTurn, CommandRefused, GameClient, play_bot_turn
from services.bench.common import free_port
from services.rpc import TokenIssuer
from tests.bots.test_bot_seats import SECRET, game_of_four_people, sandbox_game, stack
from tests.support.status import reason_of


@pytest.mark.parametrize(
    ("stand_in", "code", "reason"),
    [
        (False, grpc.StatusCode.PERMISSION_DENIED, "PERSONS_SEAT"),
        (True, grpc.StatusCode.FAILED_PRECONDITION, "TURN_TIMER_RUNNING"),
    ],
)
async def test_a_forged_turn_for_a_persons_seat_is_refused_and_changes_nothing(
    stand_in: bool, code: grpc.StatusCode, reason: str
) -> None:
    async with stack(None) as s:
        game_id, seat, version = await game_of_four_people(s)  # no turn timer
        client = GameClient(s.address, TokenIssuer(SECRET))
        try:
            with pytest.raises(CommandRefused) as refused:  # its move, in SubmitCommands
                await play_bot_turn(client, BotTurn(game_id, seat, version, "normal", stand_in))
            # A turn for a seat the services may play goes through on the same client.
            assert await play_bot_turn(client, BotTurn(*await sandbox_game(s), "normal"))
        finally:
            await client.close()
        assert refused.value.code() is code
        assert reason_of(refused.value) == reason
        assert f"seat {seat}" in (refused.value.details() or "")
        assert s.backend.game is not None
        assert await s.backend.game.store.version(game_id) == version, "nothing was appended"


async def test_a_turn_whose_view_does_not_decode_is_dropped_before_any_call() -> None:
    """Junk on the broker costs the game service nothing: nothing listens at the client's
    address, so any call would fail with UNAVAILABLE."""
    client = GameClient(f"127.0.0.1:{free_port()}", TokenIssuer(SECRET))
    try:
        turn = BotTurn("g0123456789ab", 0, 5, "normal", view=b"not a view")
        assert await play_bot_turn(client, turn) is False
    finally:
        await client.close()
