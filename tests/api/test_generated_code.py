"""The checked-in generated code is exactly what proto/ generates today."""

from __future__ import annotations

from pathlib import Path

from services.api.generate import API_DIR, PACKAGE, generate


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in (root / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_checked_in_code_matches_what_proto_generates(tmp_path: Path) -> None:
    generate(tmp_path)
    fresh, checked_in = _files(tmp_path), _files(API_DIR)
    hint = "stale generated code: run `python -m services.api.generate`"
    assert sorted(fresh) == sorted(checked_in), hint
    assert [name for name in fresh if fresh[name] != checked_in[name]] == [], hint


def test_generated_modules_import_as_a_package() -> None:
    from services.api.verrater.v1 import events_pb2, game_pb2_grpc

    assert events_pb2.GameEvent.DESCRIPTOR.full_name == "verrater.v1.GameEvent"
    assert hasattr(game_pb2_grpc, "GameServiceServicer")


def test_every_reason_has_one_status_code() -> None:
    from services.errors import Reason
    from services.rpc import STATUS_CODES

    assert set(STATUS_CODES) == set(Reason)
