"""The finished-games projection: its port, and the in-memory implementation (embedded mode).

A projection answers three questions (a player's finished games, newest first; a player's
rating; the leaderboard) from what it recorded, never by scanning game logs at query time.
`record_finished(game_id)` tells it that a game ended: the in-memory projection reads the log and
applies the result at once; the Redis one queues the game id for the projector processes
(`redis.py`, `projector.py`). Recording is idempotent: a game is applied exactly once, however
often it is announced.
"""

from __future__ import annotations

import abc
import time
from dataclasses import dataclass

from services.api.verrater.v1 import events_pb2
from services.codec import decode_record
from services.errors import Reason, ServiceError
from services.eventstore import EventStore

from .ratings import PlayerRating, Standing, rated_result
from .results import GameResult, game_result

#: Page sizes of the queries: the default, and the most one call returns.
DEFAULT_LIMIT = 20
MAX_LIMIT = 100


class StatsUnavailable(ServiceError):
    """The projection's store cannot be reached; retrying later may succeed."""

    def __init__(self, message: str) -> None:
        super().__init__(Reason.STORE_UNAVAILABLE, f"stats are unavailable, retry: {message}")


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A recorded result and where it stands in the projection's history.

    `end_order` numbers finished games in the order the projection applied them (1, 2, ...):
    listings sort by it and page with it. `finished_at_ms` is when the end was announced.
    """

    result: GameResult
    end_order: int
    finished_at_ms: int


async def read_result(store: EventStore, game_id: str) -> GameResult:
    """The result of a finished game, from its whole log (GameNotOver while it runs).

    A result needs the first event (who sat where), the last (the final score) and the
    decisions a bot took for a seat whose timer ran out: only those are decoded into engine
    events; the events in between are parsed as far as their flag.
    """
    stored = await store.read(game_id)
    if len(stored) < 3:
        return game_result(game_id, [decode_record(item.payload) for item in stored])
    inner = [item.payload for item in stored[1:-1]]
    records = [decode_record(stored[0].payload)]
    records += [
        decode_record(payload)
        for payload in inner
        if events_pb2.GameEvent.FromString(payload).turn_timer_expired
    ]
    records.append(decode_record(stored[-1].payload))
    return game_result(game_id, records, log_length=len(stored))


def now_ms() -> int:
    return int(time.time() * 1000)


class StatsProjection(abc.ABC):
    """Finished games per player, ratings of ranked games, and the leaderboard."""

    @abc.abstractmethod
    async def record_finished(self, game_id: str) -> None:
        """Note that `game_id` has ended; its result is applied exactly once."""

    @abc.abstractmethod
    async def finished_games(
        self, player_id: str, limit: int = DEFAULT_LIMIT, before: int = 0
    ) -> list[FinishedGame]:
        """The player's finished games, newest first: at most `limit`, and only those with
        `end_order < before` when `before` is set (the next page starts below the last one)."""

    @abc.abstractmethod
    async def rating(self, player_id: str) -> Standing:
        """The player's rating and leaderboard place (the default rating if never rated)."""

    @abc.abstractmethod
    async def leaderboard(self, limit: int = DEFAULT_LIMIT) -> list[Standing]:
        """The best `limit` rated players by ordinal, best first."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections; idempotent."""


class InMemoryStats(StatsProjection):
    """The projection in dicts, fed directly by `record_finished` from the same event loop.

    Applying never awaits between its check and its writes, so it is atomic by construction,
    like the in-memory event store.
    """

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self._games: dict[str, FinishedGame] = {}
        self._by_player: dict[str, list[str]] = {}
        self._ratings: dict[str, PlayerRating] = {}

    async def record_finished(self, game_id: str) -> None:
        """See :meth:`StatsProjection.record_finished`: reads the log, applies the result."""
        if game_id in self._games:
            return
        result = await read_result(self._store, game_id)
        self.apply(result, now_ms())

    def apply(self, result: GameResult, finished_at_ms: int) -> bool:
        """Record `result` unless it already was; False for a repeat."""
        if result.game_id in self._games:
            return False
        current = {player: self._rating(player) for player in result.players}
        result, after = rated_result(result, current)
        self._ratings.update(after)
        finished = FinishedGame(result, len(self._games) + 1, finished_at_ms)
        self._games[result.game_id] = finished
        for player in result.players:
            self._by_player.setdefault(player, []).append(result.game_id)
        return True

    async def finished_games(
        self, player_id: str, limit: int = DEFAULT_LIMIT, before: int = 0
    ) -> list[FinishedGame]:
        """See :meth:`StatsProjection.finished_games`."""
        games = [self._games[game_id] for game_id in reversed(self._by_player.get(player_id, []))]
        return [game for game in games if not before or game.end_order < before][:limit]

    async def rating(self, player_id: str) -> Standing:
        """See :meth:`StatsProjection.rating`."""
        board = self._board()
        rating = self._rating(player_id)
        position = board.index(rating) + 1 if rating in board else 0
        return Standing(rating, position)

    async def leaderboard(self, limit: int = DEFAULT_LIMIT) -> list[Standing]:
        """See :meth:`StatsProjection.leaderboard`."""
        return [
            Standing(rating, position)
            for position, rating in enumerate(self._board()[:limit], start=1)
        ]

    async def close(self) -> None:
        """Nothing to release: the event store belongs to the game service."""

    def _rating(self, player_id: str) -> PlayerRating:
        return self._ratings.get(player_id) or PlayerRating(player_id)

    def _board(self) -> list[PlayerRating]:
        # Same order as the Redis sorted set read in reverse: ordinal, then id, both descending.
        return sorted(self._ratings.values(), key=lambda r: (r.ordinal, r.player_id), reverse=True)
