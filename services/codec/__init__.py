"""The codec between the engine's values and the protobuf contract (proto/verrater/v1/).

Events go both ways exactly: `decode_event(encode_event(e)) == e` for every event, full or
redacted (a hidden field left None travels as an absent field). `encode_event` is the stored
format of the log, so it serializes deterministically. Enums travel as engine value + 1, with 0
(`*_UNSPECIFIED`) never valid; rule violation codes travel by name.

Whatever arrives from outside is checked for shape only: a message that cannot describe an engine
value (no command set, an unspecified or unknown enum number, an absurdly long card list) raises
`MalformedMessage`, or `MalformedCommand` for a player's command. Everything else, however wrong
(a negative position, a card not in hand), reaches the rules, whose violations say what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import IntEnum
from functools import cache, lru_cache
from typing import Any, TypeVar, assert_never

from google.protobuf.message import DecodeError

from services.api.verrater.v1 import (
    cards_pb2,
    commands_pb2,
    errors_pb2,
    events_pb2,
    ruleset_pb2,
    view_pb2,
)
from services.engine import (
    DEFAULT_CARD_TABLE,
    ActionCard,
    BuildingSide,
    CardTable,
    ChooseConflict,
    ConflictSummary,
    DecisionKind,
    DiscardCards,
    DrawReason,
    Event,
    ExplicitSetup,
    FlipBuilding,
    House,
    LandscapeSpec,
    LandscapeType,
    LandscapeView,
    MoveBuilding,
    PassBuild,
    Phase,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlayerView,
    PlaySupply,
    Ruleset,
    RuleViolation,
    ScoreReason,
    SeatView,
    Turn,
    ViolationCode,
)
from services.engine.cards import DRAW_CAP, HAND_LIMIT
from services.engine.events import (
    ActionCardPicked,
    ActionCardsDealt,
    ActionCardsRevealed,
    AllegianceSwitched,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildPassed,
    CardsDiscarded,
    CardsDrawn,
    ConflictChosen,
    ConflictResolved,
    DiscardPileReshuffled,
    FirstEstatePlaced,
    GameCreated,
    GameEnded,
    LandscapeFlipped,
    PhaseBegan,
    PointsAwarded,
    RingLaidOut,
    RoundEnded,
    RoundStarted,
    SeatAssignment,
    StartPlayerChosen,
    StrategistAssigned,
    SupplyDealt,
    SupplyDiscarded,
    SupplyPlayed,
)

#: A command naming more supply cards than this is malformed: twice what a hand can ever hold
#: (the hand limit plus one round's draws), so no legal command comes near it.
MAX_COMMAND_CARDS = 2 * (HAND_LIMIT + DRAW_CAP)

_VIOLATION_PREFIX = "VIOLATION_CODE_"


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


# --- enums and lists -------------------------------------------------------------------------

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


# --- ruleset and setup -----------------------------------------------------------------------


def ruleset_to_proto(ruleset: Ruleset) -> ruleset_pb2.Ruleset:
    """The ruleset with its whole card table, provisional flags included."""
    return ruleset_pb2.Ruleset(
        players=ruleset.players,
        rounds=ruleset.rounds,
        builder_may_move=ruleset.builder_may_move,
        card_table=_card_table_to_proto(ruleset.card_table),
    )


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
    )


def ruleset_from_proto(message: ruleset_pb2.Ruleset) -> Ruleset:
    """The engine's ruleset; the card table is validated as the engine loads its data file."""
    if not message.HasField("card_table"):
        raise MalformedMessage("card_table", "the ruleset has no card table")
    card_table = _card_table_from_proto(message.card_table)
    return Ruleset(message.players, message.rounds, message.builder_may_move, card_table)


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


# --- events ----------------------------------------------------------------------------------


def encode_event(event: Event) -> bytes:
    """The stored form of an event: its GameEvent, serialized deterministically."""
    return event_to_proto(event).SerializeToString(deterministic=True)


def decode_event(data: bytes) -> Event:
    """The event `encode_event` stored; MalformedMessage if the bytes are not one."""
    try:
        message = events_pb2.GameEvent.FromString(data)
    except DecodeError as error:
        raise MalformedMessage("event", f"not a GameEvent: {error}") from None
    return event_from_proto(message)


