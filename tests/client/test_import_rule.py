"""The client is a client of the public API only: no module of services/client imports the
server's code, only the generated API modules, the standard library, rich, grpc, and the
protobuf and google.rpc messages every gRPC client has (Timestamp, the error details that
docs/CLIENTS.md decodes)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "services" / "client"
API = "services.api.verrater.v1"
THIRD_PARTY = frozenset({"rich", "grpc"})
#: The public messages of googleapis-common-protos and protobuf.
GOOGLE = ("google.rpc", "google.protobuf")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a module of services.client."""
    package = "services.client"
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
    return found


def allowed(module: str) -> bool:
    top = module.split(".", maxsplit=1)[0]
    if top == "google":
        return module in GOOGLE or module.startswith(tuple(f"{name}." for name in GOOGLE))
    if top == "services":
        return module == API or module.startswith((f"{API}.", "services.client"))
    return top in sys.stdlib_module_names or top in THIRD_PARTY


def test_the_client_imports_only_the_public_api_stdlib_rich_grpc_and_google_messages() -> None:
    modules = sorted(CLIENT.rglob("*.py"))
    assert len(modules) >= 5
    offending = [
        f"{path.relative_to(CLIENT.parent.parent)}:{line} imports {module}"
        for path in modules
        for line, module in imported_modules(path)
        if not allowed(module)
    ]
    assert offending == []


def test_the_rule_catches_server_imports() -> None:
    assert not allowed("services.engine")
    assert not allowed("services.bootstrap")
    assert not allowed("services.api.generate")
    assert not allowed("redis")
    assert allowed("services.api.verrater.v1")
    assert allowed("rich.console")
    assert allowed("services.client.words")
    assert allowed("google.rpc")
    assert not allowed("google.cloud")
