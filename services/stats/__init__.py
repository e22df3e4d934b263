"""Stats: a projection of finished games (per-player game lists, ratings, the leaderboard).

`results` reads a finished game's result from its log; `ratings` rates ranked games (openskill);
`projection` is the port and its in-memory implementation; `redis_stats` and `projector` the
Redis implementation, fed by the inbox stream of `feed`; `server` the Stats gRPC service.
"""

from .feed import FinishedGameFeed, announce_finished
from .projection import FinishedGame, InMemoryStats, StatsProjection, StatsUnavailable
from .projector import StatsProjector, announce_unrecorded
from .ratings import PlayerRating, Standing
from .redis_stats import RedisStats
from .results import GameResult, SeatResult, UnrankedReason, game_result

__all__ = [
    "FinishedGame",
    "FinishedGameFeed",
    "GameResult",
    "InMemoryStats",
    "PlayerRating",
    "RedisStats",
    "SeatResult",
    "Standing",
    "StatsProjection",
    "StatsProjector",
    "StatsUnavailable",
    "UnrankedReason",
    "announce_finished",
    "announce_unrecorded",
    "game_result",
]
