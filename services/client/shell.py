"""How the player's shell runs the `verrater` command, for the commands the client prints (to
resume a game, replay and audit it, join a table).

`make run` and `make play` install `verrater` in the project's virtualenv (`.venv/bin`), which a
newcomer's shell does not search: a bare `verrater replay ...` would answer "command not found".
So the client names the command as that shell finds it: `verrater` when the PATH leads to this
very installation, else the script's path (relative to the working directory when it lies
below it, as `.venv/bin/verrater` does for `make play`).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

NAME = "verrater"


def verrater_command(
    executable: str | None = None, cwd: str | None = None, path: str | None = None
) -> str:
    """How a shell in `cwd` with `path` (default: this process's) runs the `verrater` script
    installed beside `executable` (default: this Python)."""
    folder = Path(os.path.abspath(executable or sys.executable)).parent
    script = folder / NAME
    if not script.is_file():
        return NAME  # not installed beside this Python: the name is the best guess
    found = shutil.which(NAME, path=path if path is not None else os.environ.get("PATH"))
    if found is not None and Path(found).resolve() == script.resolve():
        return NAME
    here = Path(os.path.abspath(cwd or os.getcwd()))
    if not script.is_relative_to(here):
        return str(script)
    relative = str(script.relative_to(here))
    return relative if os.sep in relative else os.path.join(".", relative)  # not a PATH search
