"""The result of a finished game, read from its log alone: who sat where, final VP, ranks, and
whether the game counts for ratings.

Pure: no I/O. The projection reads the log and hands the records here, so the same rules decide
"ranked" for the in-memory and the Redis projection, and for any tool that replays a log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from services.codec import Record
from services.engine import BotLevel, GameCreated, GameEnded, competition_ranks


class UnrankedReason(StrEnum):
    """Why a finished game does not count for ratings ("" for a ranked game).

    As on the big platforms, only games between people on the standard setup who each made
    every one of their own decisions are rated.
    """

    NONE = ""
    #: Created from a setup fixed by hand, or without seat assignments (a sandbox game).
    SANDBOX = "sandbox"
    #: At least one seat was a bot.
    BOTS = "bots"
    #: The table was not ranked (or one player held two seats).
    TABLE = "table"
    #: A player's turn timer ran out and a bot decided for them at least once.
    TURN_TIMER = "turn_timer"


class GameNotOver(ValueError):
    """The log does not end with GameEnded (or is empty): there is no result to record."""

    def __init__(self, game_id: str, events: int) -> None:
        super().__init__(f"game {game_id!r} has no result yet ({events} events, no GameEnded)")
        self.game_id = game_id


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's outcome. `rank` is 1 for the winners; tied seats share a rank (1, 1, 3)."""

    seat: int
    player_id: str
    name: str
    bot_level: BotLevel | None
    final_vp: int
    rank: int
    #: A bot decided for this seat at least once because its turn timer ran out.
    replaced_by_bot: bool = False
    #: The player's rating ordinal before and after this game (ranked games only).
    ordinal_before: float | None = None
    ordinal_after: float | None = None

    @property
    def human(self) -> bool:
        return not self.bot_level and bool(self.player_id)


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game as the stats remember it."""

    game_id: str
    seats: tuple[SeatResult, ...]
    winners: tuple[int, ...]
    early: bool
    unranked_reason: UnrankedReason

    @property
    def ranked(self) -> bool:
        return self.unranked_reason is UnrankedReason.NONE

    @property
    def players(self) -> tuple[str, ...]:
        """The people who played (each once), in seat order: whose game lists show it."""
        return tuple(dict.fromkeys(seat.player_id for seat in self.seats if seat.human))

    def with_ordinals(self, before: dict[str, float], after: dict[str, float]) -> GameResult:
        """The result with each rated player's ordinal before and after the game."""
        seats = tuple(
            replace(
                seat,
                ordinal_before=before.get(seat.player_id),
                ordinal_after=after.get(seat.player_id),
            )
            if seat.human
            else seat
            for seat in self.seats
        )
        return replace(self, seats=seats)


def unranked_reason(created: GameCreated, timed_out: bool) -> UnrankedReason:
    """Why a game with this first event (and a turn timer that ran out or not) is unrated."""
    humans = [seat.player_id for seat in created.seats if not seat.bot_level]
    if created.setup is not None or not created.seats:
        return UnrankedReason.SANDBOX
    if len(humans) != len(created.seats):
        return UnrankedReason.BOTS
    if not created.ranked or len(set(humans)) != len(humans) or not all(humans):
        return UnrankedReason.TABLE
    if timed_out:
        return UnrankedReason.TURN_TIMER
    return UnrankedReason.NONE


def game_result(
    game_id: str, records: Sequence[Record], *, log_length: int | None = None
) -> GameResult:
    """The result of the finished game whose log is `records`; GameNotOver otherwise.

    `records` is the whole log, or (with `log_length`, the whole log's length) its first
    record, its last, and every record a bot decided on a timeout in between: nothing else
    changes the result.
    """
    if not records:
        raise GameNotOver(game_id, 0)
    created, ended = records[0].event, records[-1].event
    if not isinstance(created, GameCreated) or not isinstance(ended, GameEnded):
        raise GameNotOver(game_id, len(records) if log_length is None else log_length)
    replaced = {record.seat for record in records if record.turn_timer_expired}
    ranks = competition_ranks(ended.final_vp)
    seats = tuple(
        SeatResult(
            seat=index,
            player_id=created.seats[index].player_id if created.seats else "",
            name=created.seats[index].name if created.seats else f"Seat {index + 1}",
            bot_level=created.seats[index].bot_level if created.seats else None,
            final_vp=vp,
            rank=ranks[index],
            replaced_by_bot=index in replaced,
        )
        for index, vp in enumerate(ended.final_vp)
    )
    return GameResult(
        game_id, seats, ended.winners, ended.early, unranked_reason(created, bool(replaced))
    )
