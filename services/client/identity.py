"""Who the player is on each server: the player id and credential, kept between runs.

`RegisterGuest` shows a credential once; with it (and the player id) `SignIn` gives a fresh
token after any restart, and `ListMyGames` the games to go back to (docs/CLIENTS.md, "Sessions
and rejoining"). The pair is kept in one JSON file in the user's configuration directory, one
entry per server address, readable and writable by the user only (mode 0600, its folder 0700).
It is written to a temporary file first and moved into place, so a crash never leaves half a
file, and a failure to write is reported, never hidden: without the file there is no way back.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "credentials.json"
#: Said in `verrater play --help`: where the credential lives.
WHERE = "$XDG_CONFIG_HOME/verrater/credentials.json (default ~/.config/verrater/credentials.json)"


class IdentityError(Exception):
    """The credentials file cannot be read or written; the message says which and why."""


@dataclass(frozen=True, slots=True)
class StoredIdentity:
    """One server's player: what `SignIn` needs, and the name to greet them by."""

    player_id: str
    credential: str
    display_name: str


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/verrater`, or `~/.config/verrater` when that is unset or relative (the
    XDG Base Directory specification ignores relative paths)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "verrater"


class IdentityStore:
    """The credentials file: `load` and `save` one server's identity."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def default(cls) -> IdentityStore:
        return cls(config_dir() / FILE_NAME)

    def _servers(self) -> dict[str, dict[str, str]]:
        try:
            text = self.path.read_text("utf-8")
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise IdentityError(f"cannot read {self.path}: {error.strerror or error}") from None
        try:
            document = json.loads(text)
            servers = document["servers"]
            if not isinstance(servers, dict):
                raise TypeError("servers is not an object")
        except (ValueError, KeyError, TypeError) as error:
            raise IdentityError(f"{self.path} is not a credentials file ({error})") from None
        return {str(key): value for key, value in servers.items() if isinstance(value, dict)}

    def load(self, server: str) -> StoredIdentity | None:
        """The identity stored for `server`, or None."""
        entry = self._servers().get(server)
        if entry is None:
            return None
        try:
            return StoredIdentity(
                str(entry["player_id"]), str(entry["credential"]), str(entry.get("name", ""))
            )
        except KeyError:
            return None

    def save(self, server: str, identity: StoredIdentity) -> None:
        """Store `identity` for `server` (replacing what was there), readable by the user only."""
        servers = self._servers()
        servers[server] = {
            "player_id": identity.player_id,
            "credential": identity.credential,
            "name": identity.display_name,
        }
        text = json.dumps({"servers": servers}, indent=2, sort_keys=True) + "\n"
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # mkstemp creates the file with mode 0600, before anything secret is in it.
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".credentials-")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(text)
                    file.flush()
                    os.fsync(file.fileno())
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as error:
            raise IdentityError(f"cannot write {self.path}: {error.strerror or error}") from None
