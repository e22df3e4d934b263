"""Where the lobby keeps players and tables: in memory (embedded) or in Redis (distributed).

Tables change only through `update_table(table_id, change)`: read, apply the pure change,
write back if the table's version is still the one read (compare-and-set), else retry. The
open-tables list, the bot-fill schedule, who hosts what (per player and per network peer) and
each player's own tables are projections (indexes) kept with every write, so listing never scans,
and a lobby restart loses nothing. On Redis they follow the table's own write under a lease, so
that they can live on other cluster slots; a writer that dies between the two leaves work that
the next write of that table or `repair_indexes` (the lobby's sweep) finishes. A player's
finished games move from their tables to a short list of results once ListMyGames has seen them
end (`record_finished`).

Players keep the digest of their credential beside their name. Request ids are claimed here
too (`claim_request`): one atomic claim per (caller, request id), see `requests.py`.

The Redis implementation is in redis_store.py.
"""

from __future__ import annotations

import abc
import asyncio
import base64
import contextlib
import itertools
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from services.errors import Reason, ServiceError

from .model import GameProgress, Player, Table, TableStatus

Change = Callable[[Table], Table]
MAX_CAS_ATTEMPTS = 50
#: Tables being started that one sweep looks at, at most.
STARTING_LISTED = 1_000
#: Finished games a player's list keeps (the newest).
FINISHED_KEPT = 20
#: Request-id records the in-memory store keeps at most (the oldest go first).
MAX_REQUEST_RECORDS = 100_000


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """A claimed request id: the hash of the request, the claim's holder, and (once the first
    copy has succeeded) its answer."""

    fingerprint: str
    holder: str
    answer: bytes | None = None

    def to_json(self) -> str:
        answer = base64.b64encode(self.answer).decode() if self.answer is not None else None
        return json.dumps({"fp": self.fingerprint, "holder": self.holder, "answer": answer})

    @classmethod
    def from_json(cls, raw: str | bytes) -> RequestRecord:
        data = json.loads(raw)
        answer = base64.b64decode(data["answer"]) if data["answer"] is not None else None
        return cls(data["fp"], data["holder"], answer)


def index_change(previous: Table | None, table: Table) -> tuple[frozenset[str], frozenset[str]]:
    """Whose table lists a write changes: (players to drop the table from, players to list it
    for). Only seating changes them; a started table keeps its players, so its later writes
    leave the lists (and a finished game moved out of them) alone."""
    if previous is not None and not previous.waiting:
        return frozenset(), frozenset()
    before = previous.members if previous is not None else frozenset()
    return before - table.members, table.members


@dataclass(frozen=True, slots=True)
class PlayerGames:
    """Where a player's games list starts: their newest tables (ids, newest first, but for the
    finished games moved to their results) and their kept results (newest first)."""

    tables: list[str]
    finished: list[tuple[str, GameProgress]]


class LobbyUnavailable(ServiceError):
    """The lobby's store cannot be reached; retrying later may succeed."""

    def __init__(self, message: str, reason: Reason = Reason.STORE_UNAVAILABLE) -> None:
        super().__init__(reason, message)