def event_to_proto(event: Event) -> events_pb2.GameEvent:
    """The event as a GameEvent; hidden fields that are None stay absent."""
    match event:
        case GameCreated():
            return events_pb2.GameEvent(
                game_created=events_pb2.GameCreated(
                    ruleset=ruleset_to_proto(event.ruleset),
                    seed_commitment=event.seed_commitment,
                    seed=event.seed,
                    setup=None if event.setup is None else setup_to_proto(event.setup),
                    seats=[
                        events_pb2.SeatAssignment(
                            player_id=seat.player_id, name=seat.name, bot_level=seat.bot_level
                        )
                        for seat in event.seats
                    ],
                    ranked=event.ranked,
                    turn_seconds=event.turn_seconds,
                )
            )
        case StartPlayerChosen():
            return events_pb2.GameEvent(
                start_player_chosen=events_pb2.StartPlayerChosen(
                    seat=event.seat, allegiances=[_wire(h, _HOUSE) for h in event.allegiances]
                )
            )
        case RingLaidOut():
            return events_pb2.GameEvent(
                ring_laid_out=events_pb2.RingLaidOut(landscapes=_ring_to_proto(event.landscapes))
            )
        case SupplyDealt():
            return events_pb2.GameEvent(
                supply_dealt=events_pb2.SupplyDealt(
                    hands=[cards_pb2.SupplyCards(cards=hand) for hand in event.hands],
                    deck_size=event.deck_size,
                    deck=_supply(event.deck),
                )
            )
        case StrategistAssigned():
            return events_pb2.GameEvent(
                strategist_assigned=events_pb2.StrategistAssigned(seat=event.seat)
            )
        case PhaseBegan():
            return events_pb2.GameEvent(
                phase_began=events_pb2.PhaseBegan(phase=_wire(event.phase, _PHASE))
            )
        case FirstEstatePlaced():
            return events_pb2.GameEvent(
                first_estate_placed=events_pb2.FirstEstatePlaced(
                    seat=event.seat, position=event.position
                )
            )
        case RoundStarted():
            return events_pb2.GameEvent(
                round_started=events_pb2.RoundStarted(
                    round=event.round, start_player=event.start_player
                )
            )
        case ConflictChosen():
            return events_pb2.GameEvent(
                conflict_chosen=events_pb2.ConflictChosen(
                    seat=event.seat, first=event.first, second=event.second
                )
            )
        case ActionCardsDealt():
            return events_pb2.GameEvent(
                action_cards_dealt=events_pb2.ActionCardsDealt(
                    set_aside=_wire_or_none(event.set_aside, _ACTION_CARD),
                    offered=_action_cards(event.offered),
                )
            )
        case ActionCardPicked():
            return events_pb2.GameEvent(
                action_card_picked=events_pb2.ActionCardPicked(
                    seat=event.seat,
                    card=_wire_or_none(event.card, _ACTION_CARD),
                )
            )
        case SupplyPlayed():
            return events_pb2.GameEvent(
                supply_played=events_pb2.SupplyPlayed(seat=event.seat, cards=event.cards)
            )
        case ActionCardsRevealed():
            return events_pb2.GameEvent(
                action_cards_revealed=events_pb2.ActionCardsRevealed(
                    picks=[_seat_pick(pick) for pick in event.picks]
                )
            )
        case AllegianceSwitched():
            return events_pb2.GameEvent(
                allegiance_switched=events_pb2.AllegianceSwitched(
                    seat=event.seat, house=_wire(event.house, _HOUSE)
                )
            )
        case ConflictResolved():
            return events_pb2.GameEvent(
                conflict_resolved=events_pb2.ConflictResolved(
                    eagle_strength=event.eagle_strength,
                    rose_strength=event.rose_strength,
                    winner=_wire_or_none(event.winner, _HOUSE),
                )
            )
        case PointsAwarded():
            return events_pb2.GameEvent(
                points_awarded=events_pb2.PointsAwarded(
                    seat=event.seat,
                    points=event.points,
                    reason=_wire(event.reason, _SCORE_REASON),
                )
            )
        case LandscapeFlipped():
            return events_pb2.GameEvent(
                landscape_flipped=events_pb2.LandscapeFlipped(
                    position=event.position, house=_wire(event.house, _HOUSE)
                )
            )
        case BuildingPlaced():
            return events_pb2.GameEvent(
                building_placed=events_pb2.BuildingPlaced(
                    seat=event.seat, position=event.position, side=_wire(event.side, _BUILDING_SIDE)
                )
            )
        case BuildingFlipped():
            return events_pb2.GameEvent(
                building_flipped=events_pb2.BuildingFlipped(
                    seat=event.seat, position=event.position, side=_wire(event.side, _BUILDING_SIDE)
                )
            )
        case BuildingMoved():
            return events_pb2.GameEvent(
                building_moved=events_pb2.BuildingMoved(
                    seat=event.seat,
                    origin=event.origin,
                    destination=event.destination,
                    side=_wire(event.side, _BUILDING_SIDE),
                )
            )
        case BuildPassed():
            return events_pb2.GameEvent(build_passed=events_pb2.BuildPassed(seat=event.seat))
        case SupplyDiscarded():
            return events_pb2.GameEvent(
                supply_discarded=events_pb2.SupplyDiscarded(cards=event.cards)
            )
        case DiscardPileReshuffled():
            return events_pb2.GameEvent(
                discard_pile_reshuffled=events_pb2.DiscardPileReshuffled(
                    size=event.size, order=_supply(event.order)
                )
            )
        case CardsDrawn():
            return events_pb2.GameEvent(
                cards_drawn=events_pb2.CardsDrawn(
                    seat=event.seat,
                    count=event.count,
                    cards=_supply(event.cards),
                    reason=_wire(event.reason, _DRAW_REASON),
                )
            )
        case CardsDiscarded():
            return events_pb2.GameEvent(
                cards_discarded=events_pb2.CardsDiscarded(seat=event.seat, cards=event.cards)
            )
        case RoundEnded():
            return events_pb2.GameEvent(
                round_ended=events_pb2.RoundEnded(
                    round=event.round, next_start_player=event.next_start_player
                )
            )
        case GameEnded():
            return events_pb2.GameEvent(
                game_ended=events_pb2.GameEnded(
                    final_vp=event.final_vp,
                    winners=event.winners,
                    seed=event.seed,
                    early=event.early,
                )
            )
        case _:
            assert_never(event)


