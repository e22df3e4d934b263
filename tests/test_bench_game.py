"""`verrater bench game` plays games through a real `verrater serve game` and reports the
keys the issue agreed on (other checks read them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("api", "spectators"), [("play", 0), ("unary", 2)])
def test_bench_game_plays_through_the_service_and_reports_its_figures(
    redis_url: str, api: str, spectators: int
) -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "game",
            "--games", "2", "--think-ms", "0", "--duration", "5",
            "--api", api, "--spectators", str(spectators), "--redis-url", redis_url, "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["api"] == api
    for key in ("commands_per_s", "p50_ms", "p99_ms", "events_per_s", "rebuild_ms"):
        assert figures[key] > 0, key
    assert figures["p50_ms"] <= figures["p99_ms"]
    parts = [figures[f"rebuild_{part}_ms"] for part in ("read", "decode", "fold")]
    assert all(part > 0 for part in parts)
    # A 4-player game is some 80 decisions and 240 events: each command caused events.
    assert figures["events_per_s"] > figures["commands_per_s"]
    assert figures["games_finished"] >= 1  # so rebuild_ms timed a real finished game
    assert figures["server_cpu_ms_per_command"] is None or figures["server_cpu_ms_per_command"] > 0
    assert figures["client_cpu_utilisation"] > 0
    assert figures["spectators"] == spectators
    assert (figures["spectator_updates_per_s"] > 0) == (spectators > 0)


def test_bench_echo_reports_this_machines_floor_per_grpc_call() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", "bench", "echo", "--duration", "1", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["calls_per_s"] > 0
    assert figures["server_cpu_ms_per_call"] is None or figures["server_cpu_ms_per_call"] > 0


def test_bench_timers_reports_a_sweepers_cpu_per_claim() -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "services.cli", "bench", "timers",
            "--games", "300", "--claims", "20", "--redis-cluster", "0", "--json",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    figures = json.loads(done.stdout)
    assert (figures["games"], figures["claims"], figures["redis_cluster"]) == (300, 20, 0)
    assert 0 < figures["cpu_ms_per_claim"] < 1_000
    assert figures["mean_cpu_ms_per_claim"] > 0
