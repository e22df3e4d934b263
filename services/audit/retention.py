"""`verrater retention`: finished games leave Redis for export files that stay auditable.

For each game stream on the Redis (or Redis Cluster: the scan visits every master) whose last
event is the game's end, appended at least ``min_age_days`` ago (`ended_at_ms`): read the whole
log, audit it, write it as JSON Lines (docs/LOG_FORMAT.md) to ``<out>/<game id>.jsonl``, read
the file back and compare, and only then remove the stream, in one script that checks the
stream still ends at the version exported. A running game is never touched, nor one whose log
fails its audit (reported, kept for an operator to look at). ``verrater audit --file
<out>/<id>.jsonl`` proves an exported game as it proved the stored one.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from services.codec import decode_record
from services.engine import GameEnded
from services.eventstore import RedisEventStore, StoredEvent

from .export import LogEntry, read_log, write_jsonl
from .verify import audit


@dataclass
class RetentionReport:
    """What one run did: games exported and removed, and those it left alone, by reason."""

    exported: int = 0
    removed: int = 0
    running: int = 0
    too_recent: int = 0
    audit_failed: int = 0
    changed_meanwhile: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


async def retain(
    store: RedisEventStore,
    out: Path,
    *,
    min_age_days: float,
    remove: bool = True,
    now_ms: int | None = None,
) -> RetentionReport:
    """Export (and with ``remove``, remove from Redis) every finished game old enough."""
    report = RetentionReport()
    out.mkdir(parents=True, exist_ok=True)
    now = int(time.time() * 1000) if now_ms is None else now_ms
    cutoff = now - int(min_age_days * 86_400_000)
    for game_id in [game async for game in store.game_ids()]:
        stored = await store.read(game_id)
        if not stored:
            continue
        last = decode_record(stored[-1].payload)
        if not isinstance(last.event, GameEnded):
            report.running += 1
            continue
        if ended_at_ms(stored) > cutoff:
            report.too_recent += 1
            continue
        entries = [LogEntry.from_stored(event) for event in stored]
        if not audit(entries).ok:
            report.audit_failed += 1
            continue
        target = out / f"{game_id}.jsonl"
        _write_durably(target, entries, game_id)
        with target.open(encoding="utf-8") as file:
            if read_log(file).entries != entries:
                raise OSError(f"{target} does not read back as the log it was written from")
        report.exported += 1
        if remove:
            if await store.remove_game(game_id, stored[-1].version):
                report.removed += 1
            else:
                report.changed_meanwhile += 1
    return report


def ended_at_ms(stored: list[StoredEvent]) -> int:
    """When the game ended: when its last batch was appended, which only the batch's first
    record carries (the decision; `GameEnded` comes after it, without a time). 0 for a log
    written before times were recorded, which counts as old."""
    for event in reversed(stored):
        recorded = decode_record(event.payload).recorded_at_ms
        if recorded:
            return recorded
    return 0


def _write_durably(target: Path, entries: list[LogEntry], game_id: str) -> None:
    """Write the export next to its place, flush it to disk, then move it there."""
    partial = target.with_suffix(".jsonl.partial")
    with partial.open("w", encoding="utf-8") as file:
        write_jsonl(entries, file, game_id=game_id)
        file.flush()
        os.fsync(file.fileno())
    partial.replace(target)
