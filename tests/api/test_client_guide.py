"""docs/CLIENTS.md lists every reason a request can be refused for, with its status code."""

from __future__ import annotations

import re
from pathlib import Path

from services.errors import Reason
from services.rpc import STATUS_CODES

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "CLIENTS.md"


def test_the_guide_lists_every_reason_with_its_status_code() -> None:
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([A-Z_]+) \| (.+) \|$", GUIDE.read_text(), re.M)
    listed = {reason: code for reason, code, _ in rows}
    assert len(listed) == len(rows), "a reason is listed twice"
    assert listed == {reason.value: code.name for reason, code in STATUS_CODES.items()}
    assert set(listed) == {reason.value for reason in Reason}
    assert all(meaning.strip() for _, _, meaning in rows)


def test_the_guide_names_the_lobby_actions_that_share_the_rate_limit() -> None:
    from services.bootstrap import LOBBY_ACTIONS

    (row,) = [line for line in GUIDE.read_text().splitlines() if line.startswith("| lobby actions")]
    named = set(re.findall(r"`([A-Za-z]+)`", row.split("(reads")[0]))
    assert named == set(LOBBY_ACTIONS)
