"""The Stats gRPC service: a thin entry point over a `StatsProjection`.

Any valid token may ask (the interceptor rejects calls without one); an empty player id means
the caller. INVALID_ARGUMENT for a malformed request, UNAVAILABLE when the projection's store
cannot be reached (retry).
"""

from __future__ import annotations

from services.api.verrater.v1 import stats_pb2, stats_pb2_grpc
from services.codec import bot_level_to_proto
from services.errors import Reason, ServiceError
from services.rpc import Context, authenticated, checked_id

from .projection import DEFAULT_LIMIT, MAX_LIMIT, FinishedGame, StatsProjection
from .ratings import Standing
from .results import UnrankedReason

_REASONS: dict[UnrankedReason, stats_pb2.UnrankedReason.ValueType] = {
    UnrankedReason.NONE: stats_pb2.UNRANKED_REASON_NONE,
    UnrankedReason.SANDBOX: stats_pb2.UNRANKED_REASON_SANDBOX,
    UnrankedReason.BOTS: stats_pb2.UNRANKED_REASON_BOTS,
    UnrankedReason.TABLE: stats_pb2.UNRANKED_REASON_TABLE,
    UnrankedReason.TURN_TIMER: stats_pb2.UNRANKED_REASON_TURN_TIMER,
}


def game_to_proto(game: FinishedGame) -> stats_pb2.FinishedGame:
    result = game.result
    return stats_pb2.FinishedGame(
        game_id=result.game_id,
        end_order=game.end_order,
        finished_at_ms=game.finished_at_ms,
        seats=[
            stats_pb2.FinishedSeat(
                seat=seat.seat,
                player_id=seat.player_id,
                name=seat.name,
                bot_level=bot_level_to_proto(seat.bot_level),
                final_vp=seat.final_vp,
                rank=seat.rank,
                replaced_by_bot=seat.replaced_by_bot,
                ordinal_before=seat.ordinal_before,
                ordinal_after=seat.ordinal_after,
            )
            for seat in result.seats
        ],
        winners=result.winners,
        ranked=result.ranked,
        unranked_reason=_REASONS[result.unranked_reason],
        early=result.early,
    )


def standing_to_proto(standing: Standing) -> stats_pb2.Rating:
    rating = standing.rating
    return stats_pb2.Rating(
        player_id=rating.player_id,
        name=rating.name,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        rated_games=rating.rated_games,
        position=standing.position,
    )


def _player_id(requested: str) -> str:
    if not requested:
        return authenticated().subject
    return checked_id(requested, "player_id")


def _limit(requested: int) -> int:
    if requested < 0:
        raise ServiceError(Reason.MALFORMED_REQUEST, "limit cannot be negative", field="limit")
    return min(requested or DEFAULT_LIMIT, MAX_LIMIT)


class StatsServicer(stats_pb2_grpc.StatsServiceServicer):
    """The Stats service's RPCs."""

    def __init__(self, projection: StatsProjection) -> None:
        self.projection = projection

    async def ListFinishedGames(
        self, request: stats_pb2.ListFinishedGamesRequest, context: Context
    ) -> stats_pb2.ListFinishedGamesResponse:
        """A player's finished games, newest first, a page at a time."""
        if request.before < 0:
            raise ServiceError(
                Reason.MALFORMED_REQUEST, "before cannot be negative", field="before"
            )
        limit = _limit(request.limit)
        # One more than asked tells whether another page follows.
        games = await self.projection.finished_games(
            _player_id(request.player_id), limit + 1, request.before
        )
        page = games[:limit]
        return stats_pb2.ListFinishedGamesResponse(
            games=[game_to_proto(game) for game in page],
            next_before=page[-1].end_order if len(games) > limit else 0,
        )

    async def GetRating(
        self, request: stats_pb2.GetRatingRequest, context: Context
    ) -> stats_pb2.GetRatingResponse:
        """A player's rating and leaderboard place."""
        standing = await self.projection.rating(_player_id(request.player_id))
        return stats_pb2.GetRatingResponse(rating=standing_to_proto(standing))

    async def Leaderboard(
        self, request: stats_pb2.LeaderboardRequest, context: Context
    ) -> stats_pb2.LeaderboardResponse:
        """The best rated players, best first."""
        standings = await self.projection.leaderboard(_limit(request.limit))
        return stats_pb2.LeaderboardResponse(
            ratings=[standing_to_proto(standing) for standing in standings]
        )
