"""The stored credential: where it lives, who may read it, one entry per server."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from services.client.identity import (
    FILE_NAME,
    IdentityError,
    IdentityStore,
    StoredIdentity,
    config_dir,
)

ANNA = StoredIdentity("p-anna", "secret-anna", "Anna")


def test_the_config_directory_follows_xdg_and_falls_back_to_dot_config(tmp_path: Path) -> None:
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "verrater"
    assert config_dir({}) == Path.home() / ".config" / "verrater"
    assert config_dir({"XDG_CONFIG_HOME": "relative/path"}) == Path.home() / ".config" / "verrater"


def test_the_credentials_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    store = IdentityStore(tmp_path / "verrater" / FILE_NAME)
    store.save("127.0.0.1:50051", ANNA)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    assert store.load("127.0.0.1:50051") == ANNA


def test_each_server_has_its_own_entry(tmp_path: Path) -> None:
    store = IdentityStore(tmp_path / FILE_NAME)
    bert = StoredIdentity("p-bert", "secret-bert", "Bert")
    store.save("local:1", ANNA)
    store.save("remote:2", bert)
    assert store.load("local:1") == ANNA
    assert store.load("remote:2") == bert
    assert store.load("elsewhere:3") is None
    store.save("local:1", bert)  # a new player for the same server replaces the old one
    assert store.load("local:1") == bert
    assert store.load("remote:2") == bert


def test_no_file_is_no_identity(tmp_path: Path) -> None:
    assert IdentityStore(tmp_path / FILE_NAME).load("local:1") is None


def test_a_damaged_file_is_reported_not_overwritten_silently(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_text("{not json", "utf-8")
    with pytest.raises(IdentityError, match="is not a credentials file"):
        IdentityStore(path).load("local:1")


def test_a_directory_that_cannot_be_written_is_reported(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("", "utf-8")
    with pytest.raises(IdentityError, match=r"cannot (read|write)"):
        IdentityStore(blocked / "verrater" / FILE_NAME).save("local:1", ANNA)
