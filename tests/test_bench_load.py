"""`verrater bench load` runs the whole distributed stack and reports the agreed keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_load_plays_games_through_every_service_and_reports_its_figures(
    redis_url: str,
) -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "load",
            "--games", "2", "--concurrency", "2", "--duration", "90", "--think-ms", "20",
            "--redis-url", redis_url, "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["games"] == 2
    for key in ("games_per_min", "commands_per_s", "p99_ms", "bot_move_p99_ms"):
        assert figures[key] > 0, key
    assert set(figures["peak_memory_mb"]) == {"game", "lobby", "ai", "worker-1", "worker-2"}
    assert all(mb > 0 for mb in figures["peak_memory_mb"].values())
