"""A custom import-linter contract: only named modules may import a library's internals.

import-linter sees an external package only as a whole (`redis`), so its own contracts cannot
tell `redis.asyncio.Redis` (public) from `redis.asyncio.connection` (internals). This contract
reads the import statements themselves, from the import graph's details, and refuses any that
names one of `internal_modules` outside `allowed_importers`. pyproject.toml configures it.
"""

from __future__ import annotations

import re

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
