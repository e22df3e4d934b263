"""The commands the client prints name `verrater` as the player's shell runs it: by name when
the PATH finds this installation, else by the path of the script beside the client's Python."""

from __future__ import annotations

from pathlib import Path

from services.client.shell import verrater_command


def _virtualenv(root: Path) -> Path:
    """A project with a virtualenv whose bin holds python and the verrater script."""
    scripts = root / "project" / ".venv" / "bin"
    scripts.mkdir(parents=True)
    for name in ("python", "verrater"):
        (scripts / name).write_text("#!/bin/sh\n")
        (scripts / name).chmod(0o755)
    return scripts


def test_a_shell_in_the_project_without_the_virtualenv_on_its_path_gets_the_relative_path(
    tmp_path: Path,
) -> None:
    scripts = _virtualenv(tmp_path)
    python = str(scripts / "python")
    project = str(tmp_path / "project")
    assert verrater_command(python, cwd=project, path="/usr/bin:/bin") == ".venv/bin/verrater"
    assert verrater_command(python, cwd=str(scripts), path="") == "./verrater"
    above = str(tmp_path)
    assert verrater_command(python, cwd=above, path="") == "project/.venv/bin/verrater"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert verrater_command(python, cwd=str(elsewhere), path="") == str(scripts / "verrater")


def test_a_shell_whose_path_finds_this_installation_gets_the_name(tmp_path: Path) -> None:
    scripts = _virtualenv(tmp_path)
    python = str(scripts / "python")
    assert verrater_command(python, cwd=str(tmp_path), path=f"/usr/bin:{scripts}") == "verrater"


def test_another_installation_on_the_path_is_not_taken_for_this_one(tmp_path: Path) -> None:
    scripts = _virtualenv(tmp_path)
    other = _virtualenv(tmp_path / "other")
    project = str(tmp_path / "project")
    found = verrater_command(str(scripts / "python"), cwd=project, path=str(other))
    assert found == ".venv/bin/verrater"


def test_without_a_script_beside_python_the_name_is_the_best_guess(tmp_path: Path) -> None:
    assert verrater_command(str(tmp_path / "python"), cwd=str(tmp_path), path="") == "verrater"