class LobbyStore(abc.ABC):
    """Players, tables, and the projections over them."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[asyncio.Queue[None]]] = {}

    @abc.abstractmethod
    async def add_player(self, player: Player, credential_digest: str) -> None: ...

    @abc.abstractmethod
    async def player(self, player_id: str) -> Player | None: ...

    @abc.abstractmethod
    async def credential_digest(self, player_id: str) -> str | None:
        """The digest of the player's credential (None: no such player)."""

    @abc.abstractmethod
    async def replace_credential(self, player_id: str, credential_digest: str) -> None:
        """From now on only the credential of this digest signs the (existing) player in."""

    @abc.abstractmethod
    async def table(self, table_id: str) -> Table | None: ...

    async def tables(self, table_ids: list[str]) -> list[Table]:
        """The tables of these ids that exist, in that order."""
        found = [await self.table(table_id) for table_id in table_ids]
        return [table for table in found if table is not None]

    @abc.abstractmethod
    async def _write(self, table: Table, expected_version: int, previous: Table | None) -> bool:
        """Store `table` if the stored version is `expected_version` (0: absent; `previous` is
        the table as read at that version)."""

    @abc.abstractmethod
    async def hosted_tables(self, player_id: str) -> int:
        """How many tables `player_id` hosts that have not started or closed (a projection)."""

    @abc.abstractmethod
    async def peer_tables(self, peer: str) -> int:
        """How many tables opened from network peer `peer` have not started or closed."""

    @abc.abstractmethod
    async def my_tables(self, player_id: str, limit: int) -> list[str]:
        """The newest `limit` tables the player sits at or hosts, newest first, but for the
        finished games already moved to their results."""

    @abc.abstractmethod
    async def record_finished(self, player_id: str, table: Table, result: GameProgress) -> None:
        """Move a finished game from the player's tables to their results (the newest
        FINISHED_KEPT are kept)."""

    @abc.abstractmethod
    async def finished_games(self, player_id: str) -> list[tuple[str, GameProgress]]:
        """The player's kept results, newest first: (table id, result)."""

    async def player_games(self, player_id: str, limit: int) -> PlayerGames:
        """`my_tables` (the newest `limit`) and `finished_games` at once: one round trip on
        Redis, where ListMyGames begins."""
        return PlayerGames(
            await self.my_tables(player_id, limit), await self.finished_games(player_id)
        )

    @abc.abstractmethod
    async def claim_request(
        self, key: str, record: RequestRecord, ttl_ms: int
    ) -> RequestRecord | None:
        """Claim `key` for `record` (None) unless it is held: then the record that holds it."""

    @abc.abstractmethod
    async def answer_request(self, key: str, holder: str, answer: bytes, ttl_ms: int) -> None:
        """Keep the answer of the claim `holder` made of `key`, for `ttl_ms`."""

    @abc.abstractmethod
    async def release_request(self, key: str, holder: str) -> None:
        """Give up the claim `holder` made of `key` (its first copy failed)."""

    @abc.abstractmethod
    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        """Open public tables, oldest first (from the projection)."""

    @abc.abstractmethod
    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        """Tables whose bot-fill time has come."""

    @abc.abstractmethod
    async def tables_starting(self) -> list[str]:
        """Tables whose game is being started (STARTING), at most `STARTING_LISTED`."""

    async def repair_indexes(self) -> int:
        """Finish the index entries of table writes whose writer died before it wrote them;
        how many tables it finished. A store whose write updates a table and its indexes in
        one step (the in-memory one) never leaves any: it finishes none."""
        return 0

    async def create_table(self, table: Table) -> Table:
        if not await self._write(table, 0, None):
            raise ServiceError(Reason.BUSY, f"table id {table.table_id} is taken; retry")
        return table

    async def update_table(self, table_id: str, change: Change) -> Table:
        """Apply `change` atomically; a ServiceError from `change` leaves the table as it was."""
        for _ in range(MAX_CAS_ATTEMPTS):
            current = await self.table(table_id)
            if current is None:
                raise ServiceError(Reason.TABLE_NOT_FOUND, f"no table with id {table_id!r}")
            changed = change(current)
            if changed is current or changed == current:
                return current
            if await self._write(changed, current.version, current):
                return changed
        raise LobbyUnavailable(f"table {table_id} is too busy; retry", Reason.BUSY)

    @contextlib.asynccontextmanager
    async def subscription(self, table_id: str) -> AsyncIterator[asyncio.Queue[None]]:
        """A queue that gets a tick after every change of the table (re-read it then).

        The subscription is live when the context is entered, so a read made inside it can
        never miss a later change.
        """
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._watchers.setdefault(table_id, set()).add(queue)
        try:
            await self._watch_started()
            yield queue
        finally:
            watchers = self._watchers.get(table_id)
            if watchers is not None:
                watchers.discard(queue)
                if not watchers:
                    del self._watchers[table_id]

    @abc.abstractmethod
    async def _watch_started(self) -> None:
        """Return once changes made from now on will reach the subscribers' queues."""

    def _notify(self, table_id: str) -> None:
        for queue in self._watchers.get(table_id, ()):
            with contextlib.suppress(asyncio.QueueFull):  # one pending tick is enough
                queue.put_nowait(None)

    async def close(self) -> None:
        self._watchers.clear()


