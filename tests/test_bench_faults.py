"""`verrater bench faults` starts the distributed stack, hurts it, and reports the agreed keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = {
    "fault",
    "games",
    "games_stuck",
    "audit_findings",
    "max_stall_s",
    "acknowledged_events_lost",
}


def test_bench_faults_plays_through_a_killed_worker_and_reports_its_figures(
    rabbitmq_url: str,
) -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "faults",
            "--games", "1", "--think-ms", "20", "--fault", "worker-kill-9",
            "--broker", rabbitmq_url, "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    (row,) = figures["faults"]
    assert set(row) >= KEYS
    assert row["fault"] == "worker-kill-9"
    assert row["games"] == 1
    assert row["games_stuck"] == 0
    assert row["audit_findings"] == 0
