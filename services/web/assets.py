"""The page's built files, shipped inside the package, and the proof of what they were built from.

`make web` builds the page from `web/` (npm: TypeScript generated from `proto/`, bundled by
Vite) into `services/web/static/`, then runs ``python -m services.web`` to write
`manifest.json` there: a digest of every source the build read (the page's sources and
lockfile, and the protos) and the digest of every built file. `tests/web/test_assets.py`
recomputes both without npm: a source changed since the last build, or a built file edited by
hand, fails it, as stale generated protobuf code does.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ASSETS_DIR = Path(__file__).with_name("static")
MANIFEST_NAME = "manifest.json"
#: The repository, when running from a checkout (the installed package has no sources).
ROOT = Path(__file__).resolve().parents[2]
#: Folders of web/ that hold no sources: installed packages, generated code, build output.
NOT_SOURCES = frozenset({"node_modules", "gen", "dist"})


def _files(folder: Path, skip: frozenset[str] = frozenset()) -> Iterator[Path]:
    for path in sorted(folder.iterdir()):
        if path.name in skip or path.name.startswith("."):
            continue
        if path.is_dir():
            yield from _files(path, skip)
        elif path.is_file():
            yield path


def source_files(root: Path = ROOT) -> list[Path]:
    """What the build reads: web/ (less NOT_SOURCES) and every .proto under proto/."""
    web = list(_files(root / "web", NOT_SOURCES))
    protos = [path for path in _files(root / "proto") if path.suffix == ".proto"]
    return web + protos


def sources_digest(root: Path = ROOT) -> str:
    """SHA-256 over the sources' paths (relative, `/`-separated) and bytes, in path order."""
    digest = hashlib.sha256()
    for path in source_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def built_files(assets: Path = ASSETS_DIR) -> dict[str, str]:
    """Each built file (relative to `assets`, the manifest aside) and its SHA-256."""
    return {
        path.relative_to(assets).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in _files(assets)
        if path.relative_to(assets).as_posix() != MANIFEST_NAME
    }


def manifest(root: Path = ROOT, assets: Path = ASSETS_DIR) -> dict[str, object]:
    return {
        "generated": "by `make web` (python -m services.web): do not edit",
        "sources": sources_digest(root),
        "files": built_files(assets),
    }


def stamp(root: Path = ROOT, assets: Path = ASSETS_DIR) -> Path:
    """Write the manifest of a fresh build."""
    path = assets / MANIFEST_NAME
    path.write_text(json.dumps(manifest(root, assets), indent=2, sort_keys=True) + "\n")
    return path


def problems(root: Path = ROOT, assets: Path = ASSETS_DIR) -> list[str]:
    """Why the shipped page is not the build of these sources (empty: it is)."""
    path = assets / MANIFEST_NAME
    if not path.is_file():
        return [f"{path} is missing: run `make web`"]
    recorded = json.loads(path.read_text())
    found: list[str] = []
    if recorded.get("sources") != sources_digest(root):
        found.append("web/ or proto/ changed since the page was built: run `make web`")
    if recorded.get("files") != built_files(assets):
        found.append(f"the files in {assets} are not the ones the build wrote: run `make web`")
    return found


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        found = problems()
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    print(f"wrote {stamp()}")
    return 0
