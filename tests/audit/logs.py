"""Game logs made in memory for the audit tests, and the tools to tamper with them."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from services.audit import LogEntry
from services.codec import Record, decode_record, encode_record
from services.engine import (
    CreateGame,
    Event,
    ExplicitSetup,
    Phase,
    Ruleset,
    deciding_seat,
    execute,
    initial_state,
    legal_commands,
    to_act,
)
from services.engine.simulate import play_random_game
from services.eventstore import GENESIS_HASH
from services.eventstore.base import chain_events


def chained(payloads: Sequence[bytes]) -> list[LogEntry]:
    """Entries numbered from 1 and linked by the store's own hash chain."""
    stored = chain_events("audit-test", 0, GENESIS_HASH, list(payloads))
    return [LogEntry.from_stored(item) for item in stored]


def stored_log(events: Sequence[Event]) -> list[LogEntry]:
    """The entries the game service stores: each batch's decision carries its command id."""
    records = [
        Record(event, f"command-{index}" if deciding_seat(event) is not None else "")
        for index, event in enumerate(events)
    ]
    return chained([encode_record(record) for record in records])


def random_log(seed: int, players: int = 4, ruleset: Ruleset | None = None) -> list[LogEntry]:
    """A finished game between random players, as stored."""
    rules = ruleset if ruleset is not None else Ruleset.standard(players)
    game = play_random_game(rules, random.Random(seed))
    return stored_log(game.events)


def random_log_created_with(
    seed: int, players: int = 4, setup: ExplicitSetup | None = None, turn_seconds: int = 0
) -> list[LogEntry]:
    """A finished game between random players, created with a fixed setup or a turn timer."""
    rng = random.Random(seed)
    command = CreateGame(
        Ruleset.standard(players), rng.randbytes(32), setup, turn_seconds=turn_seconds
    )
    events, state = execute(initial_state(), command)
    while state.phase is not Phase.GAME_OVER:
        choice = rng.choice(legal_commands(state, to_act(state)[0]))
        batch, state = execute(state, choice)
        events.extend(batch)
    return stored_log(events)


def events_of(entries: Sequence[LogEntry]) -> list[Event]:
    return [entry.record().event for entry in entries]


def index_of(
    entries: Sequence[LogEntry], kind: type, where: Callable[[Event], bool] = lambda _: True
) -> int:
    """The index of the first event of type `kind` that satisfies `where`."""
    for index, event in enumerate(events_of(entries)):
        if isinstance(event, kind) and where(event):
            return index
    raise LookupError(f"no {kind.__name__} in this log")


def rehashed(payloads: Sequence[bytes]) -> list[LogEntry]:
    """A forger's log: the payloads renumbered and the whole chain recomputed."""
    return chained(payloads)


def payloads_of(entries: Sequence[LogEntry]) -> list[bytes]:
    return [entry.payload for entry in entries]


def with_event(entries: Sequence[LogEntry], index: int, event: Event) -> bytes:
    """The payload of entry `index` rewritten to hold `event` (its command id kept)."""
    record = decode_record(entries[index].payload)
    return encode_record(record._replace(event=event))


def edited(entries: Sequence[LogEntry], index: int, event: Event) -> list[LogEntry]:
    """Entry `index` holds `event` instead, the chain recomputed: only the replay can tell."""
    payloads = payloads_of(entries)
    payloads[index] = with_event(entries, index, event)
    return rehashed(payloads)
