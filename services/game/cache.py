"""What a replica knows of one game: its state, its log as stored, and who waits on it.

The cache is only ever whole batches (an append is atomic and a read never splits one), so its
state is always at rest; watchers of a game in this process all wait on its one `CachedGame`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from services.codec import Record, decode_record
from services.engine import (
    Event,
    GameState,
    Phase,
    PlayerCommand,
    RuleViolation,
    at_rest,
    decide,
    evolve,
    fold,
    redact_event,
    to_act,
    view,
)
from services.eventstore import EventStoreError

from .clock import bot_seats_to_act, deadline_ms
from .errors import CommandIdReused
from .values import CommandResult, Update

#: How many of a game's latest versions keep what spectators see of them (a spectator that
#: joins further back makes its own, as a seat's watcher always does): about 1 KB each, so some
#: 32 KB per spectated game; live spectators are a batch (at most some 15 events) apart.
PUBLIC_MEMO = 32


def watched_update(
    record: Record,
    version: int,
    seat: int | None,
    before: GameState,
    after: GameState,
    *,
    batch_time: Callable[[int], int],
) -> Update:
    """What a watcher of `seat` (None: a spectator) sees of `record`, the event at `version`,
    which led from the state `before` it to the state `after` it. At rest the update carries
    the view and its deadline, counted from `batch_time(version)`: when the batch was
    appended."""
    rest = at_rest(after)
    return Update(
        version,
        redact_event(record.event, seat, before),
        view(after, seat) if rest else None,
        record.turn_timer_expired,
        record.command_id,
        deadline_ms(after, batch_time(version)) if rest else None,
        record.recorded_at_ms,
    )


@dataclass(frozen=True, slots=True)
class Applied:
    """The records last applied to a cached game, from version `first` on, and the state after
    each, as they were folded where the batch was decided or read: its watchers take them from
    here instead of each decoding and folding the batch again."""

    first: int
    records: Sequence[Record]
    states: Sequence[GameState]


@dataclass(slots=True)
class CachedGame:
    """What a replica knows of one game: the fold of its log up to `state.version`, and the
    log itself as stored (bytes, decoded when needed: hundreds of cached games' decoded events
    would be objects the garbage collector walks, and a young collection's pause grows with
    them)."""

    state: GameState
    payloads: list[bytes] = field(default_factory=list)
    # (seat, command id) -> (first version, last version) of the batch the command caused
    commands: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Set (and replaced by a fresh one) whenever `state` advances: watchers wait on it.
    advanced: asyncio.Event = field(default_factory=asyncio.Event)
    # TURNS watchers wait on their seat's own signal, set only when that seat must decide (or
    # the game ends, or its feed fails): the others are not woken for nothing.
    turn_signals: dict[int, asyncio.Event] = field(default_factory=dict)
    # Open Watch streams on this game in this process; the game is not evicted while any.
    watchers: int = 0
    # Those of them that are sent every event (EVENTS mode): while any, `latest` is kept.
    event_watchers: int = 0
    # The records last applied and the state after each, while anyone is sent every event.
    latest: Applied | None = None
    # Follows the store for what other replicas append, while anyone watches.
    follower: asyncio.Task[None] | None = None
    # Why following the store stopped, for the watchers to raise.
    feed_error: EventStoreError | None = None
    # When the game came to rest at `state` (the last batch's append, Unix ms; 0: unknown, a
    # log written before times were recorded): a timed decision is due turn_seconds after it.
    rest_since_ms: int = 0
    # The hash of the last cached event ("" when unknown): tells a store that lost or rewrote
    # this game's latest events (restored from an older copy) from one that has them.
    head_hash: str = ""
    # The wake-up this replica last set for the game (timers/wakeups.py), as (the version
    # it was set at, the wake time or None); None when unknown (loaded cold, say).
    wake: tuple[int, int | None] | None = None
    # Dropped from the cache because the store no longer holds what it has (a rollback): whoever
    # still holds this object loads the game again.
    dropped: bool = False
    # The last version this replica announced (its append, a cold load, a watcher's arrival).
    announced: int = -1
    # The first record of the last batch (its decision: who decided, whether a bot stood in for
    # a person whose timer ran out); None while the log holds setup events only. Announcing
    # the state again repeats what that batch told (deduplicated).
    last_decision: Record | None = None
    # What spectators see of the latest events, made once for all of them: version -> (the
    # update, the state after it). Only while someone spectates; the last PUBLIC_MEMO kept.
    public: dict[int, tuple[Update, GameState]] = field(default_factory=dict)

    def apply(
        self, records: list[Record], payloads: list[bytes], states: Sequence[GameState]
    ) -> None:
        """Add whole batches (an append is atomic, so a read never splits one): the records,
        their stored bytes, and the state after each record (the last: the new state)."""
        first = len(self.payloads) + 1
        self.payloads.extend(payloads)
        self.state = states[-1]
        self.latest = Applied(first, records, states) if self.event_watchers else None
        for record in reversed(records):
            if record.recorded_at_ms:
                self.rest_since_ms = record.recorded_at_ms
                break
        self.notify()
        # A batch starts at a decision (a record with a seat) and runs to the next one.
        starts = [(first + i, record) for i, record in enumerate(records) if record.seat >= 0]
        if starts:
            self.last_decision = starts[-1][1]
        for index, (start, decision) in enumerate(starts):
            end = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(self.payloads)
            if decision.command_id:
                self.commands[(decision.seat, decision.command_id)] = (start, end)

    def notify(self) -> None:
        """Wake the watchers the new state (or a failed feed) concerns."""
        self.advanced.set()
        self.advanced = asyncio.Event()
        if self.turn_signals:
            final = self.feed_error is not None or self.state.phase is Phase.GAME_OVER
            for seat in tuple(self.turn_signals) if final else to_act(self.state):
                signal = self.turn_signals.pop(seat, None)
                if signal is not None:
                    signal.set()

    def public_update(self, version: int, before: GameState) -> tuple[Update, GameState]:
        """What a spectator sees of the event at `version`, and the state after it, from the
        state `before` it: made by the first spectator to get there, and shared by the others
        (every spectator of a game is shown the same), for the latest PUBLIC_MEMO versions."""
        known = self.public.get(version)
        if known is not None:
            return known
        record, after = self.step(version, before)
        made = (
            watched_update(record, version, None, before, after, batch_time=self.recorded_at),
            after,
        )
        if version > self.state.version - PUBLIC_MEMO:
            self.public[version] = made
            while len(self.public) > PUBLIC_MEMO:
                del self.public[min(self.public)]
        return made

    def step(self, version: int, before: GameState) -> tuple[Record, GameState]:
        """The record at `version` and the state after it, from the state `before` it: as
        folded once where its batch was decided or read when it is among the records last
        applied (what live watchers ask for), else decoded and evolved here."""
        latest = self.latest
        if latest is not None and 0 <= version - latest.first < len(latest.records):
            return latest.records[version - latest.first], latest.states[version - latest.first]
        record = self.record(version)
        return record, evolve(before, record.event)

    def announce_on_arrival(self) -> bool:
        """Whether a watcher arriving now (a Watch or Play stream opening) should have the state
        announced again: bots owe a move in it and this replica has not announced it. Its
        client may have come here because the replica that appended the state died before
        announcing it; the sweeper would only announce it after the resend time. At most once
        per state and replica (it is marked announced); a bot's turn announced twice is
        decided once, under its command id."""
        if self.announced == self.state.version or not bot_seats_to_act(self.state):
            return False
        self.announced = self.state.version
        return True

    def turn_signal(self, seat: int) -> asyncio.Event:
        """What a TURNS watcher of `seat` waits on (shared by the seat's watchers)."""
        signal = self.turn_signals.get(seat)
        if signal is None:
            signal = self.turn_signals[seat] = asyncio.Event()
        return signal

    def record(self, version: int) -> Record:
        return decode_record(self.payloads[version - 1])

    def recorded_at(self, version: int) -> int:
        """When the batch holding `version` was appended (0: unknown, or version 0)."""
        for position in range(version, 0, -1):
            recorded = self.record(position).recorded_at_ms
            if recorded:
                return recorded
        return 0

    def replayed(self, seat: int, command_id: str, command: PlayerCommand) -> CommandResult | None:
        """What `seat`'s command `command_id` did, when this game took it already (a retry is
        answered from the log); CommandIdReused when the id first came with another command."""
        span = self.commands.get((seat, command_id)) if command_id else None
        if span is None:
            return None
        first, last = span
        before = fold(self.events(1, first - 1))
        batch = self.events(first, last)
        try:
            same = decide(before, command)[0] == batch[0]
        except RuleViolation:
            same = False
        if not same:
            raise CommandIdReused(command_id, first)
        states = tuple(accumulate(batch, evolve, initial=before))
        return CommandResult(first, batch, states, True, self.record(first))

    def events(self, first: int, last: int) -> tuple[Event, ...]:
        return tuple(decode_record(payload).event for payload in self.payloads[first - 1 : last])
