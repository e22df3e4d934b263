"""A bot's move goes to the game replica that announced its turn (VERRATER_ADVERTISE_ADDR),
where the game is in memory at the announced version: only to an address sealed with the token
secret, and through the balanced address when that replica cannot be reached."""

from __future__ import annotations

import asyncio
import socket

import grpc
import pytest

from services.ai.dispatch import BotScheduler
from services.ai.turns import BotTurn, GameClient, play_bot_turn, seal_replica
from services.api.verrater.v1 import view_pb2
from services.bench.common import free_port
from services.config import Config
from services.engine import (
    BotLevel,
    CreateGame,
    Ruleset,
    SeatAssignment,
    execute,
    initial_state,
    to_act,
)
from services.rpc import TokenIssuer
from tests.bots.test_bot_seats import (
    SECRET,
    bot_table,
    celery_worker,
    follow_to_the_end,
    guest,
    sandbox_game,
    stack,
)


def _nobody_listens() -> str:
    return f"127.0.0.1:{free_port()}"


def _turn(game: tuple[str, int, int], replica: str, secret: str = SECRET) -> BotTurn:
    """A bot's turn for the seat that must act in `game` (id, seat, version), naming `replica`
    under a seal made with `secret`."""
    game_id, seat, version = game
    seal = seal_replica(secret, replica)
    return BotTurn(game_id, seat, version, "normal", replica=replica, replica_seal=seal)


def test_a_seal_vouches_for_one_address_under_one_secret() -> None:
    seal = seal_replica(SECRET, "10.0.0.7:50051")
    assert seal == seal_replica(SECRET, "10.0.0.7:50051")
    assert seal != seal_replica(SECRET, "10.0.0.8:50051")
    assert seal != seal_replica("another-secret-of-at-least-32-bytes!", "10.0.0.7:50051")


def test_a_turn_carries_its_replica_through_the_broker_and_omits_it_when_there_is_none() -> None:
    turn = BotTurn("g", 1, 7, "normal", False, b"v", b"r", "10.0.0.7:50051", "ab" * 16)
    assert BotTurn.from_kwargs(**turn.as_kwargs()) == turn  # type: ignore[arg-type]
    plain = BotTurn("g", 1, 7, "normal")
    # Workers of earlier releases take no replica keyword: a turn without one carries none.
    assert "replica" not in plain.as_kwargs()
    assert BotTurn.from_kwargs(**plain.as_kwargs()) == plain  # type: ignore[arg-type]


def test_the_scheduler_puts_its_replica_into_every_turn() -> None:
    seats = tuple(SeatAssignment(f"bot-{n}", f"Bot {n}", BotLevel.NORMAL) for n in range(4))
    _, state = execute(initial_state(), CreateGame(Ruleset.standard(4), bytes(32), seats=seats))
    turns: list[BotTurn] = []
    seal = seal_replica(SECRET, "10.0.0.7:50051")
    announced = BotScheduler(turns.append, ("10.0.0.7:50051", seal)).announce("g", state)
    assert announced == len(to_act(state)) == len(turns) > 0
    BotScheduler(turns.append, ("10.0.0.7:50051", seal)).stand_in("g", 0, state)
    assert {(turn.replica, turn.replica_seal) for turn in turns} == {("10.0.0.7:50051", seal)}
    # A person whose timer ran out is stood in for by the strongest bot, which gets their
    # seat's view and the ruleset with the turn, as a bot's turn does (no call to see them).
    assert (turns[-1].level, turns[-1].turn_timer_expired) == ("expert", True)
    seen = view_pb2.PlayerView.FromString(turns[-1].view)
    assert (seen.seat, seen.version) == (0, state.version) and turns[-1].ruleset


async def test_the_move_goes_to_the_sealed_replica_even_when_the_balanced_address_is_down() -> None:
    async with stack(None) as s:
        game = await sandbox_game(s)
        game_id, _, version = game
        client = GameClient(_nobody_listens(), TokenIssuer(SECRET))
        turn = _turn(game, s.address)
        try:
            assert await play_bot_turn(client, turn)
        finally:
            await client.close()
        assert s.backend.game is not None
        assert await s.backend.game.store.version(game_id) > version


async def test_an_address_without_a_valid_seal_is_never_called() -> None:
    async with stack(None) as s:
        game = await sandbox_game(s)
        game_id, _, version = game
        client = GameClient(_nobody_listens(), TokenIssuer(SECRET))
        forged = _turn(game, s.address, "not-the-secret-but-as-long-as-one!!")
        try:
            # The forged replica is passed over: the call goes to the balanced address, down.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await play_bot_turn(client, forged)
        finally:
            await client.close()
        assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
        assert s.backend.game is not None
        assert await s.backend.game.store.version(game_id) == version


async def test_a_replica_that_cannot_be_reached_is_replaced_by_the_balanced_address() -> None:
    async with stack(None) as s:
        client = GameClient(s.address, TokenIssuer(SECRET))
        gone = _nobody_listens()
        try:
            for _ in range(2):  # the second turn passes over the replica it found gone
                turn = _turn(await sandbox_game(s), gone)
                assert await play_bot_turn(client, turn)
        finally:
            await client.close()


async def test_celery_bots_play_a_whole_game_on_the_replica_that_announced_their_turns(
    fresh_redis_url: str,
) -> None:
    port = free_port()
    own = f"127.0.0.1:{port}"
    async with stack(fresh_redis_url, bind=own, advertise_address=own) as s:
        # The worker's own game address leads nowhere: every move reaches the game only
        # because each turn names the replica that announced it.
        with celery_worker(fresh_redis_url, _nobody_listens()):
            organiser = await guest(s, "Organiser")
            table = await bot_table(s, organiser, 4, sits_out=True)
            final = await asyncio.wait_for(
                follow_to_the_end(s, table.game_id, organiser, {}), timeout=180
            )
    assert list(final.winners)


@pytest.mark.parametrize(
    ("setting", "address"),
    [
        (None, None),
        ("10.0.0.7:6000", "10.0.0.7:6000"),
        ("10.0.0.7", "10.0.0.7:50051"),
        ("game-0.game", "game-0.game:50051"),
        ("fd00::7", "[fd00::7]:50051"),
        ("[fd00::7]:6000", "[fd00::7]:6000"),
    ],
)
def test_the_advertised_address_takes_the_served_port_when_it_names_none(
    setting: str | None, address: str | None
) -> None:
    assert Config(advertise_address=setting).advertised(50051) == address


def test_auto_advertises_what_this_hosts_name_resolves_to() -> None:
    expected = socket.gethostbyname(socket.gethostname())
    assert Config(advertise_address="auto").advertised(7) == f"{expected}:7"
