"""The event store port: what the game service may ask of a game's event log.

A game is its log. Each event is an opaque ``bytes`` payload (protobuf, encoded elsewhere) at a
1-based ``version`` that is its position in the game's log. Writers use optimistic concurrency:
they name the version they built their decision on, and a stale writer gets a
:class:`VersionConflict` instead of silently overwriting a newer history.

Hash chain (a public, stable format: auditors recompute it without our code)::

    hash = sha256(bytes.fromhex(prev_hash) + payload).hexdigest()

``prev_hash`` of version 1 is :data:`GENESIS_HASH` (64 ``"0"``); every later event's ``prev_hash``
is the ``hash`` of the event before it. Editing, removing, inserting or reordering an event breaks
the chain from that point on, which :func:`verify_chain` reports.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import AsyncGenerator, Iterable, Sequence
from types import TracebackType
from typing import NamedTuple, Self

GENESIS_HASH = "0" * 64
"""``prev_hash`` of every game's first event: 32 zero bytes, hex encoded."""


def chain_hash(prev_hash: str, payload: bytes) -> str:
    """Hash of an event: ``sha256(bytes.fromhex(prev_hash) + payload)`` as lowercase hex."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + payload).hexdigest()


class StoredEvent(NamedTuple):
    """One event as stored: its place in the game's log and its link in the hash chain.

    Immutable. A named tuple rather than a frozen dataclass because every read builds one per
    event, and a tuple is built in well under half the time (a rebuild reads hundreds).
    """

    game_id: str
    version: int
    payload: bytes
    prev_hash: str
    hash: str


def chain_events(
    game_id: str, version: int, prev_hash: str, payloads: Sequence[bytes]
) -> list[StoredEvent]:
    """Number and link ``payloads`` as the events following ``version`` whose hash is ``prev_hash``.

    Both implementations build events here so that the chain is computed in exactly one place.
    """
    events = []
    for offset, payload in enumerate(payloads, start=1):
        event_hash = chain_hash(prev_hash, payload)
        events.append(StoredEvent(game_id, version + offset, payload, prev_hash, event_hash))
        prev_hash = event_hash
    return events


def verify_chain(
    events: Iterable[StoredEvent], *, after: tuple[int, str] = (0, GENESIS_HASH)
) -> int | None:
    """Check that ``events`` is an unbroken stretch of a game's log; return where it breaks.

    By default ``events`` must be the whole log, starting at version 1 on :data:`GENESIS_HASH`.
    To check a tail, pass ``after=(version, hash)`` of the last event already trusted.

    Returns ``None`` when every link holds, else the first version that cannot be trusted: the
    log is intact up to the version before it. An edited payload reports its own version, a
    removed event reports the missing version, a forged ``prev_hash`` the forged event.
    """
    version, prev_hash = after
    for event in events:
        version += 1
        if (
            event.version != version
            or event.prev_hash != prev_hash
            or event.hash != chain_hash(prev_hash, event.payload)
        ):
            return version
        prev_hash = event.hash
    return None


class EventStoreError(Exception):
    """Base of every error the event store raises on purpose."""


class VersionConflict(EventStoreError):
    """The game's log is not at the version the writer expected: the writer's state is stale.

    Nothing was written. The caller reloads the game (from ``actual``) and decides again.
    ``actual`` can equal ``expected`` when the log holds a different event at that version
    than the writer built on (the game was rewritten, e.g. restored from another backup).
    """

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        # Positional args go to Exception so the error pickles (Celery, multiprocessing).
        super().__init__(game_id, expected, actual)
        self.game_id = game_id
        self.expected = expected
        self.actual = actual

    def __str__(self) -> str:
        return (
            f"game {self.game_id!r}: expected version {self.expected}, "
            f"log is at version {self.actual}"
        )


class StoreUnavailable(EventStoreError):
    """The backing store could not be reached; retrying later may succeed.

    For an append this means the outcome is unknown: the write may have landed before the
    connection dropped. A retry re-reads the game first and so sees its own write (the game
    service's command ids make the retried command a no-op).
    """


class ReplicationUnconfirmed(StoreUnavailable):
    """Events are on the game's Redis master but fewer replicas than configured confirmed them
    in time (``WAIT``): they may or may not survive a failover of that master.

    Raised by an append whose events were written but not confirmed (``written``), and by
    :meth:`EventStore.confirm` when the game's last events cannot be confirmed yet (the shard
    has lost its replica, or it lags). Nothing may be acknowledged or built on events that are
    not confirmed; the caller reads the game again later, once they are (or once a failover
    took them back). ``version`` is the version that could not be confirmed (0: unknown).
    """

    def __init__(
        self, game_id: str, version: int, acknowledged: int, wanted: int, *, written: bool
    ) -> None:
        super().__init__(game_id, version, acknowledged, wanted, written)
        self.game_id = game_id
        self.version = version
        self.acknowledged = acknowledged
        self.wanted = wanted
        self.written = written

    def __str__(self) -> str:
        what = "append to" if self.written else "last events of"
        return (
            f"{what} game {self.game_id!r} (version {self.version}) reached {self.acknowledged} "
            f"of {self.wanted} replicas in time: it may or may not survive a failover"
        )


class StoreClosed(EventStoreError):
    """The store was closed: raised by calls made after :meth:`EventStore.close` and by live
    subscriptions that were still open when it closed. Not retryable on this store object."""


def check_append_args(game_id: str, expected_version: int, payloads: Sequence[bytes]) -> None:
    """Reject calls that no store could honour, identically for every implementation."""
    check_game_id(game_id)
    if expected_version < 0:
        raise ValueError(f"expected_version must be >= 0, got {expected_version}")
    if not payloads:
        raise ValueError("append needs at least one payload")
    for payload in payloads:
        if not isinstance(payload, bytes):
            raise TypeError(f"payloads must be bytes, got {type(payload).__name__}")


def check_game_id(game_id: str) -> None:
    """A game id must be a non-empty string: it names the stream (and its cluster slot)."""
    if not isinstance(game_id, str) or not game_id:
        raise ValueError(f"game_id must be a non-empty string, got {game_id!r}")


def check_read_args(after_version: int, limit: int | None) -> None:
    """Shared validation of a read window."""
    if after_version < 0:
        raise ValueError(f"after_version must be >= 0, got {after_version}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be None or >= 1, got {limit}")


class EventStore(abc.ABC):
    """Per-game append-only logs with optimistic concurrency and live tailing.

    Implementations: :class:`~services.eventstore.memory.InMemoryEventStore` (embedded mode, unit
    tests) and :class:`~services.eventstore.redis.RedisEventStore` (production). One
    contract test suite runs against both, so callers can rely on exactly what is written here.
    Usable as an async context manager that closes the store on exit.
    """

    @abc.abstractmethod
    async def append(
        self, game_id: str, expected_version: int, payloads: Sequence[bytes]
    ) -> list[StoredEvent]:
        """Append ``payloads`` as the events after ``expected_version``, all or nothing.

        Raises :class:`VersionConflict` (and writes nothing) when the game's current version is
        not ``expected_version``; ``expected_version=0`` therefore creates the game and fails if
        it already exists. Returns the stored events, chained onto the previous head.
        """

    @abc.abstractmethod
    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``version > after_version`` in order, at most ``limit`` of them.

        An unknown game reads as an empty list.
        """

    @abc.abstractmethod
    async def version(self, game_id: str) -> int:
        """Version of the game's last event; 0 for an unknown game."""

    @abc.abstractmethod
    async def head(self, game_id: str) -> tuple[int, str]:
        """``(version, hash)`` of the game's last event; ``(0, GENESIS_HASH)`` for an unknown
        game, so a head can always seed :func:`verify_chain`'s ``after``."""

    @abc.abstractmethod
    def subscribe(self, game_id: str, after_version: int = 0) -> AsyncGenerator[StoredEvent, None]:
        """Every event with ``version > after_version``, exactly once and in order, forever.

        Catches up on the stored events first, then tails new ones live; a subscription to a
        game that does not exist yet waits for its first event. It ends only when the consumer
        stops iterating (``aclose()`` of the generator, or breaking out of ``async for``), which
        releases everything it held, or raises :class:`StoreClosed` when the store closes.
        """

    @abc.abstractmethod
    async def confirm(self, game_id: str) -> None:
        """Make sure every event the game's log holds now is on as many replicas as appends
        wait for: raises :class:`ReplicationUnconfirmed` when that cannot be confirmed in time
        (the events stay; a later call may confirm them). The game service calls it before it
        builds on, or acknowledges, events it read rather than appended itself. A store
        without replicas to wait for holds everything it holds durably already: nothing to do.
        """

    @property
    def confirms_replication(self) -> bool:
        """Whether :meth:`confirm` has anything to confirm (appends wait for replicas)."""
        return False

    async def incarnation(self) -> str:
        """What names this run of the backing store: it changes when the store restarts (and may
        then hold less than before: restored from an older copy, or lost its last writes).
        Raises :class:`StoreUnavailable` when the store cannot be reached, so it also serves as
        a health probe. A store that lives in this process never changes."""
        return ""

    @property
    @abc.abstractmethod
    def live_subscriptions(self) -> int:
        """Number of subscriptions currently registered for live events (metrics, leak checks)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections and background tasks; end open subscriptions. Idempotent."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
