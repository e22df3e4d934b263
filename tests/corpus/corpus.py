"""The log corpus: stored games of every release, kept as they were stored, read by every later
release (tests/corpus/README.md; the games of a release are recorded once by `record.py`).

Each release has a folder, `tests/corpus/<release>/`, holding per game:

- `<name>.jsonl`: the game as `verrater export` writes it (docs/LOG_FORMAT.md);
- `<name>.stream.jsonl`: the game's Redis stream as the event store wrote it: a header line
  (`format` "verrater-redis-stream", `format_version` 1, the stream's `key`, the `game_id`),
  then one line per stream entry, first first: its `id` and its `fields`, a list of
  `[name, value]` pairs in the entry's order. Each name and value is its bytes: as a string
  when they are printable ASCII (the field names, the hashes), else as `{"base64": ...}` (the
  payloads);

and `manifest.json`: what was recorded (the release, the command, the commit), and per game its
files, the cases it covers (`COVERS` checks each claim) and what today's code must read from it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from services.codec import Record
from services.engine import (
    BuildingMoved,
    DiscardPileReshuffled,
    GameCreated,
    GameEnded,
)

HERE = Path(__file__).resolve().parent
STREAM_FORMAT = "verrater-redis-stream"
STREAM_FORMAT_VERSION = 1
MANIFEST = "manifest.json"
#: A person's decisions that a bot took in a row up to the game's end, at least: a takeover.
TAKEOVER_DECISIONS = 5


@dataclass(frozen=True, slots=True)
class StreamEntry:
    """One entry of a Redis stream: its id and its fields, in order, as bytes."""

    id: bytes
    fields: tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True, slots=True)
class StoredStream:
    """A game's stream as it sat in Redis: its key, the game's id and its entries."""

    key: str
    game_id: str
    entries: tuple[StreamEntry, ...]


def _encoded(data: bytes) -> str | dict[str, str]:
    """Bytes in a stream file: as text when printable ASCII, else in base64."""
    if all(0x20 <= byte < 0x7F for byte in data):
        return data.decode("ascii")
    return {"base64": base64.b64encode(data).decode("ascii")}


def _decoded(value: str | dict[str, str]) -> bytes:
    if isinstance(value, str):
        return value.encode("ascii")
    return base64.b64decode(value["base64"], validate=True)


def write_stream(stream: StoredStream, file: TextIO) -> None:
    """Write `stream` in the corpus' stream format (see the module docstring)."""
    header = {
        "format": STREAM_FORMAT,
        "format_version": STREAM_FORMAT_VERSION,
        "key": stream.key,
        "game_id": stream.game_id,
    }
    file.write(json.dumps(header) + "\n")
    for entry in stream.entries:
        fields = [[_encoded(name), _encoded(value)] for name, value in entry.fields]
        file.write(json.dumps({"id": entry.id.decode("ascii"), "fields": fields}) + "\n")


def read_stream(file: TextIO) -> StoredStream:
    """A stream file of the corpus; ValueError if it is not one."""
    lines = [line for line in file if line.strip()]
    if not lines:
        raise ValueError("an empty stream file")
    header = json.loads(lines[0])
    if header.get("format") != STREAM_FORMAT:
        raise ValueError(f"not a {STREAM_FORMAT} file: {header.get('format')!r}")
    if header.get("format_version") != STREAM_FORMAT_VERSION:
        raise ValueError(f"unknown format_version {header.get('format_version')!r}")
    entries = []
    for line in lines[1:]:
        data = json.loads(line)
        fields = tuple((_decoded(name), _decoded(value)) for name, value in data["fields"])
        entries.append(StreamEntry(str(data["id"]).encode("ascii"), fields))
    return StoredStream(str(header["key"]), str(header["game_id"]), tuple(entries))


# --- the cases a corpus covers ---------------------------------------------------------------


def _created(records: Sequence[Record]) -> GameCreated:
    created = records[0].event
    assert isinstance(created, GameCreated), "a log starts with GameCreated"
    return created


