"""The finished-games projection on Redis: what the projectors write and the Stats service reads.

Keys (all under the hash tag `{stats}`, so one Lua script may touch them on Redis Cluster; a
write per finished game is light next to the games' own streams, which shard by game id):

    verrater:{stats}:inbox              stream: ids of games that ended (feed.py)
    verrater:{stats}:applied            set: every game id applied (exactly once)
    verrater:{stats}:sequence           counter: the last end order handed out
    verrater:{stats}:game:<game_id>     hash: end_order, finished_at_ms, result (JSON)
    verrater:{stats}:player:<id>:games  sorted set: the player's game ids by end order
    verrater:{stats}:rating:<id>        hash: mu, sigma, rated_games, name
    verrater:{stats}:leaderboard        sorted set: rated player ids by ordinal

A result is applied by one Lua script: skip if the game is in `applied`, else check that every
rated player's `rated_games` is still what the new ratings were computed from (optimistic
concurrency: two projectors rating games of the same player cannot lose an update), then write
everything at once. On a conflict the caller re-reads the ratings and rates again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict

from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from services.engine import BotLevel
from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, is_cluster_url, redis_client

from .feed import KEY_PREFIX, announce_finished
from .projection import (
    DEFAULT_LIMIT,
    FinishedGame,
    StatsProjection,
    StatsUnavailable,
)
from .ratings import PlayerRating, Standing, rated_result
from .results import GameResult, SeatResult, UnrankedReason

APPLIED_KEY = f"{KEY_PREFIX}:applied"
SEQUENCE_KEY = f"{KEY_PREFIX}:sequence"
LEADERBOARD_KEY = f"{KEY_PREFIX}:leaderboard"
#: How often one result is re-rated after losing a race for a player's rating.
MAX_APPLY_ATTEMPTS = 16

# KEYS: applied, sequence, game hash, leaderboard, then n player game sets, then m rating hashes.
# ARGV: game id, finished_at_ms, result JSON, n, m, then per rated player:
#       rated_games it was computed from, mu, sigma, ordinal, name, player id.
_APPLY_SCRIPT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  return {'duplicate', 0}
end
local n, m = tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 1, m do
  local at = 5 + (i - 1) * 6
  local have = redis.call('HGET', KEYS[4 + n + i], 'rated_games') or '0'
  if have ~= ARGV[at + 1] then
    return {'conflict', 0}
  end
end
local order = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[3], 'end_order', order, 'finished_at_ms', ARGV[2], 'result', ARGV[3])
for i = 1, n do
  redis.call('ZADD', KEYS[4 + i], order, ARGV[1])
end
for i = 1, m do
  local at = 5 + (i - 1) * 6
  redis.call('HSET', KEYS[4 + n + i], 'rated_games', tonumber(ARGV[at + 1]) + 1,
    'mu', ARGV[at + 2], 'sigma', ARGV[at + 3], 'name', ARGV[at + 5])
  redis.call('ZADD', KEYS[4], ARGV[at + 4], ARGV[at + 6])
end
redis.call('SADD', KEYS[1], ARGV[1])
return {'ok', order}
"""


def game_key(game_id: str) -> str:
    return f"{KEY_PREFIX}:game:{game_id}"


def player_games_key(player_id: str) -> str:
    return f"{KEY_PREFIX}:player:{player_id}:games"


def rating_key(player_id: str) -> str:
    return f"{KEY_PREFIX}:rating:{player_id}"


def connect(url: str) -> AnyRedis:
    """A client for the projection's keys: text replies, and no socket timeout or retries of
    redis-py's own. With those, redis-py can swallow a task's cancellation on Python 3.11 (and
    then retry), so a projector would not stop; `RedisStats.call` puts the timeout around each
    call instead, as the event store does."""
    if is_cluster_url(url):
        # The cluster client's retries follow MOVED replies and failovers: keep them.
        return redis_client(url, decode_responses=True, socket_timeout=None)
    return redis_client(
        url, decode_responses=True, socket_timeout=None, retry=Retry(NoBackoff(), 0)
    )


def _result_to_json(result: GameResult) -> str:
    return json.dumps(asdict(result), separators=(",", ":"))


def _result_from_json(text: str) -> GameResult:
    data = json.loads(text)
    return GameResult(
        game_id=data["game_id"],
        seats=tuple(
            SeatResult(
                **{**seat, "bot_level": BotLevel(seat["bot_level"]) if seat["bot_level"] else None}
            )
            for seat in data["seats"]
        ),
        winners=tuple(data["winners"]),
        early=data["early"],
        unranked_reason=UnrankedReason(data["unranked_reason"]),
    )


def _rating_from_hash(player_id: str, fields: dict[str, str]) -> PlayerRating:
    if not fields:
        return PlayerRating(player_id)
    return PlayerRating(
        player_id,
        fields.get("name", ""),
        float(fields["mu"]),
        float(fields["sigma"]),
        int(fields["rated_games"]),
    )


