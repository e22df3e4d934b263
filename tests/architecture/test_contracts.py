"""The architecture's import contracts hold, and the custom one catches what it is for."""

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
