"""Regenerate the Python code of the protobuf contract: `python -m services.api.generate`.

One protoc run (grpcio-tools) writes the messages (`*_pb2.py`), the gRPC stubs
(`*_pb2_grpc.py`) and their typed stubs (`.pyi`, mypy-protobuf) for every file under
`proto/verrater/`; protoletariat then rewrites protoc's absolute imports (`from verrater.v1
import ...`) into relative ones, so the package imports as `services.api.verrater.v1` without
sys.path tricks. The output is checked in; `tests/api/test_generated_code.py` fails when it is
stale. The generator versions are pinned in pyproject.toml because their version strings end up
in the generated files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf.descriptor_pb2 import FileDescriptorSet

REPO_ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = REPO_ROOT / "proto"
#: The generated package: `proto/verrater/...` becomes `services/api/verrater/...`.
API_DIR = Path(__file__).resolve().parent
PACKAGE = "verrater"

_INIT_TEXT = '"""Generated from proto/ by `python -m services.api.generate`; do not edit."""\n'


def _tool(name: str) -> str:
    """A console script installed beside the running interpreter (the project's venv)."""
    return str(Path(sys.executable).with_name(name))


def generate(out_dir: Path, proto_dir: Path = PROTO_DIR) -> list[Path]:
    """Write the generated package `out_dir/verrater/` from `proto_dir`; return its files.

    Any earlier `out_dir/verrater/` is replaced whole, so code of a deleted .proto goes too.
    """
    # Only our package: the vendored google/rpc protos come with googleapis-common-protos.
    protos = sorted(
        p.relative_to(proto_dir).as_posix() for p in (proto_dir / PACKAGE).rglob("*.proto")
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "out"
        work.mkdir()
        descriptors = Path(tmp) / "descriptors.binpb"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"--proto_path={proto_dir}",
                f"--plugin=protoc-gen-mypy={_tool('protoc-gen-mypy')}",
                f"--plugin=protoc-gen-mypy_grpc={_tool('protoc-gen-mypy_grpc')}",
                f"--python_out={work}",
                f"--grpc_python_out={work}",
                f"--mypy_out={work}",
                f"--mypy_grpc_out={work}",
                "--mypy_opt=quiet",
                "--mypy_grpc_opt=quiet",
                "--include_imports",
                f"--descriptor_set_out={descriptors}",
                *protos,
            ],
            check=True,
            cwd=proto_dir,
            stdout=subprocess.DEVNULL,
        )
        _drop_empty_grpc_modules(work, descriptors)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "protoletariat",
                f"--python-out={work}",
                "--in-place",
                # __init__.py files, and __init__.pyi ones importing every submodule, so that
                # mypy resolves the stubs' `from ... import verrater` + `verrater.v1.x_pb2.Y`.
                "--create-package",
                "raw",
                str(descriptors),
            ],
            check=True,
        )
        for init in (work / PACKAGE).rglob("__init__.py"):
            init.write_text(_INIT_TEXT, encoding="utf-8")
        target = out_dir / PACKAGE
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(work / PACKAGE, target)
    return sorted(p for p in target.rglob("*") if p.is_file())


def _drop_empty_grpc_modules(out_dir: Path, descriptors: Path) -> None:
    """protoc writes a `_pb2_grpc` module for every .proto; keep those of files with services."""
    for proto in FileDescriptorSet.FromString(descriptors.read_bytes()).file:
        if not proto.service:
            stem = out_dir / proto.name.removesuffix(".proto")
            for suffix in ("_pb2_grpc.py", "_pb2_grpc.pyi"):
                Path(f"{stem}{suffix}").unlink(missing_ok=True)


def main() -> None:
    """Regenerate the checked-in code under services/api/."""
    for path in generate(API_DIR):
        print(path.relative_to(REPO_ROOT))


if __name__ == "__main__":
    main()
