"""Why the game service refuses a request, beyond the rules' own violations.

Each is a :class:`ServiceError` with its stable reason; the rpc edge turns it into a status.
The engine's `RuleViolation` and the codec's `MalformedCommand` reach the edge as they are.
"""

from __future__ import annotations

from services.errors import Reason, ServiceError
from services.eventstore import StoreUnavailable


class GameNotFound(ServiceError):
    def __init__(self, game_id: str) -> None:
        super().__init__(Reason.GAME_NOT_FOUND, f"no game with id {game_id!r}", game_id=game_id)
        self.game_id = game_id


class GameAlreadyExists(ServiceError):
    def __init__(self, game_id: str) -> None:
        super().__init__(
            Reason.GAME_EXISTS, f"a game with id {game_id!r} already exists", game_id=game_id
        )
        self.game_id = game_id


class CommandIdReused(ServiceError):
    def __init__(self, command_id: str, version: int) -> None:
        super().__init__(
            Reason.COMMAND_ID_REUSED,
            f"command id {command_id!r} was used for another decision (at version {version}); "
            "choose a new id for every command",
            command_id=command_id,
        )


class StaleVersion(ServiceError):
    """The client acted on a version that is no longer current: re-read the view and retry."""

    def __init__(self, expected: int, actual: int) -> None:
        where = (
            f"the game is at version {actual}"
            if expected < actual
            else f"the game has not reached it (it is at version {actual}: the version is from "
            "another game, or one its store lost when restored from an older copy)"
        )
        super().__init__(
            Reason.STALE_VERSION,
            f"you acted on version {expected} but {where}; "
            "fetch the view again and decide on what it shows",
            expected_version=str(expected),
            current_version=str(actual),
        )
        self.expected = expected
        self.actual = actual


class GameNotFinished(ServiceError):
    def __init__(self, game_id: str) -> None:
        super().__init__(
            Reason.GAME_NOT_FINISHED,
            f"game {game_id!r} is still running: its full log (with every hidden card) "
            "opens when the game ends",
        )


class SeatNotInGame(ServiceError):
    def __init__(self, seat: int, players: int) -> None:
        super().__init__(
            Reason.SEAT_NOT_IN_GAME,
            f"your token names seat {seat}, but this game has seats 0-{players - 1}",
        )


class VersionOutOfRange(ServiceError):
    def __init__(self, asked: int, actual: int) -> None:
        super().__init__(
            Reason.VERSION_AHEAD,
            f"version {asked} is beyond the game's current version {actual}",
            current_version=str(actual),
        )


class SpectatorHasNoTurns(ServiceError):
    def __init__(self) -> None:
        super().__init__(
            Reason.SPECTATOR_HAS_NO_TURNS,
            "a spectator has no turns to watch for: watch with WATCH_MODE_EVENTS or "
            "WATCH_MODE_VIEWS, or use a seat token",
        )


class NotYourSeat(ServiceError):
    def __init__(self, game_id: str) -> None:
        super().__init__(
            Reason.NOT_YOUR_SEAT,
            f"your token is not bound to a seat in game {game_id}; ask the lobby for a seat token",
        )


class HistoryChanged(StoreUnavailable):
    """The store no longer holds the game as this replica knew it (restored from an older copy,
    or it lost its last writes): the replica dropped its copy; read the game again."""

    def __init__(self, game_id: str) -> None:
        super().__init__(
            f"game {game_id}: the store no longer holds the latest events this replica had "
            "(restored from an older copy?): read the game again"
        )


class PersonsSeat(ServiceError):
    """A service (the AI's workers) decided for a person's seat without standing in for them."""

    def __init__(self, seat: int) -> None:
        super().__init__(
            Reason.PERSONS_SEAT,
            f"seat {seat} is a person's: a service decides for it only as a stand-in once its "
            "turn timer has run out (turn_timer_expired); services play the bot seats",
            seat=str(seat),
        )


class TurnTimerRunning(ServiceError):
    """A stand-in's decision (turn_timer_expired) for a seat whose turn timer has not run out."""

    def __init__(self, seat: int, why: str) -> None:
        super().__init__(
            Reason.TURN_TIMER_RUNNING,
            f"no stand-in may decide for seat {seat} now: {why}",
            seat=str(seat),
        )
