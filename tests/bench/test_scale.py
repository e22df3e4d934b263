"""`verrater bench scale` sets up real games through the lobby, measures them, prints the
contract's keys, and leaves nothing behind: its Redis and every process are gone after it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The keys docs/BENCHMARKS.md and issue 40 agree on.
CONTRACT = (
    "games",
    "active_games",
    "commands_per_s",
    "p99_ms",
    "cold_load_p99_ms",
    "list_my_games_p99_ms",
    "notify_p99_ms",
    "timers_fired",
    "timer_lateness_p99_ms",
    "redis_used_memory_mb",
    "redis_bytes_per_game",
    "replica_peak_rss_mb",
)


def _processes_under(directory: Path) -> list[str]:
    """Command lines of running processes that name `directory` (a redis-server's dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(directory) in line:
            found.append(line)
    return found


def test_bench_scale_plays_real_games_reports_the_contract_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "scale",
            "--games", "40", "--timer-games", "2", "--seconds", "15", "--active", "4",
            "--rate", "4", "--sweep", "3", "--per-player", "8", "--setup-concurrency", "8",
            "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=400, check=False,
        env={**os.environ, "TMPDIR": str(scratch)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    figures = json.loads(done.stdout)
    for key in CONTRACT:
        assert key in figures, key
    assert figures["games"] == 42
    # Every game was set up through the lobby and the game service: the people's commands
    # were answered, cold loads made, their players' lists and notifications answered.
    assert figures["commands"] > 0 and figures["p99_ms"] > 0
    assert figures["cold_loads"] > 0 and figures["cold_load_p99_ms"] > 0
    assert figures["list_my_games_calls"] > 0 and figures["list_my_games_p99_ms"] > 0
    assert figures["notifications_timed"] > 0
    assert figures["timers_fired"] > 0
    assert figures["active_games"] > 0
    # What a command costs the machine, all in, and where it went.
    assert figures["cpu_ms_per_command"] > 0
    assert {"game-1", "game-2", "lobby-1", "redis-1", "bench"} <= set(
        figures["measured_cpu_ms_per_s"]
    )
    # The sweep's phase ran at its own rate, on games the first phase had not touched.
    (swept,) = figures["sweep"]
    assert swept["rate"] == 3
    assert 0 < swept["commands_per_s"] <= 4
    assert swept["p99_ms"] > 0 and swept["cold_load_p99_ms"] > 0
    assert swept["cpu_ms_per_command"] > 0
    assert figures["redis_used_memory_mb"] > 0 and figures["redis_bytes_per_game"] > 0
    assert set(figures["redis_by_kind"]) >= {"events", "lobby", "notifications", "timers"}
    assert set(figures["replica_peak_rss_mb"]) == {"game-1", "game-2"}
    assert all(mb > 0 for mb in figures["replica_peak_rss_mb"].values())
    # Nothing left behind: the private Redis's directory (and its data) is gone, and no
    # process of the run still runs there.
    assert list(scratch.iterdir()) == []
    assert _processes_under(scratch) == []