def event_from_proto(message: events_pb2.GameEvent) -> Event:
    """The engine event a GameEvent describes; MalformedMessage when it describes none."""
    kind = message.WhichOneof("event")
    if kind is None:
        raise MalformedMessage("event", "no event this codec knows is set")
    # One dict lookup instead of a match over 27 names (compared one by one): rebuilding a
    # game decodes every event of its log.
    return _EVENT_FROM_PROTO[kind](getattr(message, kind))


def _game_created_from_proto(created: events_pb2.GameCreated) -> GameCreated:
    if not created.HasField("ruleset"):
        raise MalformedMessage("game_created.ruleset", "the first event has no ruleset")
    return GameCreated(
        ruleset=ruleset_from_proto(created.ruleset),
        seed_commitment=created.seed_commitment,
        seed=created.seed if created.HasField("seed") else None,
        setup=_setup_from_proto(created.setup) if created.HasField("setup") else None,
        seats=tuple(
            SeatAssignment(seat.player_id, seat.name, seat.bot_level) for seat in created.seats
        ),
        ranked=created.ranked,
        turn_seconds=created.turn_seconds,
    )


def _start_player_chosen_from_proto(start: events_pb2.StartPlayerChosen) -> StartPlayerChosen:
    allegiances = _enums(House, start.allegiances, "start_player_chosen.allegiances")
    return StartPlayerChosen(start.seat, allegiances)


def _ring_laid_out_from_proto(ring: events_pb2.RingLaidOut) -> RingLaidOut:
    return RingLaidOut(_ring_from_proto(ring.landscapes, "ring_laid_out.landscapes"))


