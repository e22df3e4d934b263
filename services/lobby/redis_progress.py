"""The games' summaries (services/lobby/progress.py) on Redis or a Redis Cluster: a small
string per game, ``verrater:lobby:{<game id>}:progress``, in the game's slot; written by a
script that never puts an older version over a newer one, read in one ``MGET`` (on a cluster,
where the games' keys are on many slots, one script a master: ``read_many``)."""

from __future__ import annotations

from collections.abc import Sequence

from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, read_many, redis_client

from . import redis_keys as keys
from .progress import GameSummary, ProgressBoard
from .store import LobbyUnavailable

#: How long a game's summary is kept after its last write: longer than any decision may take
#: (14 days); a game idle for longer is asked of the game service again.
KEPT_MS = 30 * 24 * 3600 * 1000

# KEYS[1] the summary; ARGV: version, summary (JSON starting {"v":<version>), kept ms.
# Sent as EVAL (small, and a cluster's promoted replica may not have it cached).
_KEEP_SCRIPT = """
local kept = redis.call('GET', KEYS[1])
if kept then
  local version = tonumber(string.match(kept, '^{"v":(%d+)'))
  if version and version >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""


class RedisProgressBoard(ProgressBoard):
    """The board on Redis, shared by every game and lobby replica."""

    def __init__(self, client: AnyRedis, *, kept_ms: int = KEPT_MS) -> None:
        super().__init__()
        self._redis = client
        self._kept_ms = kept_ms

    @classmethod
    def from_url(cls, url: str) -> RedisProgressBoard:
        return cls(redis_client(url))

    async def summaries(self, game_ids: Sequence[str]) -> dict[str, GameSummary]:
        if not game_ids:
            return {}
        names = [keys.progress_key(game_id) for game_id in game_ids]
        try:
            raws = await read_many(self._redis, names)
        except TRANSIENT_REDIS_ERRORS as error:
            raise LobbyUnavailable(f"the lobby store is unavailable, retry: {error}") from error
        return {
            game_id: GameSummary.from_json(raw)
            for game_id, raw in zip(game_ids, raws, strict=True)
            if raw is not None
        }

    async def _write(self, batch: Sequence[tuple[str, GameSummary]]) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for game_id, summary in batch:
                    pipe.eval(
                        _KEEP_SCRIPT,
                        1,
                        keys.progress_key(game_id),
                        summary.version,
                        summary.to_json(),
                        self._kept_ms,
                    )
                await pipe.execute()
        except TRANSIENT_REDIS_ERRORS as error:
            raise LobbyUnavailable(f"the lobby store is unavailable, retry: {error}") from error

    async def close(self, timeout: float = 2.0) -> None:
        await super().close(timeout)
        await self._redis.aclose()