class InMemoryLobbyStore(LobbyStore):
    """The embedded lobby store: dicts, one asyncio loop, no awaits inside a write."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._players: dict[str, Player] = {}
        self._credentials: dict[str, str] = {}
        self._tables: dict[str, Table] = {}
        self._mine: dict[str, set[str]] = {}
        self._finished: dict[str, dict[str, GameProgress]] = {}
        # key -> (record, expiry on `clock`); oldest first
        self._requests: OrderedDict[str, tuple[RequestRecord, float]] = OrderedDict()

    async def add_player(self, player: Player, credential_digest: str) -> None:
        self._players[player.player_id] = player
        self._credentials[player.player_id] = credential_digest

    async def player(self, player_id: str) -> Player | None:
        return self._players.get(player_id)

    async def credential_digest(self, player_id: str) -> str | None:
        return self._credentials.get(player_id)

    async def replace_credential(self, player_id: str, credential_digest: str) -> None:
        if player_id in self._players:
            self._credentials[player_id] = credential_digest

    async def table(self, table_id: str) -> Table | None:
        return self._tables.get(table_id)

    async def _write(self, table: Table, expected_version: int, previous: Table | None) -> bool:
        current = self._tables.get(table.table_id)
        if (current.version if current is not None else 0) != expected_version:
            return False
        self._tables[table.table_id] = table
        dropped, listed = index_change(previous, table)
        for player_id in dropped:
            self._mine.get(player_id, set()).discard(table.table_id)
        for player_id in listed:
            self._mine.setdefault(player_id, set()).add(table.table_id)
        self._notify(table.table_id)
        return True

    async def hosted_tables(self, player_id: str) -> int:
        return sum(1 for t in self._tables.values() if t.host == player_id and t.waiting)

    async def peer_tables(self, peer: str) -> int:
        return sum(1 for t in self._tables.values() if t.opened_from == peer and t.waiting)

    def _newest_first(self, table_ids: set[str] | dict[str, Any]) -> list[str]:
        return sorted(table_ids, key=lambda t: (self._tables[t].created_at_ms, t), reverse=True)

    async def my_tables(self, player_id: str, limit: int) -> list[str]:
        return self._newest_first(self._mine.get(player_id, set()))[:limit]

    async def record_finished(self, player_id: str, table: Table, result: GameProgress) -> None:
        self._mine.get(player_id, set()).discard(table.table_id)
        results = self._finished.setdefault(player_id, {})
        results[table.table_id] = result
        for old in self._newest_first(results)[FINISHED_KEPT:]:
            del results[old]

    async def finished_games(self, player_id: str) -> list[tuple[str, GameProgress]]:
        results = self._finished.get(player_id, {})
        return [(table_id, results[table_id]) for table_id in self._newest_first(results)]

    def _live_request(self, key: str) -> RequestRecord | None:
        now = self._clock()
        while self._requests:
            oldest, (_, expires) = next(iter(self._requests.items()))
            if expires > now and len(self._requests) <= MAX_REQUEST_RECORDS:
                break
            del self._requests[oldest]
        entry = self._requests.get(key)
        return entry[0] if entry is not None and entry[1] > now else None

    def _keep_request(self, key: str, record: RequestRecord, ttl_ms: int) -> None:
        self._requests.pop(key, None)
        self._requests[key] = (record, self._clock() + ttl_ms / 1000)

    async def claim_request(
        self, key: str, record: RequestRecord, ttl_ms: int
    ) -> RequestRecord | None:
        held = self._live_request(key)
        if held is None:
            self._keep_request(key, record, ttl_ms)
        return held

    async def answer_request(self, key: str, holder: str, answer: bytes, ttl_ms: int) -> None:
        held = self._live_request(key)
        if held is not None and held.holder == holder:
            self._keep_request(key, RequestRecord(held.fingerprint, holder, answer), ttl_ms)

    async def release_request(self, key: str, holder: str) -> None:
        held = self._live_request(key)
        if held is not None and held.holder == holder:
            del self._requests[key]

    async def open_tables(self, size: int | None, limit: int) -> list[Table]:
        listed = [t for t in self._tables.values() if t.listed and (size is None or t.size == size)]
        return sorted(listed, key=lambda t: (t.created_at_ms, t.table_id))[:limit]

    async def _watch_started(self) -> None:
        """Writes notify in-process queues directly: nothing to start."""

    async def tables_due_for_bots(self, now_ms: int) -> list[str]:
        return [
            t.table_id
            for t in self._tables.values()
            if t.fill_bots_at_ms and t.fill_bots_at_ms <= now_ms and t.free_seats()
        ]

    async def tables_starting(self) -> list[str]:
        starting = (t.table_id for t in self._tables.values() if t.status is TableStatus.STARTING)
        return list(itertools.islice(starting, STARTING_LISTED))
