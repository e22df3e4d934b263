"""Rule violations: typed errors with a stable machine-readable code and a human message.

Clients switch on `code` (it travels in the gRPC status details); `message` is for people and
may be reworded; `field` names the offending part of the command when there is one.
"""

from __future__ import annotations

from enum import StrEnum


class ViolationCode(StrEnum):
    """Stable codes for every way a command can break the rules."""

    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_ALREADY_STARTED = "GAME_ALREADY_STARTED"
    GAME_OVER = "GAME_OVER"
    WRONG_PHASE = "WRONG_PHASE"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    INVALID_SEAT = "INVALID_SEAT"
    INVALID_POSITION = "INVALID_POSITION"
    NOT_ADJACENT = "NOT_ADJACENT"
    SAME_HOUSE = "SAME_HOUSE"
    CARD_NOT_OFFERED = "CARD_NOT_OFFERED"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    TOO_MANY_CARDS = "TOO_MANY_CARDS"
    WRONG_DISCARD_COUNT = "WRONG_DISCARD_COUNT"
    LANDSCAPE_OCCUPIED = "LANDSCAPE_OCCUPIED"
    NO_BUILDING_LEFT = "NO_BUILDING_LEFT"
    NOT_YOUR_BUILDING = "NOT_YOUR_BUILDING"
    TRADING_POST_LIMIT = "TRADING_POST_LIMIT"
    VARIANT_DISABLED = "VARIANT_DISABLED"
    INVALID_SETUP = "INVALID_SETUP"


class RuleViolation(Exception):
    """A command the rules do not allow in this state; nothing was changed."""

    def __init__(self, code: ViolationCode, message: str, field: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field
