"""`verrater audit`, `export` and `replay` on exported files (the server path: test_end_to_end)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pytest

from services.audit import LogEntry, write_jsonl
from services.audit.cli import add_commands
from services.engine.events import PointsAwarded

from .logs import edited, events_of, index_of, random_log


def run(argv: Sequence[str]) -> int:
    """The way `verrater` runs a command: parse, then call the chosen handler."""
    parser = argparse.ArgumentParser(prog="verrater")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def _file(tmp_path: Path, entries: list[LogEntry], name: str = "game.jsonl") -> str:
    path = tmp_path / name
    with path.open("w", encoding="utf-8") as file:
        write_jsonl(entries, file, game_id="table-7")
    return str(path)


def test_audit_of_a_clean_file_exits_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["audit", "--file", _file(tmp_path, random_log(1))]) == 0
    out = capsys.readouterr().out
    assert "Audit of game table-7" in out
    assert "CLEAN" in out


def test_audit_of_a_tampered_file_exits_one_and_names_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = random_log(2)
    at = index_of(entries, PointsAwarded)
    award = events_of(entries)[at]
    assert isinstance(award, PointsAwarded)
    forged = edited(entries, at, PointsAwarded(award.seat, award.points + 1, award.reason))
    assert run(["audit", "--file", _file(tmp_path, forged)]) == 1
    out = capsys.readouterr().out
    assert f"version {at + 1} [replay]" in out


def test_a_file_that_is_no_log_exits_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n", encoding="utf-8")
    assert run(["audit", "--file", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert run(["audit", "--file", str(tmp_path / "missing.jsonl")]) == 2


def test_replay_of_one_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["replay", "--file", _file(tmp_path, random_log(3)), "--round", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== Round 2 ")
    assert "== Round 3" not in out


def test_replay_wraps_its_lines_at_the_terminals_width_between_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path, random_log(5))
    monkeypatch.setenv("COLUMNS", "400")
    assert run(["replay", "--file", path]) == 0
    wide = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in wide) > 80  # the story has lines to wrap
    monkeypatch.setenv("COLUMNS", "80")
    assert run(["replay", "--file", path]) == 0
    narrow = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in narrow) <= 80
    assert " ".join(" ".join(narrow).split()) == " ".join(" ".join(wide).split())
    # A wrapped fact goes on below its first line, indented two more.
    first = next(index for index, line in enumerate(wide) if len(line) > 80)
    assert narrow[:first] == wide[:first]
    assert wide[first].startswith(narrow[first])
    indent = len(wide[first]) - len(wide[first].lstrip())
    assert narrow[first + 1].startswith(" " * (indent + 2) + wide[first][len(narrow[first]) + 1])


def test_a_game_id_and_a_file_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        run(["audit", "some-game", "--file", _file(tmp_path, random_log(4))])
    with pytest.raises(SystemExit):
        run(["audit"])
