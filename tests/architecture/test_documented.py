"""docs/ARCHITECTURE.md names every package and module under services/, and so do the layers.

A newcomer reads that page to find where things are; a package it does not name is one they
will not find, and a package missing from the layers contract is one no import rule covers.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "services"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


def _top_level() -> dict[str, str]:
    """Each importable part of `services`: its module name and how the page writes it."""
    parts: dict[str, str] = {}
    for entry in sorted(SERVICES.iterdir()):
        if entry.is_dir() and (entry / "__init__.py").exists():
            parts[entry.name] = f"services/{entry.name}/"
        elif entry.suffix == ".py" and entry.stem not in {"__init__", "__main__"}:
            parts[entry.stem] = f"services/{entry.name}"
    return parts


def _table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| `services/")]


def test_there_are_parts_to_check() -> None:
    parts = _top_level()
    assert {"engine", "game", "lobby", "eventstore", "bootstrap", "cli"} <= set(parts)


def test_the_page_has_a_row_for_every_package_and_module() -> None:
    rows = _table_rows(ARCHITECTURE.read_text(encoding="utf-8"))
    described = {re.match(r"\| `([^`]+)`", row).group(1) for row in rows}  # type: ignore[union-attr]
    missing = sorted(path for path in _top_level().values() if path not in described)
    assert not missing, (
        f"docs/ARCHITECTURE.md has no row in its table of packages for {missing}: "
        "say what each is and what it may import"
    )


def test_the_page_names_no_package_that_is_gone() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`(services/[a-z_]+(?:/|\.py))`", text))
    gone = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert not gone, f"docs/ARCHITECTURE.md names {gone}, which no longer exist"


def test_every_package_has_a_place_in_the_layers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    placed = set(re.findall(r"services\.([a-z_]+)", " ".join(layers)))
    missing = sorted(name for name in _top_level() if name not in placed)
    assert not missing, f"pyproject's layers contract does not place {missing}"
