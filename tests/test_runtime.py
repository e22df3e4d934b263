"""The collector's tuning per kind of process (services/runtime.py): a process without games
collects the reference cycles its calls leave in small batches, so no collection walks more
than a few thousand objects; a game process keeps collections rare. Each case runs in a child
interpreter (the tuning freezes the interpreter's objects for good)."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import gc, json, sys
from services.runtime import tune_garbage_collector

tune_garbage_collector(holds_games=sys.argv[1] == "games")
young = []
gc.callbacks.append(
    lambda phase, info: young.append(info["collected"])
    if phase == "stop" and info["generation"] == 0 else None
)

def call():  # what grpc.aio's handler lookup leaves per call: a closure in a cycle with its scope
    scope = {"metadata": tuple(("key", str(n)) for n in range(4))}
    scope["lookup"] = lambda: scope
    return scope

for _ in range(30_000):
    call()
print(json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count(),
                  "young": young}))
"""


def _probe(kind: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, kind], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_process_without_games_frees_its_calls_cycles_in_small_batches() -> None:
    result = _probe("calls")
    young = result["young"]
    assert isinstance(young, list) and len(young) >= 10  # many collections, not one late one
    assert max(young) <= 5_000  # each frees what a few hundred calls left
    assert result["frozen"] > 0  # what start-up built is out of the collector's sight


def test_a_game_process_keeps_collections_rare() -> None:
    result = _probe("games")
    assert result["threshold"] == [20_000, 20, 20]
    young = result["young"]
    assert isinstance(young, list) and 1 <= len(young) <= 15
    assert min(young) >= 15_000  # thousands of calls' worth at once
    assert result["frozen"] > 0
