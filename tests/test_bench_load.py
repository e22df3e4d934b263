"""`verrater bench load` runs the whole distributed stack and reports the agreed keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from services.bench.common import stack_env, verrater_process

ROOT = Path(__file__).resolve().parent.parent


def test_bench_load_plays_games_through_every_service_and_reports_its_figures(
    redis_url: str, tmp_path: Path
) -> None:
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "load",
            "--games", "2", "--concurrency", "2", "--duration", "90", "--think-ms", "20",
            "--redis-url", redis_url, "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=False,
        env={**os.environ, "TMPDIR": str(system_tmp)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    # The stack's processes kept their temporary files in the bench's own directory, and the
    # bench removed it: none are left where the system keeps them.
    assert list(system_tmp.iterdir()) == []
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


def test_a_bench_stacks_processes_keep_their_temporary_files_in_its_scratch_directory(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "run" / "tmp"
    env = stack_env("redis://127.0.0.1:1", "redis://127.0.0.1:1", "q", "s", [1], scratch=scratch)
    assert env["TMPDIR"] == str(scratch)
    assert scratch.is_dir()
    # A child started with it makes its temporary files there (a SIGKILLed worker's pymp-*
    # directory among them), where the bench removes them with its run.
    subprocess.run(
        [sys.executable, "-c", "import tempfile; tempfile.mkdtemp(prefix='pymp-')"],
        env={**os.environ, **env}, check=True, timeout=60,
    )  # fmt: skip
    assert [path.name[:5] for path in scratch.iterdir()] == ["pymp-"]
