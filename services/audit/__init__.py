"""Audit and replay of finished games: prove a game was stored intact, dealt fairly and played
by the rules, from its log alone.

Pure functions over a log's entries (`export`: the JSON Lines format, `verify`: the audit,
`replay`: the story) and a thin client that fetches a log over gRPC (`client`). The format is
documented for outsiders in docs/LOG_FORMAT.md.
"""

from .export import LogEntry, LogFormatError, read_jsonl, read_log, write_jsonl
from .findings import Finding, FindingKind
from .replay import tell_story
from .verify import AuditReport, audit

__all__ = [
    "AuditReport",
    "Finding",
    "FindingKind",
    "LogEntry",
    "LogFormatError",
    "audit",
    "read_jsonl",
    "read_log",
    "tell_story",
    "write_jsonl",
]