def _supply_dealt_from_proto(supply: events_pb2.SupplyDealt) -> SupplyDealt:
    return SupplyDealt(
        hands=tuple(_ints(hand.cards) for hand in supply.hands),
        deck_size=supply.deck_size,
        deck=_ints(supply.deck.cards) if supply.HasField("deck") else None,
    )


def _strategist_assigned_from_proto(
    assigned: events_pb2.StrategistAssigned,
) -> StrategistAssigned:
    return StrategistAssigned(assigned.seat)


def _phase_began_from_proto(began: events_pb2.PhaseBegan) -> PhaseBegan:
    return PhaseBegan(_enum(Phase, began.phase, "phase_began.phase"))


def _first_estate_placed_from_proto(estate: events_pb2.FirstEstatePlaced) -> FirstEstatePlaced:
    return FirstEstatePlaced(estate.seat, estate.position)


def _round_started_from_proto(started: events_pb2.RoundStarted) -> RoundStarted:
    return RoundStarted(started.round, started.start_player)


def _conflict_chosen_from_proto(conflict: events_pb2.ConflictChosen) -> ConflictChosen:
    return ConflictChosen(conflict.seat, conflict.first, conflict.second)


def _action_cards_dealt_from_proto(dealt: events_pb2.ActionCardsDealt) -> ActionCardsDealt:
    return ActionCardsDealt(
        set_aside=(
            _enum(ActionCard, dealt.set_aside, "action_cards_dealt.set_aside")
            if dealt.HasField("set_aside")
            else None
        ),
        offered=(
            _enums(ActionCard, dealt.offered.cards, "action_cards_dealt.offered.cards")
            if dealt.HasField("offered")
            else None
        ),
    )


def _action_card_picked_from_proto(picked: events_pb2.ActionCardPicked) -> ActionCardPicked:
    card = (
        _enum(ActionCard, picked.card, "action_card_picked.card")
        if picked.HasField("card")
        else None
    )
    return ActionCardPicked(picked.seat, card)


def _supply_played_from_proto(played: events_pb2.SupplyPlayed) -> SupplyPlayed:
    return SupplyPlayed(played.seat, _ints(played.cards))


def _action_cards_revealed_from_proto(
    revealed: events_pb2.ActionCardsRevealed,
) -> ActionCardsRevealed:
    return ActionCardsRevealed(_picks_of(revealed.picks, "action_cards_revealed.picks"))


def _allegiance_switched_from_proto(
    switched: events_pb2.AllegianceSwitched,
) -> AllegianceSwitched:
    house = _enum(House, switched.house, "allegiance_switched.house")
    return AllegianceSwitched(switched.seat, house)


def _conflict_resolved_from_proto(resolved: events_pb2.ConflictResolved) -> ConflictResolved:
    winner = (
        _enum(House, resolved.winner, "conflict_resolved.winner")
        if resolved.HasField("winner")
        else None
    )
    return ConflictResolved(resolved.eagle_strength, resolved.rose_strength, winner)


def _points_awarded_from_proto(awarded: events_pb2.PointsAwarded) -> PointsAwarded:
    reason = _enum(ScoreReason, awarded.reason, "points_awarded.reason")
    return PointsAwarded(awarded.seat, awarded.points, reason)


def _landscape_flipped_from_proto(landscape: events_pb2.LandscapeFlipped) -> LandscapeFlipped:
    house = _enum(House, landscape.house, "landscape_flipped.house")
    return LandscapeFlipped(landscape.position, house)


def _building_placed_from_proto(placed: events_pb2.BuildingPlaced) -> BuildingPlaced:
    side = _enum(BuildingSide, placed.side, "building_placed.side")
    return BuildingPlaced(placed.seat, placed.position, side)


def _building_flipped_from_proto(flipped: events_pb2.BuildingFlipped) -> BuildingFlipped:
    side = _enum(BuildingSide, flipped.side, "building_flipped.side")
    return BuildingFlipped(flipped.seat, flipped.position, side)