class RedisStats(StatsProjection):
    """Reads and writes the projection's keys. `record_finished` only queues the game id: the
    projectors (`projector.py`) read the log and call `apply`."""

    def __init__(self, redis: AnyRedis, *, command_timeout: float = 5.0) -> None:
        """`redis` should come from :func:`connect` (text replies, no redis-py timeouts)."""
        if not redis.get_encoder().decode_responses:
            raise ValueError("RedisStats reads text: connect with decode_responses=True")
        self.command_timeout = command_timeout
        self.redis = redis
        self._apply_script = redis.register_script(_APPLY_SCRIPT)

    @classmethod
    def from_url(cls, url: str, *, command_timeout: float = 5.0) -> RedisStats:
        return cls(connect(url), command_timeout=command_timeout)

    @asynccontextmanager
    async def call(self, blocking_seconds: float = 0.0) -> AsyncIterator[None]:
        """Around Redis calls: a timeout (`command_timeout`, plus what a blocking command may
        wait), and connection trouble as :class:`StatsUnavailable`."""
        try:
            async with asyncio.timeout(self.command_timeout + blocking_seconds):
                yield
        except TRANSIENT_REDIS_ERRORS as error:
            raise StatsUnavailable(f"redis unreachable: {error!r}") from error

    async def record_finished(self, game_id: str) -> None:
        """See :meth:`StatsProjection.record_finished`: one XADD to the inbox."""
        async with self.call():
            await announce_finished(self.redis, game_id)

    async def is_applied(self, game_id: str) -> bool:
        async with self.call():
            return bool(await self.redis.sismember(APPLIED_KEY, game_id))

    async def ratings(self, player_ids: tuple[str, ...]) -> dict[str, PlayerRating]:
        """The current ratings of these players (the default for the never rated)."""
        async with self.call(), self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hgetall(rating_key(player_id))
            replies: list[dict[str, str]] = await pipe.execute()
        return {
            player_id: _rating_from_hash(player_id, fields)
            for player_id, fields in zip(player_ids, replies, strict=True)
        }

    async def apply(self, result: GameResult, finished_at_ms: int) -> bool:
        """Record `result` (rating its players if ranked) unless it already was; False for a
        repeat. Re-rates when another projector changed one of its players' ratings meanwhile."""
        for _ in range(MAX_APPLY_ATTEMPTS):
            current = await self.ratings(result.players) if result.ranked else {}
            rated, after = rated_result(result, current)
            players = list(rated.players)
            keys = [APPLIED_KEY, SEQUENCE_KEY, game_key(result.game_id), LEADERBOARD_KEY]
            keys += [player_games_key(player) for player in players]
            keys += [rating_key(player) for player in after]
            args: list[str | int | float] = [
                result.game_id,
                finished_at_ms,
                _result_to_json(rated),
                len(players),
                len(after),
            ]
            for player, rating in after.items():
                args += [
                    current[player].rated_games,
                    repr(rating.mu),
                    repr(rating.sigma),
                    repr(rating.ordinal),
                    rating.name,
                    player,
                ]
            async with self.call():
                status, _ = await self._apply_script(keys=keys, args=args)
            if status != "conflict":
                return bool(status == "ok")
            await asyncio.sleep(0)
        raise StatsUnavailable(
            f"game {result.game_id}: its players' ratings kept changing; try again later"
        )

    async def finished_games(
        self, player_id: str, limit: int = DEFAULT_LIMIT, before: int = 0
    ) -> list[FinishedGame]:
        """See :meth:`StatsProjection.finished_games`."""
        async with self.call():
            reply = await self.redis.zrevrangebyscore(
                player_games_key(player_id),
                f"({before}" if before else "+inf",
                "-inf",
                start=0,
                num=limit,
            )
            game_ids = [str(game_id) for game_id in reply]
            async with self.redis.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.hgetall(game_key(game_id))
                replies: list[dict[str, str]] = await pipe.execute()
        return [
            FinishedGame(
                _result_from_json(fields["result"]),
                int(fields["end_order"]),
                int(fields["finished_at_ms"]),
            )
            for fields in replies
            if fields
        ]

    async def rating(self, player_id: str) -> Standing:
        """See :meth:`StatsProjection.rating`."""
        async with self.call(), self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(rating_key(player_id))
            pipe.zrevrank(LEADERBOARD_KEY, player_id)
            fields, rank = await pipe.execute()
        return Standing(_rating_from_hash(player_id, fields), 0 if rank is None else rank + 1)

    async def leaderboard(self, limit: int = DEFAULT_LIMIT) -> list[Standing]:
        """See :meth:`StatsProjection.leaderboard`."""
        async with self.call():
            reply = await self.redis.zrevrange(LEADERBOARD_KEY, 0, limit - 1)
        player_ids = [str(player_id) for player_id in reply]
        ratings = await self.ratings(tuple(player_ids))
        return [
            Standing(ratings[player_id], position)
            for position, player_id in enumerate(player_ids, start=1)
        ]

    async def close(self) -> None:
        """See :meth:`StatsProjection.close`."""
        await self.redis.aclose()
