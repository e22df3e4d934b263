"""A player's command as a client sends it, and back: without the seat.

The seat is never read from the message: the caller's token implies it, so a client cannot act
for another seat by naming it. What arrives is checked for shape only (a command set, known enum
numbers, not absurdly many cards); a command that is well formed but wrong reaches the rules,
whose violations say what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from services.api.verrater.v1 import commands_pb2
from services.engine import (
    DRAW_CAP,
    HAND_LIMIT,
    ActionCard,
    BuildingSide,
    ChooseConflict,
    DiscardCards,
    FlipBuilding,
    MoveBuilding,
    PassBuild,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
)

from .enums import (
    _ACTION_CARD,
    _BUILDING_SIDE,
    MalformedCommand,
    MalformedMessage,
    _enum,
    _wire,
)

#: A command naming more supply cards than this is malformed: twice what a hand can ever hold
#: (the hand limit plus one round's draws), so no legal command comes near it.
MAX_COMMAND_CARDS = 2 * (HAND_LIMIT + DRAW_CAP)


def command_to_proto(command: PlayerCommand) -> commands_pb2.Command:
    """The command as a client sends it: without the seat, which the caller's token implies."""
    match command:
        case PlaceFirstEstate():
            return commands_pb2.Command(
                place_first_estate=commands_pb2.PlaceFirstEstate(position=command.position)
            )
        case ChooseConflict():
            return commands_pb2.Command(
                choose_conflict=commands_pb2.ChooseConflict(
                    first=command.first, second=command.second
                )
            )
        case PickActionCard():
            card = _wire(command.card, _ACTION_CARD)
            return commands_pb2.Command(pick_action_card=commands_pb2.PickActionCard(card=card))
        case PlaySupply():
            return commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=command.cards))
        case PlaceBuilding():
            return commands_pb2.Command(
                place_building=commands_pb2.PlaceBuilding(
                    position=command.position, side=_wire(command.side, _BUILDING_SIDE)
                )
            )
        case FlipBuilding():
            return commands_pb2.Command(
                flip_building=commands_pb2.FlipBuilding(position=command.position)
            )
        case MoveBuilding():
            return commands_pb2.Command(
                move_building=commands_pb2.MoveBuilding(
                    origin=command.origin,
                    destination=command.destination,
                    side=_wire(command.side, _BUILDING_SIDE),
                )
            )
        case PassBuild():
            return commands_pb2.Command(pass_build=commands_pb2.PassBuild())
        case DiscardCards():
            return commands_pb2.Command(
                discard_cards=commands_pb2.DiscardCards(cards=command.cards)
            )
        case _:
            assert_never(command)


def command_from_proto(message: commands_pb2.Command, seat: int) -> PlayerCommand:
    """The engine command `seat` (the caller's, from its token) gives; MalformedCommand if none.

    Field names in MalformedCommand are the command's own ("card", "cards", "side"), as in the
    engine's rule violations; "command" when no command is set.
    """
    try:  # not `with _as_malformed_command()`: a bot decodes every legal command of a view
        return _command_from_proto(message, seat)
    except MalformedMessage as error:
        raise MalformedCommand(error.field, error.message) from None


def _command_from_proto(message: commands_pb2.Command, seat: int) -> PlayerCommand:
    kind = message.WhichOneof("command")
    match kind:
        case "place_first_estate":
            return PlaceFirstEstate(seat, message.place_first_estate.position)
        case "choose_conflict":
            conflict = message.choose_conflict
            return ChooseConflict(seat, conflict.first, conflict.second)
        case "pick_action_card":
            card = _enum(ActionCard, message.pick_action_card.card, "card")
            return PickActionCard(seat, card)
        case "play_supply":
            return PlaySupply(seat, _command_cards(message.play_supply.cards))
        case "place_building":
            placing = message.place_building
            return PlaceBuilding(seat, placing.position, _enum(BuildingSide, placing.side, "side"))
        case "flip_building":
            return FlipBuilding(seat, message.flip_building.position)
        case "move_building":
            move = message.move_building
            side = _enum(BuildingSide, move.side, "side")
            return MoveBuilding(seat, move.origin, move.destination, side)
        case "pass_build":
            return PassBuild(seat)
        case "discard_cards":
            return DiscardCards(seat, _command_cards(message.discard_cards.cards))
        case None:
            raise MalformedMessage("command", "no command is set")
        case _:
            assert_never(kind)


def _command_cards(cards: Sequence[int]) -> tuple[int, ...]:
    if len(cards) > MAX_COMMAND_CARDS:
        raise MalformedMessage(
            "cards", f"{len(cards)} cards; no command names more than {MAX_COMMAND_CARDS}"
        )
    return tuple(cards)
