"""A flood of refused calls is counted in full but not logged line by line: an attacker cannot
make the server write a log line for every junk request."""

from __future__ import annotations

import logging

import grpc
import pytest
import structlog
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


def test_before_logging_is_configured_a_refusal_goes_to_stderr_never_to_stdout(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Commands print their result on stdout (`simulate` a game id, benches JSON): a log line
    of an embedded server must not be mixed into it."""
    structlog.reset_defaults()
    caplog.set_level(logging.INFO, logger="verrater.rpc")
    log = RefusalLog(per_second=2, clock=lambda: 0.0)
    log.refused(
        "/verrater.v1.GameService/SubmitCommand",
        Refusal(grpc.StatusCode.ABORTED, Reason.STALE_VERSION, "acted on an old version"),
    )
    assert capsys.readouterr().out == ""
    assert [record.name for record in caplog.records] == ["verrater.rpc"]
    assert "STALE_VERSION" in caplog.text