def _building_moved_from_proto(moved: events_pb2.BuildingMoved) -> BuildingMoved:
    side = _enum(BuildingSide, moved.side, "building_moved.side")
    return BuildingMoved(moved.seat, moved.origin, moved.destination, side)


def _build_passed_from_proto(passed: events_pb2.BuildPassed) -> BuildPassed:
    return BuildPassed(passed.seat)


def _supply_discarded_from_proto(discarded: events_pb2.SupplyDiscarded) -> SupplyDiscarded:
    return SupplyDiscarded(_ints(discarded.cards))


def _discard_pile_reshuffled_from_proto(
    reshuffled: events_pb2.DiscardPileReshuffled,
) -> DiscardPileReshuffled:
    order = _ints(reshuffled.order.cards) if reshuffled.HasField("order") else None
    return DiscardPileReshuffled(reshuffled.size, order)


def _cards_drawn_from_proto(drawn: events_pb2.CardsDrawn) -> CardsDrawn:
    cards = _ints(drawn.cards.cards) if drawn.HasField("cards") else None
    reason = _enum(DrawReason, drawn.reason, "cards_drawn.reason")
    return CardsDrawn(drawn.seat, drawn.count, cards, reason)


def _cards_discarded_from_proto(discarded: events_pb2.CardsDiscarded) -> CardsDiscarded:
    return CardsDiscarded(discarded.seat, _ints(discarded.cards))


def _round_ended_from_proto(ended: events_pb2.RoundEnded) -> RoundEnded:
    return RoundEnded(ended.round, ended.next_start_player)


def _game_ended_from_proto(over: events_pb2.GameEnded) -> GameEnded:
    return GameEnded(_ints(over.final_vp), _ints(over.winners), over.seed, over.early)


#: The decoder of each field of GameEvent's `event` oneof, by field name.
_EVENT_FROM_PROTO: dict[str, Callable[[Any], Event]] = {
    "game_created": _game_created_from_proto,
    "start_player_chosen": _start_player_chosen_from_proto,
    "ring_laid_out": _ring_laid_out_from_proto,
    "supply_dealt": _supply_dealt_from_proto,
    "strategist_assigned": _strategist_assigned_from_proto,
    "phase_began": _phase_began_from_proto,
    "first_estate_placed": _first_estate_placed_from_proto,
    "round_started": _round_started_from_proto,
    "conflict_chosen": _conflict_chosen_from_proto,
    "action_cards_dealt": _action_cards_dealt_from_proto,
    "action_card_picked": _action_card_picked_from_proto,
    "supply_played": _supply_played_from_proto,
    "action_cards_revealed": _action_cards_revealed_from_proto,
    "allegiance_switched": _allegiance_switched_from_proto,
    "conflict_resolved": _conflict_resolved_from_proto,
    "points_awarded": _points_awarded_from_proto,
    "landscape_flipped": _landscape_flipped_from_proto,
    "building_placed": _building_placed_from_proto,
    "building_flipped": _building_flipped_from_proto,
    "building_moved": _building_moved_from_proto,
    "build_passed": _build_passed_from_proto,
    "supply_discarded": _supply_discarded_from_proto,
    "discard_pile_reshuffled": _discard_pile_reshuffled_from_proto,
    "cards_drawn": _cards_drawn_from_proto,
    "cards_discarded": _cards_discarded_from_proto,
    "round_ended": _round_ended_from_proto,
    "game_ended": _game_ended_from_proto,
}


# --- commands --------------------------------------------------------------------------------


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
    with _as_malformed_command():
        return _command_from_proto(message, seat)


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


# --- views -----------------------------------------------------------------------------------


# A view is mostly parts that recur from view to view and game to game: the same landscapes,
# seats, last conflict and legal commands. Their messages are built once and shared (all the
# inputs are frozen); a parent message copies a sub-message it is given, so sharing is safe as
# long as nothing mutates these, which is why they stay private to view_to_proto. The recent
# ones are what recur (a game's next view shares most of its previous one): a bigger cache
# mostly keeps old entries alive for the garbage collector to walk.
_SHARED_MESSAGES = 4096
_legal_command_to_proto = lru_cache(maxsize=_SHARED_MESSAGES)(command_to_proto)


