"""Players' ratings: openskill's Weng-Lin Bayesian ratings with the Plackett-Luce model.

Every player is a team of one; a game ranks its seats by final VP (ties share a rank). A rating
is (mu, sigma): the estimated skill and its uncertainty. Leaderboards sort by the conservative
`ordinal = mu - 3 * sigma`, so a newcomer (25, 8.33) starts at 0 and climbs by playing.
Pure: the projections read the current ratings, call `rate`, and write the outcome atomically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .results import GameResult

_MODEL = PlackettLuce()
DEFAULT_MU: float = _MODEL.mu
DEFAULT_SIGMA: float = _MODEL.sigma


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's rating; `rated_games` counts the ranked games behind it (0: never rated)."""

    player_id: str
    name: str = ""
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    rated_games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate the leaderboard sorts by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Standing:
    """A rating and its place on the leaderboard (1 = top; 0 = not on it: never rated)."""

    rating: PlayerRating
    position: int


def rate(result: GameResult, current: Mapping[str, PlayerRating]) -> dict[str, PlayerRating]:
    """The new ratings of a ranked game's players, from their ratings before it.

    `current` must hold every player of `result` (a newcomer as a default PlayerRating). Names
    are refreshed from the game, so the leaderboard shows the name a player last played under.
    """
    if not result.ranked:
        raise ValueError(f"game {result.game_id} is not ranked: {result.unranked_reason}")
    seats = [seat for seat in result.seats if seat.human]
    teams = [
        [_MODEL.rating(current[seat.player_id].mu, current[seat.player_id].sigma)] for seat in seats
    ]
    rated = _MODEL.rate(teams, ranks=[float(seat.rank) for seat in seats])
    return {
        seat.player_id: PlayerRating(
            seat.player_id,
            seat.name,
            team[0].mu,
            team[0].sigma,
            current[seat.player_id].rated_games + 1,
        )
        for seat, team in zip(seats, rated, strict=True)
    }


def rated_result(
    result: GameResult, current: Mapping[str, PlayerRating]
) -> tuple[GameResult, dict[str, PlayerRating]]:
    """The result with ordinals before/after filled in, and the new ratings (none if unranked)."""
    if not result.ranked:
        return result, {}
    after = rate(result, current)
    return (
        result.with_ordinals(
            {player: current[player].ordinal for player in after},
            {player: rating.ordinal for player, rating in after.items()},
        ),
        after,
    )
