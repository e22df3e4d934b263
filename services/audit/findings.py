"""What the audit reports: findings, and the events and values they quote, in plain words."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any

from services.engine import Event, Ruleset


class FindingKind(StrEnum):
    """Which check found something wrong."""

    CHAIN = "chain"  # a broken link or numbering of the hash chain
    FORMAT = "format"  # a payload that is no canonical GameEvent, an export line that misstates it
    FAIRNESS = "fairness"  # the seed or a shuffle outcome
    REPLAY = "replay"  # an illegal decision, or events the rules do not produce
    RESULT = "result"  # final scores, winners, the end of the game


@dataclass(frozen=True, slots=True)
class Finding:
    """Something wrong with the log, at the version of the first event it concerns."""

    version: int
    kind: FindingKind
    message: str

    def __str__(self) -> str:
        return f"version {self.version} [{self.kind}] {self.message}"


def shorten(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(value: Any) -> str:
    """A value as people read it: enums by name, bytes as hex, tuples as lists."""
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return "[" + ", ".join(plain(item) for item in value) + "]"
    if isinstance(value, Ruleset):
        return f"Ruleset({value.players} players, card table {value.card_table.name!r})"
    return shorten(str(value))


def describe(event: Event) -> str:
    """An event as `Name(field=value, ...)` in plain values."""
    values = ", ".join(f"{item.name}={plain(getattr(event, item.name))}" for item in fields(event))
    return shorten(f"{type(event).__name__}({values})")
