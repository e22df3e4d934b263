"""`verrater bench abuse` attacks a real `verrater serve` with a canary game beside it and
reports the keys the issue agreed on. Small, and without timed assertions: the figures are for
docs/BENCHMARKS.md, taken on a quiet machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from services.chat import MAX_WATCHERS_PER_TABLE

ROOT = Path(__file__).resolve().parent.parent
#: More chat watchers than one server serves for a table.
WATCHERS = MAX_WATCHERS_PER_TABLE + 20
KEYS = ("rss_growth_mb", "unknown_statuses", "canary_p99_ms", "guests_per_s_accepted")


def test_bench_abuse_attacks_a_served_backend_and_reports_its_figures() -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "abuse", "--play-messages", "3000",
            "--fuzz-requests", "150", "--guest-seconds", "1", "--chat-watchers", str(WATCHERS),
            "--chat-seconds", "2", "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    assert set(KEYS) <= set(figures)
    assert figures["unknown_statuses"] == 0
    assert figures["play_messages"] == 3000
    assert figures["fuzz_requests"] == 150
    assert 1 <= figures["guests_accepted"] <= figures["guests_sent"]
    assert figures["canary_decisions"] > 0
    assert figures["chat_watchers"] == WATCHERS
    assert 1 <= figures["chat_accepted"] < figures["chat_sent"]  # the rates refused the rest
    # The table's watchers on one server are capped: the others were refused, and every
    # watcher taken heard every message accepted.
    assert figures["chat_watchers_refused"] == WATCHERS - MAX_WATCHERS_PER_TABLE
    assert figures["chat_watchers_complete"] == MAX_WATCHERS_PER_TABLE
