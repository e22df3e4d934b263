"""The page shipped in the package is the build of the sources in the repository, like the
generated protobuf code: recomputed here without npm (services/web/assets.py)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from services.web import ASSETS_DIR
from services.web.assets import MANIFEST_NAME, ROOT, problems, source_files, sources_digest


def test_the_shipped_page_is_the_build_of_these_sources() -> None:
    assert problems() == [], "run `make web` and commit services/web/static"


def test_the_sources_are_the_page_and_the_contract() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in source_files()}
    assert {"web/package.json", "web/package-lock.json", "web/src/main.tsx"} <= names
    assert "proto/verrater/v1/game.proto" in names
    assert not any("node_modules" in name or name.startswith("web/src/gen/") for name in names)


def test_a_changed_source_or_an_edited_build_is_stale(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "web", root / "web", ignore=shutil.ignore_patterns("node_modules"))
    shutil.copytree(ROOT / "proto", root / "proto")
    assets = tmp_path / "static"
    shutil.copytree(ASSETS_DIR, assets)
    assert problems(root, assets) == []
    proto = root / "proto" / "verrater" / "v1" / "game.proto"
    proto.write_text(proto.read_text() + "\n// a change\n")
    assert sources_digest(root) != json.loads((assets / MANIFEST_NAME).read_text())["sources"]
    assert any("changed since" in problem for problem in problems(root, assets))
    proto.write_text(proto.read_text().removesuffix("\n// a change\n"))
    page = assets / "index.html"
    page.write_text(page.read_text() + "<!-- edited -->")
    assert any("not the ones the build wrote" in problem for problem in problems(root, assets))


#: The page's JavaScript budget, gzipped (issue 37): what a phone downloads before the lobby.
JS_BUDGET_BYTES = 150 * 1024


def test_the_pages_javascript_stays_within_its_budget() -> None:
    scripts = sorted((ASSETS_DIR / "assets").glob("*.js"))
    assert scripts, "the page has its script"
    gzipped = sum(len(gzip.compress(path.read_bytes(), compresslevel=9)) for path in scripts)
    assert gzipped <= JS_BUDGET_BYTES, f"{gzipped} bytes gzipped, over {JS_BUDGET_BYTES}"
