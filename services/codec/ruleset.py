"""The rules a game is played by, as the first event and a CreateGame request carry them.

A ruleset travels with its whole card table, provisional flags included, so a log replays under
the table it was played with even after the bundled one changes. A setup fixed by hand travels
part by part: each part left None stays absent and is drawn from the seed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from services.api.verrater.v1 import events_pb2, ruleset_pb2
from services.engine import (
    ACTION_CARD_SPECS,
    DEFAULT_CARD_TABLE,
    ActionCard,
    ActionCardSpec,
    CardTable,
    ExplicitSetup,
    House,
    LandscapeSpec,
    LandscapeType,
    Ruleset,
)

from .enums import (
    _ACTION_CARD,
    _HOUSE,
    _LANDSCAPE_TYPE,
    MalformedMessage,
    _action_cards,
    _as_malformed_command,
    _enum,
    _enums,
    _ints,
    _supply,
    _wire,
)


def ruleset_to_proto(ruleset: Ruleset, *, action_cards: bool = False) -> ruleset_pb2.Ruleset:
    """The ruleset with its whole card table, provisional flags included; with
    `action_cards`, also what each action card does (for clients: the stored first event
    leaves them out, they are the engine's, not the table's)."""
    return ruleset_pb2.Ruleset(
        players=ruleset.players,
        rounds=ruleset.rounds,
        builder_may_move=ruleset.builder_may_move,
        card_table=_card_table_to_proto(ruleset.card_table),
        action_cards=_ACTION_CARD_MESSAGES if action_cards else (),
    )


def _action_card_to_proto(spec: ActionCardSpec) -> ruleset_pb2.ActionCardSpec:
    return ruleset_pb2.ActionCardSpec(
        card=_wire(spec.card, _ACTION_CARD),
        german=spec.german,
        conflict_points=spec.conflict_points,
        victory_points=spec.victory_points,
        cards_drawn=spec.cards_drawn,
        switches_house=spec.switches_house,
        takes_strategist=spec.takes_strategist,
        builds=spec.builds,
        replaces_estate_draw=spec.replaces_estate_draw,
    )


_ACTION_CARD_MESSAGES = [_action_card_to_proto(spec) for spec in ACTION_CARD_SPECS]


def _card_table_to_proto(table: CardTable) -> ruleset_pb2.CardTable:
    return ruleset_pb2.CardTable(
        name=table.name,
        landscapes=[_landscape_spec_to_proto(spec) for spec in table.landscapes],
    )


def _landscape_spec_to_proto(spec: LandscapeSpec) -> ruleset_pb2.LandscapeSpec:
    return ruleset_pb2.LandscapeSpec(
        type=_wire(spec.type, _LANDSCAPE_TYPE),
        german=spec.german,
        cp=spec.cp,
        vp=[
            ruleset_pb2.VictoryPoints(points=points, provisional=provisional)
            for points, provisional in zip(spec.vp, spec.provisional, strict=True)
        ],
        cp_provisional=spec.cp_provisional,
    )


def ruleset_from_proto(message: ruleset_pb2.Ruleset) -> Ruleset:
    """The engine's ruleset; the card table is validated as the engine loads its data file."""
    if not message.HasField("card_table"):
        raise MalformedMessage("card_table", "the ruleset has no card table")
    card_table = _card_table_from_proto(message.card_table)
    if card_table is DEFAULT_CARD_TABLE:
        return _bundled_ruleset(message.players, message.rounds, message.builder_may_move)
    return Ruleset(message.players, message.rounds, message.builder_may_move, card_table)


@functools.lru_cache(maxsize=64)
def _bundled_ruleset(players: int, rounds: int, builder_may_move: bool) -> Ruleset:
    """One shared ruleset (it is frozen) per way of playing the bundled card table: every game a
    replica caches holds one, and nearly all of them are the same few."""
    return Ruleset(players, rounds, builder_may_move, DEFAULT_CARD_TABLE)


def _card_table_from_proto(table: ruleset_pb2.CardTable) -> CardTable:
    # Nearly every game plays the bundled table. Recognising its message (an exact comparison)
    # skips validating and rebuilding the table, most of the cost of decoding a first event.
    if table == _DEFAULT_CARD_TABLE_MESSAGE:
        return DEFAULT_CARD_TABLE
    landscapes = [
        {
            "type": _enum(LandscapeType, spec.type, f"card_table.landscapes[{i}].type").name,
            "german": spec.german,
            "cp": spec.cp,
            "vp": [cell.points for cell in spec.vp],
            "provisional": [cell.provisional for cell in spec.vp],
            "cp_provisional": spec.cp_provisional,
        }
        for i, spec in enumerate(table.landscapes)
    ]
    try:
        return CardTable.from_dict({"name": table.name, "landscapes": landscapes})
    except ValueError as error:
        raise MalformedMessage("card_table", str(error)) from None


_DEFAULT_CARD_TABLE_MESSAGE = _card_table_to_proto(DEFAULT_CARD_TABLE)


def _ring_to_proto(
    ring: Sequence[tuple[LandscapeType, House]],
) -> list[events_pb2.RingLandscape]:
    return [
        events_pb2.RingLandscape(
            type=_wire(kind, _LANDSCAPE_TYPE),
            house=_wire(house, _HOUSE),
        )
        for kind, house in ring
    ]


def _ring_from_proto(
    ring: Iterable[events_pb2.RingLandscape], field: str
) -> tuple[tuple[LandscapeType, House], ...]:
    return tuple(
        (
            _enum(LandscapeType, card.type, f"{field}[{i}].type"),
            _enum(House, card.house, f"{field}[{i}].house"),
        )
        for i, card in enumerate(ring)
    )


def setup_to_proto(setup: ExplicitSetup) -> events_pb2.ExplicitSetup:
    """A setup fixed by hand; each part left None stays absent."""
    return events_pb2.ExplicitSetup(
        start_player=setup.start_player,
        ring=None if setup.ring is None else events_pb2.Ring(landscapes=_ring_to_proto(setup.ring)),
        deck=_supply(setup.deck),
        set_aside=_action_cards(setup.set_aside),
    )


def setup_from_proto(message: events_pb2.ExplicitSetup) -> ExplicitSetup:
    """The setup of a CreateGame request; raises MalformedCommand when malformed."""
    with _as_malformed_command():
        return _setup_from_proto(message)


def _setup_from_proto(message: events_pb2.ExplicitSetup) -> ExplicitSetup:
    """The setup as the first event stored it: malformed there is a MalformedMessage."""
    return ExplicitSetup(
        start_player=message.start_player if message.HasField("start_player") else None,
        ring=(
            _ring_from_proto(message.ring.landscapes, "ring.landscapes")
            if message.HasField("ring")
            else None
        ),
        deck=_ints(message.deck.cards) if message.HasField("deck") else None,
        set_aside=(
            _enums(ActionCard, message.set_aside.cards, "set_aside.cards")
            if message.HasField("set_aside")
            else None
        ),
    )
