"""How engine enums and card lists travel, and what a message that cannot describe them is.

Enums travel as engine value + 1, so that 0 (`*_UNSPECIFIED`, what an unset field reads as) is
never a valid value: a client that forgot a field is told so instead of getting the first member.
Every kind of message (events, commands, views, setups) shares these helpers, so a message that
is malformed is reported the same way, with the field that is wrong, wherever it was found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import IntEnum
from functools import cache
from typing import TypeVar

from services.api.verrater.v1 import cards_pb2, events_pb2, view_pb2
from services.engine import ActionCard, BotLevel


class MalformedMessage(ValueError):
    """A protobuf message that does not describe an engine value; `field` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


class MalformedCommand(MalformedMessage):
    """A command (or the setup of a new game) that is malformed before any rule is consulted."""


@contextmanager
def _as_malformed_command() -> Iterator[None]:
    """Report what a client sent as a malformed command, whatever helper found it."""
    try:
        yield
    except MalformedMessage as error:
        raise MalformedCommand(error.field, error.message) from None


E = TypeVar("E", bound=IntEnum)
W = TypeVar("W", bound=int)

# The number types of the proto enums: the second argument of `_wire`.
_HOUSE = cards_pb2.House.ValueType
_LANDSCAPE_TYPE = cards_pb2.LandscapeType.ValueType
_ACTION_CARD = cards_pb2.ActionCard.ValueType
_BUILDING_SIDE = cards_pb2.BuildingSide.ValueType
_PHASE = events_pb2.Phase.ValueType
_SCORE_REASON = events_pb2.ScoreReason.ValueType
_DRAW_REASON = events_pb2.DrawReason.ValueType
_DECISION_KIND = view_pb2.DecisionKind.ValueType


def _wire(value: IntEnum, kind: Callable[[int], W]) -> W:
    """An engine enum as its proto number: engine value + 1 (0 is *_UNSPECIFIED)."""
    return kind(value + 1)


def _wire_or_none(value: IntEnum | None, kind: Callable[[int], W]) -> W | None:
    return None if value is None else _wire(value, kind)


@cache
def _members(kind: type[E]) -> tuple[E, ...]:
    """The enum's members by value; every engine enum numbers its members 0..n-1."""
    members = tuple(sorted(kind, key=int))
    assert [int(m) for m in members] == list(range(len(members))), kind
    return members


def _enum(kind: type[E], number: int, field: str) -> E:
    """A proto enum number as the engine enum; unspecified (0) and unknown numbers are malformed."""
    members: tuple[E, ...] = _members(kind)
    if 0 < number <= len(members):
        return members[number - 1]
    if number == 0:
        raise MalformedMessage(field, f"{kind.__name__} is unspecified")
    raise MalformedMessage(field, f"{number} is not a known {kind.__name__}")


def _enums(kind: type[E], numbers: Sequence[int], field: str) -> tuple[E, ...]:
    members: tuple[E, ...] = _members(kind)
    values = _ints(numbers)
    if not values or (min(values) > 0 and max(values) <= len(members)):
        return tuple([members[number - 1] for number in values])
    # Only on the error path: name the offending element.
    return tuple(_enum(kind, number, f"{field}[{i}]") for i, number in enumerate(values))


def _ints(values: Sequence[int]) -> tuple[int, ...]:
    """A repeated int field as a tuple. The slice copies the protobuf container in one call;
    `tuple(values)` iterates it element by element, which costs several times as much."""
    return tuple(values[:])


def _supply(cards: Sequence[int] | None) -> cards_pb2.SupplyCards | None:
    return None if cards is None else cards_pb2.SupplyCards(cards=cards)


def _action_cards(cards: Sequence[ActionCard] | None) -> cards_pb2.ActionCards | None:
    if cards is None:
        return None
    return cards_pb2.ActionCards(cards=[_wire(c, _ACTION_CARD) for c in cards])


def _seat_pick(card: ActionCard | None) -> cards_pb2.SeatPick:
    return cards_pb2.SeatPick(card=_wire_or_none(card, _ACTION_CARD))


def _pick_of(pick: cards_pb2.SeatPick, field: str) -> ActionCard | None:
    return _enum(ActionCard, pick.card, field) if pick.HasField("card") else None


def _picks_of(picks: Iterable[cards_pb2.SeatPick], field: str) -> tuple[ActionCard | None, ...]:
    return tuple(_pick_of(pick, f"{field}[{i}].card") for i, pick in enumerate(picks))


# Bot levels travel by name: BotLevel.NORMAL <-> BOT_LEVEL_NORMAL; a person (None) is 0.
_BOT_LEVEL_WIRE: dict[BotLevel, events_pb2.BotLevel.ValueType] = {
    level: events_pb2.BotLevel.Value(f"BOT_LEVEL_{level.name}") for level in BotLevel
}
_BOT_LEVEL_OF_WIRE = {wire: level for level, wire in _BOT_LEVEL_WIRE.items()}


def bot_level_to_proto(level: BotLevel | None) -> events_pb2.BotLevel.ValueType:
    """A seat's bot level on the wire; BOT_LEVEL_UNSPECIFIED for a person."""
    return events_pb2.BOT_LEVEL_UNSPECIFIED if level is None else _BOT_LEVEL_WIRE[level]


def bot_level_from_proto(number: int, field: str = "bot_level") -> BotLevel | None:
    """The bot level of a wire number: None for BOT_LEVEL_UNSPECIFIED (a person, or in a
    request, the caller's default); an unknown number is malformed."""
    if number == events_pb2.BOT_LEVEL_UNSPECIFIED:
        return None
    level: BotLevel | None = _BOT_LEVEL_OF_WIRE.get(number)  # type: ignore[call-overload]
    if level is None:
        raise MalformedMessage(field, f"{number} is not a known BotLevel")
    return level
