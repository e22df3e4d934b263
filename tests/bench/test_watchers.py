"""`verrater bench watchers` opens real WatchNotifications subscriptions through the lobby's
notifications adapter, on one Redis and on a Redis Cluster, measures them idle, and times real
deliveries: every key it prints, with figures that can only come from a delivery."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

KEYS = {
    "redis_cluster",
    "watchers",
    "idle_seconds",
    "follower_cpu_ms_per_s",
    "redis_cpu_ms_per_s",
    "follower_cpu_us_per_watcher_s",
    "delivery_p50_ms",
    "delivery_max_ms",
}


@pytest.mark.parametrize("masters", [0, 3])
def test_the_bench_prints_its_figures_after_real_deliveries(masters: int) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "services.cli", "bench", "watchers", "--watchers", "30"]
        + ["--seconds", "1", "--redis-cluster", str(masters), "--json"],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    assert set(figures) == KEYS
    assert figures["redis_cluster"] == masters
    assert figures["watchers"] == 30
    assert figures["idle_seconds"] >= 1
    assert figures["follower_cpu_ms_per_s"] >= 0
    assert figures["redis_cpu_ms_per_s"] > 0
    # Each delivery was waited for: a publish, then its subscriber's notification.
    assert 0 < figures["delivery_p50_ms"] <= figures["delivery_max_ms"] < 30_000
