"""Why a request was refused: one stable, machine-readable reason per refusal, for every service.

Application code raises :class:`ServiceError` with a :class:`Reason`; the one table in
:mod:`services.rpc.status` turns it into a gRPC status code, a `google.rpc.ErrorInfo` (domain
``verrater.v1``, the reason, and metadata such as the offending field) and, for rule violations,
the `RuleViolationDetail`. Clients branch and localise on the reason, never on the message,
which is for people and may be reworded. Reasons are part of the contract: add, never rename.

This module imports nothing but the standard library, so every layer may raise these.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Every reason a request can be refused for (docs/CLIENTS.md lists them with their codes)."""

    # INVALID_ARGUMENT: the request itself is wrong; retrying it unchanged cannot succeed.
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    """Bytes that are not the method's request message, or a field out of its documented shape
    (metadata `field` names it)."""
    INVALID_ID = "INVALID_ID"
    """An id (game, table, player, command, request) that breaks the id rules (`field`)."""
    MISSING_FIELD = "MISSING_FIELD"
    """A required field is absent (`field`)."""
    MALFORMED_COMMAND = "MALFORMED_COMMAND"
    """A command that names no decision, an unknown enum number or an absurd card list."""
    INVALID_SETUP = "INVALID_SETUP"
    """A sandbox setup the rules refuse (wrong ring, deck or start player)."""
    INVALID_DISPLAY_NAME = "INVALID_DISPLAY_NAME"
    """A display name outside 3-24 letters, digits, spaces, '-', '_' and '.'."""
    INVALID_TABLE_OPTION = "INVALID_TABLE_OPTION"
    """A table size, timer, bot level or wait outside its documented range (`field`)."""
    SPECTATOR_HAS_NO_TURNS = "SPECTATOR_HAS_NO_TURNS"
    """A turns-only stream asked for without a seat token."""
    CHAT_TEXT_EMPTY = "CHAT_TEXT_EMPTY"
    """A chat message with no text left once normalised (services/chat/text.py)."""
    CHAT_TEXT_TOO_LONG = "CHAT_TEXT_TOO_LONG"
    """A chat message (or a report's note) longer than 280 characters once normalised."""

    # FAILED_PRECONDITION: the request is fine but the game or table is not in a state for it.
    RULE_VIOLATION = "RULE_VIOLATION"
    """The rules refuse the command; a RuleViolationDetail says which rule."""
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    """The full log opens when the game ends."""
    NO_DECISION_PENDING = "NO_DECISION_PENDING"
    """The caller's seat has nothing to decide now (a hint was asked for)."""
    COMMAND_ID_REUSED = "COMMAND_ID_REUSED"
    """The command id was used before for a different command; nothing was applied."""
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"
    """The request id was used before for a different request; nothing was changed."""
    TABLE_FULL = "TABLE_FULL"
    """Every seat of the table is taken."""
    TABLE_NOT_FULL = "TABLE_NOT_FULL"
    """A table with free seats cannot start."""
    SEATS_FIXED = "SEATS_FIXED"
    """The table is starting, started or closed: its seats no longer change."""
    NOT_SEATED = "NOT_SEATED"
    """The caller does not sit at the table."""
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    """The table's game has not started yet."""
    GAME_REFUSED = "GAME_REFUSED"
    """The game service refused to create the table's game."""
    CHAT_CLOSED = "CHAT_CLOSED"
    """The chat channel is not open: the spectators' one before the game starts, either one
    once the time after the game's end is over, or at a table closed without a game."""
    TURN_TIMER_RUNNING = "TURN_TIMER_RUNNING"
    """A stand-in's decision (`turn_timer_expired`) for a person whose turn timer has not run
    out, or who has none."""

    # ABORTED: the state moved on; read again and decide again.
    STALE_VERSION = "STALE_VERSION"
    """The command was decided on a version the game has left; read the view again."""

    # OUT_OF_RANGE
    VERSION_AHEAD = "VERSION_AHEAD"
    """A version beyond the game's current one."""
    CURSOR_EXPIRED = "CURSOR_EXPIRED"
    """A notification cursor older than what is kept: reconcile with ListMyGames, watch anew."""

    # NOT_FOUND
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
    PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
    """The token names a player this lobby does not know."""
    CHAT_MESSAGE_NOT_FOUND = "CHAT_MESSAGE_NOT_FOUND"
    """No chat message the caller can read has that cursor (never written, no longer kept, or
    in a channel hidden from the caller)."""

    # ALREADY_EXISTS
    GAME_EXISTS = "GAME_EXISTS"
    ALREADY_SEATED = "ALREADY_SEATED"

    # PERMISSION_DENIED: the caller is known but may not do this.
    NOT_YOUR_SEAT = "NOT_YOUR_SEAT"
    """The token is not bound to a seat of this game: ask the lobby for a seat token."""
    SEAT_NOT_IN_GAME = "SEAT_NOT_IN_GAME"
    """The token names a seat this game does not have."""
    NOT_HOST = "NOT_HOST"
    """Only the table's host may do that."""
    WRONG_INVITE_CODE = "WRONG_INVITE_CODE"
    SERVICE_ONLY = "SERVICE_ONLY"
    """Reserved for the platform's own services (creating games, deciding for a timed-out seat)."""
    PERSONS_SEAT = "PERSONS_SEAT"
    """A service decides for bot seats; for a person's seat only once their turn timer ran out."""
    CHAT_NOT_ALLOWED = "CHAT_NOT_ALLOWED"
    """The caller may not write to that chat channel (the table's is for the seated and the
    host, the spectators' for everybody else)."""
    BOTS_DO_NOT_CHAT = "BOTS_DO_NOT_CHAT"
    """A bot's or a service's token in a chat call."""
    PLAYER_TOKEN_REQUIRED = "PLAYER_TOKEN_REQUIRED"
    """A lobby call acts for the player's account: a seat token (bound to one game) may not."""

    # UNAUTHENTICATED: who the caller is could not be established.
    TOKEN_MISSING = "TOKEN_MISSING"
    """No `authorization: Bearer <token>` metadata (exactly one is expected)."""
    TOKEN_INVALID = "TOKEN_INVALID"
    """A token that is malformed, forged or signed for another deployment."""
    TOKEN_EXPIRED = "TOKEN_EXPIRED"
    """Refresh the token (RefreshToken, or SignIn with the credential) and call again."""
    CREDENTIAL_INVALID = "CREDENTIAL_INVALID"
    """SignIn with a player id and credential that do not match (wrong, or rotated away)."""

    # RESOURCE_EXHAUSTED: too much, too fast; wait and retry.
    RATE_LIMITED = "RATE_LIMITED"
    """Too many requests of this kind; metadata `retry_after_ms` says when to retry."""
    TOO_MANY_TABLES = "TOO_MANY_TABLES"
    """The caller hosts as many waiting tables as allowed."""
    SLOW_READER = "SLOW_READER"
    """A stream's client stopped reading while messages piled up for it; the stream ended."""
    TOO_MANY_STREAMS = "TOO_MANY_STREAMS"
    """The caller (or its network peer) has as many streams open as allowed; with `scope`
    `table` (WatchChat), the table has as many chat watchers as one server serves."""
    TOO_MANY_MUTED = "TOO_MANY_MUTED"
    """The caller has muted as many players as allowed (500): unmute one first."""

    # UNAVAILABLE: a part of the platform cannot be reached; the same request may succeed later.
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    """The store cannot be reached now. A command that met it may or may not have been applied:
    retry it with the same command id (applied once, whatever happened)."""
    REPLICATION_UNCONFIRMED = "REPLICATION_UNCONFIRMED"
    """The game's latest events (a command's own, or those it would build on) are written but
    not yet confirmed on the store's replicas, so a failover may still take them back: read
    the game again before acting. The game waits until they are confirmed (then it goes on by
    itself) or lost; a retry with the same command id answers OK once they are confirmed, and
    applies the command anew if they were lost."""
    GAME_SERVICE_UNAVAILABLE = "GAME_SERVICE_UNAVAILABLE"
    BUSY = "BUSY"
    """Too much contention on one game or table right now."""

    # INTERNAL: a fault of ours; metadata `incident` is the id our log carries.
    INTERNAL = "INTERNAL"


class ServiceError(Exception):
    """A refusal any service raises: the reason, a message for people, and metadata for
    programs (string keys and values, e.g. ``{"field": "game_id"}``)."""

    def __init__(self, reason: Reason, message: str, **metadata: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = metadata