def view_to_proto(view: PlayerView, game_id: str) -> view_pb2.PlayerView:
    """The view as its seat receives it; it carries nothing the engine's view left out."""
    summary = view.last_conflict
    return view_pb2.PlayerView(
        game_id=game_id,
        version=view.version,
        seat=view.seat,
        phase=_wire(view.phase, _PHASE),
        round=view.round,
        rounds=view.rounds,
        start_player=view.start_player,
        strategist=view.strategist,
        ring=[_landscape_view_to_proto(landscape) for landscape in view.ring],
        seats=[_seat_view_to_proto(seat) for seat in view.seats],
        deck_count=view.deck_count,
        discard=view.discard,
        conflict=(
            None
            if view.conflict is None
            else view_pb2.ConflictPair(first=view.conflict[0], second=view.conflict[1])
        ),
        turn=view_pb2.Turn(
            phase=_wire(view.turn.phase, _PHASE),
            decision=_wire_or_none(view.turn.decision, _DECISION_KIND),
            seats=view.turn.seats,
        ),
        last_conflict=None if summary is None else _summary_to_proto(summary),
        seed_commitment=view.seed_commitment,
        hand=_supply(view.hand),
        pick=_wire_or_none(view.pick, _ACTION_CARD),
        offered=_action_cards(view.offered),
        legal=[_legal_command_to_proto(command) for command in view.legal],
        winners=view.winners,
        seed=view.seed,
    )


@lru_cache(maxsize=_SHARED_MESSAGES)
def _landscape_view_to_proto(landscape: LandscapeView) -> view_pb2.LandscapeView:
    return view_pb2.LandscapeView(
        position=landscape.position,
        type=_wire(landscape.type, _LANDSCAPE_TYPE),
        house=_wire(landscape.house, _HOUSE),
        building_owner=landscape.building_owner,
        building_side=_wire_or_none(landscape.building_side, _BUILDING_SIDE),
    )


@lru_cache(maxsize=_SHARED_MESSAGES)
def _seat_view_to_proto(seat: SeatView) -> view_pb2.SeatView:
    return view_pb2.SeatView(
        seat=seat.seat,
        house=_wire(seat.house, _HOUSE),
        vp=seat.vp,
        hand_count=seat.hand_count,
        unplaced_buildings=seat.unplaced_buildings,
        trading_posts=seat.trading_posts,
        has_picked=seat.has_picked,
        played=_supply(seat.played),
        revealed_pick=_wire_or_none(seat.revealed_pick, _ACTION_CARD),
        name=seat.name,
        bot_level=seat.bot_level,
    )


@lru_cache(maxsize=_SHARED_MESSAGES)
def _summary_to_proto(summary: ConflictSummary) -> view_pb2.ConflictSummary:
    return view_pb2.ConflictSummary(
        round=summary.round,
        first=summary.first,
        second=summary.second,
        picks=[_seat_pick(pick) for pick in summary.picks],
        played=[view_pb2.SeatPlay(cards=_supply(cards)) for cards in summary.played],
        traitor=summary.traitor,
        eagle_strength=summary.eagle_strength,
        rose_strength=summary.rose_strength,
        winner=_wire_or_none(summary.winner, _HOUSE),
        conquest_points=summary.conquest_points,
        flipped=summary.flipped,
    )


