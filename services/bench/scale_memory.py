"""What the scale benchmark's games hold in Redis: `INFO memory` of every master, and `MEMORY
USAGE` sampled per key kind (events, lobby, timers, notifications, ...), extrapolated to every
key of the kind."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis

#: Key kinds by the first pattern a key's name matches (docs/BENCHMARKS.md, "bench scale").
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("notifications", re.compile(r"notify")),
    ("timers", re.compile(r"timer|wake")),
    ("lobby", re.compile(r"lobby")),
    ("events", re.compile(r"game|events|stream")),
)
#: Keys whose MEMORY USAGE is read per kind (the rest of the kind counted only).
SAMPLES_PER_KIND = 300


def kind_of(key: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(key):
            return kind
    return "other"


@contextmanager
def _client(url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        yield client
    finally:
        client.close()


def used_memory(urls: list[str]) -> int:
    """`used_memory` of `INFO memory`, summed over the masters at `urls`."""
    total = 0
    for url in urls:
        with _client(url) as client:
            total += int(client.info("memory")["used_memory"])
    return total


def key_count(urls: list[str]) -> int:
    total = 0
    for url in urls:
        with _client(url) as client:
            total += int(client.dbsize())
    return total


def shape_of(key: str) -> str:
    """A key's name with its ids and numbers masked: keys of one shape hold one kind of
    record (a cluster's timer buckets `{t<slot>}` and feed shards are one shape each)."""
    return _NUMBER.sub("N", _ID.sub("*", key))


#: An id: 12 or more id characters, at least one a digit or a capital (not a word like
#: `game_starting`).
_ID = re.compile(r"(?<=[:{|])(?=[a-z_-]*[A-Z0-9])[A-Za-z0-9_-]{12,}")
_NUMBER = re.compile(r"[0-9]+")


def memory_by_kind(urls: list[str], games: int, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per key shape (`shape_of`), grouped by kind: how many keys, their mean MEMORY USAGE
    (over a sample of at most `SAMPLES_PER_KIND`), the shape's total estimated from them, and
    that total per game."""
    rng = random.Random(seed)
    counts: dict[str, int] = defaultdict(int)
    samples: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for url in urls:
        with _client(url) as client:
            for key in client.scan_iter(count=1000):
                kind = shape_of(key)
                counts[kind] += 1
                # Reservoir sampling: every key of the kind equally likely to be read.
                seen = counts[kind]
                if len(samples[kind]) < SAMPLES_PER_KIND:
                    samples[kind].append((url, key))
                else:
                    slot = rng.randrange(seen)
                    if slot < SAMPLES_PER_KIND:
                        samples[kind][slot] = (url, key)
    sizes: dict[str, list[int]] = defaultdict(list)
    for url in urls:
        with _client(url) as client:
            chosen = [(kind, key) for kind in samples for at, key in samples[kind] if at == url]
            pipe = client.pipeline(transaction=False)
            for _, key in chosen:
                pipe.memory_usage(key, samples=0)
            for (kind, _), size in zip(chosen, pipe.execute(), strict=True):
                if size is not None:
                    sizes[kind].append(int(size))
    figures: dict[str, dict[str, Any]] = {}
    for shape in sorted(counts):
        mean = sum(sizes[shape]) / len(sizes[shape]) if sizes[shape] else 0.0
        total = mean * counts[shape]
        group = figures.setdefault(kind_of(shape), {"bytes": 0.0, "shapes": {}})
        per_game = round(total / max(games, 1))
        shapes: dict[str, dict[str, int]] = group["shapes"]
        shapes[shape] = {
            "keys": counts[shape],
            "bytes_per_key": round(mean),
            "bytes_per_game": per_game,
        }
        group["bytes"] += total
    for group in figures.values():
        group["bytes_per_game"] = round(group.pop("bytes") / max(games, 1))
    return figures
