"""Custom import-linter contracts, configured in pyproject.toml.

- `external_internals`: only named modules may import a library's internals. import-linter sees
  an external package only as a whole (`redis`), so its own contracts cannot tell
  `redis.asyncio.Redis` (public) from `redis.asyncio.connection` (internals). This contract
  reads the import statements themselves, from the import graph's details, and refuses any that
  names one of `internal_modules` outside `allowed_importers`.
- `allowed_imports`: an allow-list. A package may import only what is named (and, when asked,
  the standard library); anything else, a package added tomorrow included, breaks it.
  import-linter's own `forbidden` contract is a deny-list, which a new dependency walks past.
"""

from __future__ import annotations

import re
import sys

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class ExternalInternalsContract(Contract):
    """Modules of `internal_modules` (dotted names inside an external package, e.g.
    `redis.connection`) may be imported only by `allowed_importers` (and their descendants)."""

    type_name = "external_internals"

    internal_modules = fields.ListField(subfield=fields.StringField())
    allowed_importers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        internals: list[str] = list(self.internal_modules)  # type: ignore[call-overload]
        allowed: list[str] = list(self.allowed_importers)  # type: ignore[call-overload]
        roots = {name.split(".")[0] for name in internals}
        pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in internals) + r")(\b|\.)")
        offences = []
        for root in sorted(roots):
            if root not in graph.modules:
                continue
            for importer in sorted(graph.find_modules_that_directly_import(root)):
                if any(importer == ok or importer.startswith(ok + ".") for ok in allowed):
                    continue
                for detail in graph.get_import_details(importer=importer, imported=root):
                    line = str(detail["line_contents"])
                    if pattern.search(line) or _names_internal(line, internals):
                        offences.append(f"{importer}:{detail['line_number']}: {line}")
        return ContractCheck(kept=not offences, metadata={"offences": offences})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for offence in check.metadata["offences"]:
            output.print_error(offence, bold=False)
        output.new_line()
        output.print_error(
            f"Only {', '.join(self.allowed_importers)} may import "  # type: ignore[call-overload]
            f"{', '.join(self.internal_modules)}.",  # type: ignore[call-overload]
            bold=False,
        )


def _names_internal(line: str, internals: list[str]) -> bool:
    """`from redis import connection` names `redis.connection` too."""
    match = re.match(r"\s*from\s+([\w.]+)\s+import\s+(.+)", line)
    if match is None:
        return False
    package, names = match.groups()
    imported = {name.strip().split(" as ")[0] for name in names.strip("() ").split(",")}
    return any(f"{package}.{name}" in internals for name in imported)


class AllowedImportsContract(Contract):
    """Every module of `source_modules` (and their descendants) imports only modules of
    `allowed_modules` (each with its descendants), plus the standard library when
    `allow_standard_library` is true.

    An allowed name may be internal (`services.api.verrater.v1`) or external. An external one
    may name a part of its package (`google.rpc`): import-linter keeps an external package
    whole (`google`), so then the import statement itself must name a module under it.
    """

    type_name = "allowed_imports"

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed_modules = fields.ListField(subfield=fields.StringField())
    allow_standard_library = fields.BooleanField(required=False, default=False)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        sources: list[str] = list(self.source_modules)  # type: ignore[call-overload]
        allowed: list[str] = list(self.allowed_modules)  # type: ignore[call-overload]
        stdlib = bool(self.allow_standard_library)
        offences = []
        for importer in sorted(_modules_of(graph, sources)):
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if _within(imported, allowed):
                    continue
                if graph.is_module_squashed(imported):
                    if stdlib and imported in sys.stdlib_module_names:
                        continue
                    offences += _external_offences(graph, importer, imported, allowed)
                    continue
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    offences.append(
                        f"{importer}:{detail['line_number']}: imports {imported}"
                        f" ({detail['line_contents']})"
                    )
        return ContractCheck(kept=not offences, metadata={"offences": offences})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for offence in check.metadata["offences"]:
            output.print_error(offence, bold=False)
        output.new_line()
        sources: list[str] = list(self.source_modules)  # type: ignore[call-overload]
        allowed: list[str] = list(self.allowed_modules)  # type: ignore[call-overload]
        stdlib = ", and the standard library" if self.allow_standard_library else ""
        output.print_error(
            f"{', '.join(sources)} may import only {', '.join(allowed)}{stdlib}.", bold=False
        )
        output.new_line()


def _modules_of(graph: ImportGraph, packages: list[str]) -> set[str]:
    """The packages' modules and all their descendants."""
    found: set[str] = set()
    for package in packages:
        found.add(package)
        found |= graph.find_descendants(package)
    return found


def _within(module: str, names: list[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def _external_offences(
    graph: ImportGraph, importer: str, package: str, allowed: list[str]
) -> list[str]:
    """The imports of the external `package` by `importer` that name no allowed part of it
    (every one of them when no part of the package is allowed)."""
    parts = [name for name in allowed if name.startswith(package + ".")]
    offences = []
    for detail in graph.get_import_details(importer=importer, imported=package):
        line = str(detail["line_contents"])
        if parts and all(_within(name, parts) for name in _imported_names(line, package)):
            continue
        offences.append(f"{importer}:{detail['line_number']}: {line}")
    return offences


def _imported_names(line: str, package: str) -> list[str]:
    """The modules of `package` an import statement names: `from google.rpc import status_pb2`
    names `google.rpc`, `import google.protobuf.timestamp_pb2` that module, and `from google
    import rpc` names `google.rpc`. A statement this cannot read names the package itself."""
    match = re.match(r"\s*from\s+([\w.]+)\s+import\s+(.+)", line)
    if match is not None:
        module, names = match.groups()
        if module != package:
            return [module]
        listed = [name.strip().split(" as ")[0] for name in names.strip("() ").split(",")]
        return [f"{package}.{name}" for name in listed if name] or [package]
    match = re.match(r"\s*import\s+(.+)", line)
    if match is not None:
        modules = [name.strip().split(" as ")[0] for name in match.group(1).split(",")]
        return [module for module in modules if _within(module, [package])] or [package]
    return [package]