def view_from_proto(message: view_pb2.PlayerView) -> PlayerView:
    """The engine's view of a received PlayerView (bots and clients that run the engine)."""
    seat = message.seat if message.HasField("seat") else None
    if message.legal and seat is None:
        raise MalformedMessage("legal", "a spectator's view lists no commands")
    turn = message.turn
    return PlayerView(
        seat=seat,
        version=message.version,
        phase=_enum(Phase, message.phase, "phase"),
        round=message.round,
        rounds=message.rounds,
        start_player=message.start_player,
        strategist=message.strategist,
        ring=tuple(_landscape_view_from_proto(m, i) for i, m in enumerate(message.ring)),
        seats=tuple(_seat_view_from_proto(m, i) for i, m in enumerate(message.seats)),
        deck_count=message.deck_count,
        discard=tuple(message.discard),
        conflict=(
            (message.conflict.first, message.conflict.second)
            if message.HasField("conflict")
            else None
        ),
        turn=Turn(
            phase=_enum(Phase, turn.phase, "turn.phase"),
            decision=(
                _enum(DecisionKind, turn.decision, "turn.decision")
                if turn.HasField("decision")
                else None
            ),
            seats=tuple(turn.seats),
        ),
        last_conflict=(
            _summary_from_proto(message.last_conflict)
            if message.HasField("last_conflict")
            else None
        ),
        seed_commitment=message.seed_commitment,
        hand=tuple(message.hand.cards) if message.HasField("hand") else None,
        pick=_enum(ActionCard, message.pick, "pick") if message.HasField("pick") else None,
        offered=(
            _enums(ActionCard, message.offered.cards, "offered.cards")
            if message.HasField("offered")
            else None
        ),
        legal=tuple(command_from_proto(command, seat) for command in message.legal)
        if seat is not None
        else (),
        winners=tuple(message.winners),
        seed=message.seed if message.HasField("seed") else None,
    )


def _landscape_view_from_proto(message: view_pb2.LandscapeView, index: int) -> LandscapeView:
    field = f"ring[{index}]"
    return LandscapeView(
        position=message.position,
        type=_enum(LandscapeType, message.type, f"{field}.type"),
        house=_enum(House, message.house, f"{field}.house"),
        building_owner=message.building_owner if message.HasField("building_owner") else None,
        building_side=(
            _enum(BuildingSide, message.building_side, f"{field}.building_side")
            if message.HasField("building_side")
            else None
        ),
    )


def _seat_view_from_proto(message: view_pb2.SeatView, index: int) -> SeatView:
    field = f"seats[{index}]"
    return SeatView(
        seat=message.seat,
        house=_enum(House, message.house, f"{field}.house"),
        vp=message.vp,
        hand_count=message.hand_count,
        unplaced_buildings=message.unplaced_buildings,
        trading_posts=message.trading_posts,
        has_picked=message.has_picked,
        played=tuple(message.played.cards) if message.HasField("played") else None,
        revealed_pick=(
            _enum(ActionCard, message.revealed_pick, f"{field}.revealed_pick")
            if message.HasField("revealed_pick")
            else None
        ),
        name=message.name,
        bot_level=message.bot_level,
    )


def _summary_from_proto(message: view_pb2.ConflictSummary) -> ConflictSummary:
    return ConflictSummary(
        round=message.round,
        first=message.first,
        second=message.second,
        picks=_picks_of(message.picks, "last_conflict.picks"),
        played=tuple(
            tuple(play.cards.cards) if play.HasField("cards") else None for play in message.played
        ),
        traitor=message.traitor if message.HasField("traitor") else None,
        eagle_strength=message.eagle_strength,
        rose_strength=message.rose_strength,
        winner=(
            _enum(House, message.winner, "last_conflict.winner")
            if message.HasField("winner")
            else None
        ),
        conquest_points=tuple(message.conquest_points),
        flipped=message.flipped if message.HasField("flipped") else None,
    )


# --- rule violations -------------------------------------------------------------------------


def violation_to_proto(violation: RuleViolation) -> errors_pb2.RuleViolationDetail:
    """The detail a refused command's gRPC status carries (google.rpc.Status details)."""
    return errors_pb2.RuleViolationDetail(
        code=errors_pb2.ViolationCode.Value(_VIOLATION_PREFIX + violation.code.name),
        message=violation.message,
        field=violation.field,
    )


def violation_from_proto(message: errors_pb2.RuleViolationDetail) -> RuleViolation:
    """The engine's RuleViolation a client received; unknown codes are malformed."""
    try:
        name = errors_pb2.ViolationCode.Name(message.code).removeprefix(_VIOLATION_PREFIX)
        code = ViolationCode[name]
    except (ValueError, KeyError):
        raise MalformedMessage("code", f"{message.code} is not a known ViolationCode") from None
    return RuleViolation(code, message.message, message.field)
