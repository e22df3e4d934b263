"""No module of ours grows past 600 lines: a file that needs a table of contents is a package
waiting to be split (STYLE.md). Generated code is exempt."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 600
GENERATED = ROOT / "services" / "api" / "verrater"


def test_no_module_is_longer_than_600_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for folder in ("services", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if GENERATED not in path.parents
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    }
    assert long == {}, f"split these modules: {long}"
