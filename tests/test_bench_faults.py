"""`verrater bench faults` starts the distributed stack, hurts it, and reports the agreed keys."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from pathlib import Path

import amqp.exceptions
import kombu
import pytest

from services.bench.faults import GameRun, _keep_if_failed
from services.bench.stack import distributed_stack

ROOT = Path(__file__).resolve().parent.parent
KEYS = {
    "fault",
    "games",
    "games_stuck",
    "audit_findings",
    "max_stall_s",
    "max_stall_after_fault_s",
    "other_shards_max_stall_after_fault_s",
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
    assert row["max_stall_after_fault_s"] <= row["max_stall_s"]


def test_the_stack_leaves_no_queue_on_the_shared_rabbitmq(
    rabbitmq_url: str, tmp_path: Path
) -> None:
    """Its processes are stopped before its private queue is deleted: a worker or replica
    still running would declare the queue again, and it would stay on the machine's RabbitMQ."""
    with (
        distributed_stack(rabbitmq_url, tmp_path) as stack,
        kombu.Connection(rabbitmq_url) as connection,
    ):
        queue = stack.queue
        # Up, as in a bench run: both workers consume the queue.
        deadline = time.monotonic() + 60
        while _consumers(connection, queue) < len(stack.workers):
            assert time.monotonic() < deadline, "the workers never consumed the stack's queue"
            time.sleep(0.1)
    with kombu.Connection(rabbitmq_url) as connection, pytest.raises(amqp.exceptions.NotFound):
        connection.default_channel.queue_declare(queue, passive=True)


def _consumers(connection: kombu.Connection, queue: str) -> int:
    with contextlib.suppress(amqp.exceptions.NotFound):
        return int(connection.channel().queue_declare(queue, passive=True).consumer_count)
    return 0


def _row(fault: str, *, stuck: int = 0, findings: int = 0) -> dict[str, object]:
    return {"fault": fault, "games": 8, "games_stuck": stuck, "audit_findings": findings}


@pytest.mark.parametrize(
    "failing", [_row("game-kill-9", stuck=1), _row("redis-rollback", findings=2)]
)
def test_a_fault_that_leaves_a_game_stuck_or_a_finding_keeps_the_stacks_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failing: dict[str, object]
) -> None:
    workdir = tmp_path / "stack"
    workdir.mkdir()
    (workdir / "game-1.log").write_text("what the replica said\n")
    assert _keep_if_failed(workdir, [_row("worker-kill-9"), failing])
    assert (workdir / "game-1.log").read_text() == "what the replica said\n"
    assert f"{failing['fault']}: kept the stack's logs and data in {workdir}" in (
        capsys.readouterr().err
    )


def test_a_clean_run_removes_the_stacks_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workdir = tmp_path / "stack"
    workdir.mkdir()
    (workdir / "game-1.log").write_text("all well\n")
    assert not _keep_if_failed(workdir, [_row("game-kill-9"), _row("junk-3000")])
    assert not workdir.exists()
    assert capsys.readouterr().err == ""


def test_a_stall_counts_after_the_fault_only_from_the_fault_on() -> None:
    run = GameRun(last_progress=100.0)
    run.progressed(now=104.0)  # a 4 s wait before any fault: the whole run's, not the fault's
    run.fault_at = 110.0
    run.progressed(now=112.0)  # a wait under way when the fault came: 2 s of it after the fault
    run.progressed(now=113.0)
    assert (run.max_stall_s, run.max_stall_after_fault_s) == (8.0, 2.0)
    run.progressed(now=116.5)  # a wait wholly after the fault
    assert (run.max_stall_s, run.max_stall_after_fault_s) == (8.0, 3.5)
