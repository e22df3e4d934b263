"""A flood of refused calls is counted in full but not logged line by line: an attacker cannot
make the server write a log line for every junk request."""

from __future__ import annotations

import grpc
from structlog.testing import capture_logs

from services.errors import Reason
from services.rpc import Refusal
from services.rpc.interceptor import RefusalLog


def test_a_flood_of_refusals_writes_a_few_lines_and_says_how_many_it_left_out() -> None:
    now = [0.0]
    log = RefusalLog(per_second=2, clock=lambda: now[0])
    limited = Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, Reason.RATE_LIMITED, "too many")
    junk = Refusal(grpc.StatusCode.INVALID_ARGUMENT, Reason.MALFORMED_REQUEST, "junk")
    with capture_logs() as lines:
        for _ in range(10):
            log.refused("/verrater.v1.LobbyService/RegisterGuest", limited)
        log.refused("/verrater.v1.LobbyService/RegisterGuest", junk)  # another reason: its own
        log.refused("/verrater.v1.GameService/GetView", limited)  # another method: its own
        now[0] = 1.0
        log.refused("/verrater.v1.LobbyService/RegisterGuest", limited)
    flood = [
        line
        for line in lines
        if line["reason"] == "RATE_LIMITED" and line["method"].endswith("RegisterGuest")
    ]
    assert len(flood) == 3  # the burst of two, then one a second later
    assert "suppressed" not in flood[0]
    assert flood[-1]["suppressed"] == 8
    assert len(lines) == 5
