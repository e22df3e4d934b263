"""The architecture's import contracts hold, and the custom ones catch what they are for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(config: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(path) for path in (*paths, ROOT))}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=paths[0] if paths else ROOT,
        check=False,
    )


def test_the_projects_import_contracts_are_kept() -> None:
    result = _lint(ROOT / "pyproject.toml", ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


def test_only_the_named_module_may_import_a_librarys_internals(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "wire.py").write_text("from redis.asyncio.connection import AbstractConnection\n")
    (package / "public.py").write_text("import redis.asyncio\n")
    (package / "direct.py").write_text("from redis.asyncio.connection import Connection\n")
    (package / "sneaky.py").write_text("from redis import utils\n")
    config = tmp_path / "contracts.toml"
    config.write_text(
        """
[tool.importlinter]
root_package = "pkg"
include_external_packages = true
contract_types = ["external_internals: tests.architecture.contracts.ExternalInternalsContract"]

[[tool.importlinter.contracts]]
name = "wire only"
type = "external_internals"
internal_modules = ["redis.asyncio.connection", "redis.utils"]
allowed_importers = ["pkg.wire"]
"""
    )
    result = _lint(config, tmp_path)
    assert result.returncode != 0
    assert "pkg.direct:1: from redis.asyncio.connection import Connection" in result.stdout
    assert "pkg.sneaky:1: from redis import utils" in result.stdout
    assert "pkg.wire" not in result.stdout.split("Broken contracts")[-1].split("Only")[0]
    assert "pkg.public" not in result.stdout


def _package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_an_allow_list_refuses_whatever_it_does_not_name(tmp_path: Path) -> None:
    """The engine's purity (the standard library only) and the terminal client's rule (the
    generated API, grpc, rich, protobuf's and google.rpc's messages) are allow-lists: an import
    of anything not named breaks them, whatever it is."""
    _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/api.py": "",
            "pkg/server.py": "",
            "pkg/pure/__init__.py": "from __future__ import annotations\n",
            "pkg/pure/rules.py": (
                "import hashlib\nfrom collections import Counter\nfrom . import cards\n"
            ),
            "pkg/pure/cards.py": "",
            "pkg/pure/stored.py": "import redis\n",
            "pkg/pure/upward.py": "from pkg import server\n",
            "pkg/client/__init__.py": "",
            "pkg/client/good.py": (
                "import grpc\nfrom google.rpc import status_pb2\n"
                "import google.protobuf.timestamp_pb2\nfrom pkg.api import Stub\n"
            ),
            "pkg/client/cloud.py": "from google.cloud import storage\n",
            "pkg/client/sneaky.py": "from google import auth\n",
            "pkg/client/inside.py": "from pkg.server import handler\n",
        },
    )
    config = tmp_path / "contracts.toml"
    config.write_text(
        """
[tool.importlinter]
root_package = "pkg"
include_external_packages = true
contract_types = ["allowed_imports: tests.architecture.contracts.AllowedImportsContract"]

[[tool.importlinter.contracts]]
name = "pure"
type = "allowed_imports"
source_modules = ["pkg.pure"]
allowed_modules = ["pkg.pure"]
allow_standard_library = true

[[tool.importlinter.contracts]]
name = "client"
type = "allowed_imports"
source_modules = ["pkg.client"]
allowed_modules = ["pkg.client", "pkg.api", "grpc", "google.protobuf", "google.rpc"]
allow_standard_library = true
"""
    )
    result = _lint(config, tmp_path)
    assert result.returncode != 0
    report = result.stdout.split("Broken contracts")[-1]
    assert "pkg.pure.stored:1: import redis" in report
    assert "pkg.pure.upward:1: imports pkg.server" in report
    assert "pkg.client.cloud:1: from google.cloud import storage" in report
    assert "pkg.client.sneaky:1: from google import auth" in report
    assert "pkg.client.inside:1: imports pkg.server" in report
    for kept in ("pkg.pure.rules", "pkg.pure.cards", "pkg.pure:", "pkg.client.good"):
        assert kept not in report
