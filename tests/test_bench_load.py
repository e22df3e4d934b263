"""`verrater bench load` runs the whole distributed stack and reports the agreed keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from services.bench.common import verrater_process

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
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    figures = json.loads(done.stdout)
    assert figures["games"] == 2
    assert figures["broker"] == "redis"
    for key in (
        "games_per_min",
        "commands_per_s",
        "overall_commands_per_s",
        "p99_ms",
        "bot_move_p50_ms",
        "bot_move_p99_ms",
    ):
        assert figures[key] > 0, key
    processes = {"game-1", "game-2", "lobby", "ai", "worker-1", "worker-2"}
    assert set(figures["peak_memory_mb"]) == processes
    assert all(mb > 0 for mb in figures["peak_memory_mb"].values())
    assert set(figures["cpu_ms_per_command"]) == processes | {"load-generator"}


def test_bench_load_runs_on_rabbitmq_and_keeps_each_processs_log_when_asked(
    redis_url: str, rabbitmq_url: str, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "load",
            "--games", "1", "--concurrency", "1", "--duration", "90", "--think-ms", "20",
            "--redis-url", redis_url, "--broker", rabbitmq_url, "--replicas", "1",
            "--logs", str(logs), "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    figures = json.loads(done.stdout)
    assert (figures["broker"], figures["games"], figures["game_replicas"]) == ("amqp", 1, 1)
    assert figures["bot_move_p50_ms"] > 0
    kept = {path.name for path in logs.iterdir()}
    assert kept == {f"{name}.log" for name in ("game", "lobby", "ai", "worker-1", "worker-2")}


def test_a_bench_process_writes_its_output_to_the_log_it_is_given(tmp_path: Path) -> None:
    log = tmp_path / "deep" / "verrater.log"
    with verrater_process(["bench", "--help"], {}, log) as child:
        child.wait(timeout=60)
    assert "usage: verrater bench" in log.read_text()
    with verrater_process(["bench", "--help"], {}) as child:  # no log: nothing is written
        child.wait(timeout=60)
    assert list(tmp_path.rglob("*.log")) == [log]
