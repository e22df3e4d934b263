"""Hostile requests for every RPC, with hypothesis, against a whole backend in memory and on
Redis: raw bytes, and well-formed messages with random values, repeated fields filled up to the
message limit, enum numbers the schema does not have, other players' ids and other seats',
expired, forged and unsigned tokens (services/bench/hostile.py makes them).

Whatever the request, the answer is never UNKNOWN or INTERNAL; every refusal carries an
ErrorInfo with a reason of ours and the status code the table gives that reason; a refused
request changes no game's log and no table; no caller sees a hand but its own seat's; and a
canary game played beside the fuzzing is still served at the end.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from services.api.verrater.v1 import game_pb2
from services.bench.answers import Answer
from services.bench.hostile import HostileCall, Method, api_methods, hostile_call
from tests.hostile.arena import Arena
from tests.hostile.fuzzing import FUZZ, HypothesisDraw

METHODS = api_methods()
BY_NAME = {method.name: method for method in METHODS}
#: The game the legal-move test plays (arena.py: four seats, the players' first four).
GAME = "fz-four"


def _name(method: Method) -> str:
    return method.path.rpartition(".")[2]  # "GameService/Play"


def _seen(answer: Answer) -> None:
    """How far the example got (`--hypothesis-show-statistics` shows the spread)."""
    if answer.refusal is not None:
        event(f"refused {answer.refusal.reason or answer.refusal.code.name}")
    else:
        event("answered" if answer.status is not None else "still open")
    if answer.decisions_applied:
        event("a Play decision applied")


def test_every_rpc_of_the_api_is_fuzzed() -> None:
    services = {method.path.split("/")[1] for method in METHODS}
    assert services == {
        "verrater.v1.ChatService",
        "verrater.v1.AiService",
        "verrater.v1.GameService",
        "verrater.v1.LobbyService",
        "verrater.v1.StatsService",
    }
    kinds = {(m.client_streaming, m.server_streaming) for m in METHODS}
    assert kinds == {(False, False), (False, True), (True, True)}


@pytest.mark.parametrize("method", METHODS, ids=_name)
@FUZZ
@given(data=st.data())
def test_raw_bytes_are_refused_cleanly_and_change_nothing(
    arena: Arena, method: Method, data: st.DataObject
) -> None:
    _seen(arena.check(hostile_call(HypothesisDraw(data), (method,), arena.targets, raw=True)))


@pytest.mark.parametrize("method", METHODS, ids=_name)
@FUZZ
@given(data=st.data())
def test_hostile_messages_are_answered_cleanly_and_refusals_change_nothing(
    arena: Arena, method: Method, data: st.DataObject
) -> None:
    _seen(arena.check(hostile_call(HypothesisDraw(data), (method,), arena.targets, raw=False)))


#: Commands the honest examples applied, by (store, seat): what "reused id" reuses.
APPLIED: dict[tuple[str, int], list[str]] = defaultdict(list)
TWISTS = (
    "honest",
    "honest",
    "another seat",
    "spectator",
    "another game",
    "stale version",
    "future version",
    "reused id",
    "timer flag",
    "expired",
)


@FUZZ
@given(
    twist=st.sampled_from(TWISTS),
    method=st.sampled_from(("SubmitCommand", "Play", "SubmitCommands")),
    pick=st.integers(0, 2**16),
    off_by=st.integers(1, 1000),
)
def test_a_legal_move_from_the_wrong_caller_or_at_the_wrong_time_changes_nothing(
    arena: Arena, twist: str, method: str, pick: int, off_by: int
) -> None:
    """The move the game awaits, sent with one thing wrong (another seat's token, a stale
    version, a command id used before...), over SubmitCommand, Play or SubmitCommands (the
    token in the command, the call made with the player's own token). The honest ones move the
    game on, so the others meet it in every phase. (What is drawn does not depend on the game,
    which moves between examples: `pick` chooses among what the game allows now.)"""
    turn = arena.turn(GAME)
    if turn is None:
        event("the game is over")
        return
    seat, version = turn.seats[0], turn.version
    idle = [other for other in range(4) if other not in turn.seats]
    used = APPLIED[arena.kind, seat]
    if (twist == "another seat" and not idle) or (twist == "reused id" and not used):
        twist = "stale version"
    request = game_pb2.SubmitCommandRequest(
        game_id=GAME,
        expected_version=version,
        command_id=f"honest-{version}",
        command=turn.legal[pick % len(turn.legal)],
    )
    issuer, players = arena.issuer, arena.targets.player_ids
    token = issuer.mint(players[seat], game_id=GAME, seat=seat)
    if twist == "another seat":
        other = idle[pick % len(idle)]
        token = issuer.mint(players[other], game_id=GAME, seat=other)
    elif twist == "spectator":
        token = issuer.mint(players[seat])
    elif twist == "another game":
        token = issuer.mint(players[seat], game_id="fz-three", seat=seat)
    elif twist == "stale version":
        request.expected_version = max(1, version - off_by)
    elif twist == "future version":
        request.expected_version = version + off_by
    elif twist == "reused id":
        request.command_id = used[pick % len(used)]
    elif twist == "timer flag":
        request.turn_timer_expired = True
    elif twist == "expired":
        token = issuer.mint(players[seat], game_id=GAME, seat=seat, ttl_seconds=-5)
    caller = token
    if method == "Play":
        opening = game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=GAME, from_version=version))
        requests = (opening, game_pb2.PlayRequest(command=request))
    elif method == "SubmitCommands":
        entry = game_pb2.SeatCommand(token=token, command=request)
        requests = (game_pb2.SubmitCommandsRequest(commands=[entry]),)  # type: ignore[assignment]
        caller = issuer.mint(players[seat])
    else:
        requests = (request,)  # type: ignore[assignment]
    call = HostileCall(
        BY_NAME[method], (("authorization", f"Bearer {caller}"),),
        tuple(message.SerializeToString() for message in requests),
    )  # fmt: skip
    event(f"{twist} over {method}")
    if twist != "honest":
        arena.check_unchanged(call)
        return
    answer = arena.check(call)
    applied = answer.decisions_applied if method != "SubmitCommand" else len(answer.responses)
    assert applied == 1, f"the honest move was not applied: {answer}"
    used.append(request.command_id)


def test_the_canary_game_beside_the_fuzzing_is_served_to_its_end(
    arena: Arena, record_canary: dict[str, float]
) -> None:
    canary = arena.finish_canary()
    assert canary.tally.finished
    record_canary[f"hostile canary ({arena.kind}): games"] = len(canary.tally.finished)
    record_canary[f"hostile canary ({arena.kind}): p99 ms"] = round(canary.p99_ms(), 1)
