"""The JSON Lines export: a round trip keeps every byte, and docs/LOG_FORMAT.md tells the truth."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from services.audit import LogFormatError, audit, read_jsonl, read_log, write_jsonl
from services.audit.fairness import ACTION_CARDS, RING_CARDS, supply_deck_cards
from services.codec import Record, encode_record
from services.engine.events import SupplyPlayed
from services.engine.rng import shuffled
from services.eventstore import chain_hash

from .logs import chained, events_of, random_log

LOG_FORMAT = Path(__file__).resolve().parents[2] / "docs" / "LOG_FORMAT.md"


def _export(game_id: str = "game-1", seed: int = 7) -> str:
    out = io.StringIO()
    write_jsonl(random_log(seed), out, game_id=game_id)
    return out.getvalue()


def test_export_then_read_round_trips_byte_for_byte() -> None:
    entries = random_log(7)
    out = io.StringIO()
    write_jsonl(entries, out, game_id="game-1")
    text = out.getvalue()
    log = read_log(io.StringIO(text))
    assert log.game_id == "game-1"
    assert log.entries == entries
    assert [entry.payload for entry in log.entries] == [entry.payload for entry in entries]
    again = io.StringIO()
    write_jsonl(log.entries, again, game_id=log.game_id)
    assert again.getvalue() == text
    assert audit(log.entries).ok


def test_each_line_is_one_event_with_its_chain_link_and_plain_json() -> None:
    lines = _export().splitlines()
    assert json.loads(lines[0]) == {
        "format": "verrater-game-log",
        "format_version": 1,
        "game_id": "game-1",
    }
    first = json.loads(lines[1])
    assert list(first) == ["version", "prev_hash", "hash", "payload", "event"]
    assert first["version"] == 1
    assert first["prev_hash"] == "0" * 64
    payload = base64.b64decode(first["payload"])
    assert first["hash"] == chain_hash(first["prev_hash"], payload)
    assert first["event"]["type"] == "GameCreated"
    assert first["event"]["ruleset"]["players"] == 4
    decisions = [json.loads(line)["event"] for line in lines[1:]]
    estate = next(event for event in decisions if event["type"] == "FirstEstatePlaced")
    assert list(estate) == ["type", "seat", "position", "command_id"]
    assert json.loads(lines[-1])["event"]["type"] == "GameEnded"


def test_a_decision_a_bot_took_on_a_timeout_says_so() -> None:
    events = events_of(random_log(8))
    records = [
        Record(event, "late", turn_timer_expired=True)
        if isinstance(event, SupplyPlayed)
        else Record(event)
        for event in events
    ]
    entries = chained([encode_record(record) for record in records])
    out = io.StringIO()
    write_jsonl(entries, out)
    played = [
        json.loads(line)["event"] for line in out.getvalue().splitlines() if "SupplyPlayed" in line
    ]
    assert played and all(event["turn_timer_expired"] is True for event in played)
    assert all(event["command_id"] == "late" for event in played)
    assert audit(read_jsonl(io.StringIO(out.getvalue()))).ok


def test_enums_are_written_by_name() -> None:
    text = _export()
    assert '"HOUSE_EAGLE"' in text
    assert '"PHASE_FIRST_ESTATES"' in text


def test_a_file_without_the_header_is_refused() -> None:
    body = "".join(_export().splitlines(keepends=True)[1:])
    with pytest.raises(LogFormatError, match="line 1: not a verrater-game-log file"):
        read_jsonl(io.StringIO(body))


def test_a_line_with_a_broken_payload_names_its_line() -> None:
    lines = _export().splitlines(keepends=True)
    broken = json.loads(lines[3])
    broken["payload"] = "not base64!"
    lines[3] = json.dumps(broken) + "\n"
    with pytest.raises(LogFormatError, match="line 4: payload is not base64"):
        read_jsonl(io.StringIO("".join(lines)))


def test_an_empty_file_is_refused() -> None:
    with pytest.raises(LogFormatError, match="empty"):
        read_jsonl(io.StringIO(""))


# --- the documentation -----------------------------------------------------------------------


def _documented_generator() -> object:
    text = LOG_FORMAT.read_text("utf-8")
    code = re.search(r"In Python:\n\n```python\n(.*?)```", text, re.DOTALL)
    assert code is not None, "LOG_FORMAT.md shows the generator in Python"
    namespace: dict[str, object] = {}
    exec(code.group(1), namespace)
    return namespace["shuffled"]


def test_the_documented_generator_gives_the_engine_s_shuffles() -> None:
    documented = _documented_generator()
    assert callable(documented)
    rng = random.Random(0)
    for _ in range(50):
        seed = rng.randbytes(32)
        cases: list[tuple[str, list[Any]]] = [
            ("start-player", list(range(rng.choice((3, 4))))),
            ("ring", list(RING_CARDS)),
            ("supply", list(supply_deck_cards(4))),
            (f"draft:{rng.randint(1, 9)}", list(ACTION_CARDS)),
            (f"reshuffle:{rng.randint(0, 5)}", sorted(rng.choices((2, 3, 4, 5, 6, 8), k=19))),
        ]
        for label, items in cases:
            assert tuple(documented(seed, label, items)) == shuffled(seed, label, items)


def test_the_documented_test_vectors_hold() -> None:
    text = LOG_FORMAT.read_text("utf-8")
    seed = bytes(range(32))

    def listed(items: tuple[object, ...]) -> str:
        return ", ".join(
            item.name.lower() if hasattr(item, "name") else str(item) for item in items
        )

    assert seed.hex() in text
    assert hashlib.sha256(seed).hexdigest() in text
    assert hashlib.sha256(seed + b"supply" + bytes(8)).hexdigest() in text
    assert listed(shuffled(seed, "start-player", range(4))) in text
    assert listed(shuffled(seed, "supply", supply_deck_cards(4))) in text
    assert listed(shuffled(seed, "draft:1", ACTION_CARDS)) in text
    assert listed(shuffled(seed, "reshuffle:0", (2, 2, 3, 4, 5))) in text
    assert ", ".join(map(str, supply_deck_cards(3))).replace(" ", "") in text