def _ended(records: Sequence[Record]) -> GameEnded:
    ended = records[-1].event
    assert isinstance(ended, GameEnded), "a finished log ends with GameEnded"
    return ended


def _players(count: int) -> Callable[[Sequence[Record]], bool]:
    def check(records: Sequence[Record]) -> bool:
        ruleset = _created(records).ruleset
        return ruleset is not None and ruleset.players == count

    return check


def _builder_moved(records: Sequence[Record]) -> bool:
    ruleset = _created(records).ruleset
    moved = any(isinstance(record.event, BuildingMoved) for record in records)
    return ruleset is not None and ruleset.builder_may_move and moved


def _people(records: Sequence[Record]) -> set[int]:
    seats = _created(records).seats
    return {seat for seat, held in enumerate(seats) if held.player_id and not held.bot_level}


def _stood_in(records: Sequence[Record]) -> bool:
    people = _people(records)
    return any(record.turn_timer_expired and record.seat in people for record in records)


def _taken_over(records: Sequence[Record]) -> bool:
    """A person's seat whose last decisions, at least TAKEOVER_DECISIONS of them, a bot took
    (turn_timer_expired): the person went away and a bot played on for them to the end."""
    for seat in _people(records):
        decisions = [record for record in records if record.seat == seat]
        tail = 0
        for record in reversed(decisions):
            if not record.turn_timer_expired:
                break
            tail += 1
        if tail >= TAKEOVER_DECISIONS and tail < len(decisions):
            return True
    return False


def _bot_seats(records: Sequence[Record]) -> bool:
    """Bots sat at the table from the start, and decided."""
    seats = _created(records).seats
    bots = {seat for seat, held in enumerate(seats) if held.bot_level}
    return any(record.seat in bots for record in records)


def _reshuffled(records: Sequence[Record]) -> bool:
    return any(isinstance(record.event, DiscardPileReshuffled) for record in records)


def _early_end(records: Sequence[Record]) -> bool:
    return _ended(records).early


def _explicit_setup(records: Sequence[Record]) -> bool:
    return _created(records).setup is not None


def _ranked(records: Sequence[Record]) -> bool:
    """People only, on the standard setup, each making every one of their own decisions."""
    created = _created(records)
    everyone = _people(records) == set(range(len(created.seats))) and bool(created.seats)
    stood_in = any(record.turn_timer_expired for record in records)
    return created.ranked and created.setup is None and everyone and not stood_in


#: Each case a corpus covers, and how a game's records show it.
COVERS: dict[str, Callable[[Sequence[Record]], bool]] = {
    "3 players": _players(3),
    "4 players": _players(4),
    "builder_may_move": _builder_moved,
    "timer stand-in": _stood_in,
    "bot takeover": _taken_over,
    "bot seats": _bot_seats,
    "reshuffle": _reshuffled,
    "early end": _early_end,
    "explicit setup": _explicit_setup,
    "ranked": _ranked,
}
#: What every release's corpus covers, at least (a release may add cases, never drop one).
REQUIRED_COVERS = frozenset(COVERS)


# --- a release's folder ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CorpusGame:
    """One game of a release's corpus: its files and what was recorded about it."""

    release: str
    name: str
    game_id: str
    covers: tuple[str, ...]
    export: Path
    stream: Path
    expected: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.release}/{self.name}"


def releases(root: Path = HERE) -> list[Path]:
    """Every release's corpus folder, oldest name first."""
    return sorted(path.parent for path in root.glob(f"*/{MANIFEST}"))


def games_of(folder: Path) -> list[CorpusGame]:
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    return [
        CorpusGame(
            manifest["release"],
            game["name"],
            game["game_id"],
            tuple(game["covers"]),
            folder / game["export"],
            folder / game["stream"],
            game["expected"],
        )
        for game in manifest["games"]
    ]


def all_games(root: Path = HERE) -> Iterable[CorpusGame]:
    for folder in releases(root):
        yield from games_of(folder)
