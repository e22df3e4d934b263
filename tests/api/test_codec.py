"""The codec: engine values travel through protobuf and come back exactly as they left.

Random complete games (3 and 4 players, builder_may_move on and off) supply every kind of event,
command and view; the malformed inputs are built by hand.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from enum import IntEnum
from functools import cache
from typing import get_args

import pytest
from google.protobuf.descriptor import EnumDescriptor

from services.api.verrater.v1 import (
    cards_pb2,
    commands_pb2,
    errors_pb2,
    events_pb2,
    view_pb2,
)
from services.codec import (
    MAX_COMMAND_CARDS,
    MalformedCommand,
    MalformedMessage,
    Record,
    command_from_proto,
    command_to_proto,
    decode_record,
    encode_record,
    event_from_proto,
    event_to_proto,
    ruleset_from_proto,
    ruleset_to_proto,
    setup_from_proto,
    setup_to_proto,
    view_from_proto,
    view_to_proto,
    violation_from_proto,
    violation_to_proto,
)
from services.codec.events import EVENT_CODECS, EventCodec
from services.engine import (
    ActionCard,
    BuildingSide,
    CreateGame,
    DecisionKind,
    DrawReason,
    Event,
    ExplicitSetup,
    FirstEstatePlaced,
    GameCreated,
    GameState,
    House,
    LandscapeType,
    Phase,
    PlaceFirstEstate,
    Ruleset,
    RuleViolation,
    ScoreReason,
    ViolationCode,
    evolve,
    execute,
    fold,
    initial_state,
    legal_commands,
    load_card_table,
    redact_event,
    to_act,
    view,
)
from services.engine.simulate import PlayedGame, play_random_game

CONFIGS = [(3, False), (3, True), (4, False), (4, True)]
GAMES_PER_CONFIG = 12


@cache
def _games(players: int, builder_may_move: bool) -> tuple[PlayedGame, ...]:
    ruleset = Ruleset.standard(players, builder_may_move=builder_may_move)
    return tuple(
        play_random_game(ruleset, random.Random(1000 * players + 100 * builder_may_move + i))
        for i in range(GAMES_PER_CONFIG)
    )


def _steps(game: PlayedGame) -> Iterator[tuple[GameState, Event]]:
    """Each event of the game with the state it applies to."""
    state = initial_state()
    for event in game.events:
        yield state, event
        state = evolve(state, event)


def _states(game: PlayedGame) -> Iterator[GameState]:
    """Every state of the game from the first event on."""
    for before, event in _steps(game):
        yield evolve(before, event)


def _viewable_states(game: PlayedGame) -> Iterator[GameState]:
    """The states a client can be shown: from the laid-out ring on (setup runs in one go)."""
    return (state for state in _states(game) if state.kinds)


def _through_the_log(event: Event) -> Event:
    """The event as a game's log stores it and reads it back."""
    return decode_record(encode_record(Record(event))).event


config = pytest.mark.parametrize(
    ("players", "builder_may_move"), CONFIGS, ids=[f"{p}p-move{int(m)}" for p, m in CONFIGS]
)


# --- events ------------------------------------------------------------------------------------


@config
def test_every_event_of_random_games_round_trips_through_bytes(
    players: int, builder_may_move: bool
) -> None:
    kinds: set[type] = set()
    for game in _games(players, builder_may_move):
        for event in game.events:
            data = encode_record(Record(event))
            decoded = decode_record(data).event
            assert decoded == event
            assert type(decoded) is type(event)
            assert encode_record(Record(decoded)) == data
            kinds.add(type(event))
    assert len(kinds) >= 24, "the games should exercise nearly every kind of event"


@config
def test_a_game_read_back_from_its_log_shares_its_ruleset_and_buildings(
    players: int, builder_may_move: bool
) -> None:
    """A replica caches thousands of states: their ruleset and buildings are shared instances,
    not objects of their own for the garbage collector to walk (the values are unchanged)."""
    game = next(iter(_games(players, builder_may_move)))
    first = fold([_through_the_log(event) for event in game.events])
    second = fold([_through_the_log(event) for event in game.events])
    assert first.ruleset is second.ruleset
    placed = [b for b in first.buildings if b is not None]
    assert placed, "a whole game places buildings"
    assert all(a is b for a, b in zip(first.buildings, second.buildings, strict=True))
    assert fold(game.events).buildings == first.buildings


@config
def test_redacted_events_round_trip_for_every_seat_and_spectators(
    players: int, builder_may_move: bool
) -> None:
    for game in _games(players, builder_may_move)[:4]:
        for before, event in _steps(game):
            for seat in (None, *range(players)):
                redacted = redact_event(event, seat, before)
                assert _through_the_log(redacted) == redacted


def test_a_hidden_field_travels_as_an_absent_field() -> None:
    game = _games(4, False)[0]
    created = game.events[0]
    assert isinstance(created, GameCreated) and created.seed is not None
    redacted = redact_event(created, 2, initial_state())
    message = event_to_proto(redacted)
    assert not message.game_created.HasField("seed")
    assert created.seed not in encode_record(Record(redacted))
    assert event_to_proto(created).game_created.seed == created.seed


def test_a_record_keeps_its_command_id_and_turn_timer_flag() -> None:
    played = next(e for e in _games(3, False)[0].events if isinstance(e, FirstEstatePlaced))
    for record in (Record(played), Record(played, "c-7"), Record(played, "c-7", True)):
        assert decode_record(encode_record(record)) == record


def test_every_engine_event_kind_has_its_own_oneof_field() -> None:
    fields = events_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"].fields
    seen = {event_to_proto(e).WhichOneof("event") for g in _games(3, True) for e in g.events}
    assert seen <= {field.name for field in fields}
    assert len(fields) == len(get_args(Event))


def test_every_event_field_decodes_to_its_own_event_or_is_malformed() -> None:
    for field in events_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"].fields:
        message = events_pb2.GameEvent()
        getattr(message, field.name).SetInParent()  # the event with every field at its default
        try:
            event = event_from_proto(message)
        except MalformedMessage as error:
            assert error.field.startswith(f"{field.name}."), error.field
        else:
            assert event_to_proto(event).WhichOneof("event") == field.name


def test_the_event_table_has_one_entry_per_engine_event_and_per_oneof_field() -> None:
    oneof = events_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"]
    assert Counter(codec.kind for codec in EVENT_CODECS) == Counter(get_args(Event))
    assert Counter(codec.field for codec in EVENT_CODECS) == Counter(f.name for f in oneof.fields)


@cache
def _examples() -> dict[type, list[tuple[GameState, Event]]]:
    """Up to three events of each kind from the random games, each with the state before it."""
    found: dict[type, list[tuple[GameState, Event]]] = {}
    for players, builder_may_move in CONFIGS:
        for game in _games(players, builder_may_move):
            for before, event in _steps(game):
                examples = found.setdefault(type(event), [])
                if len(examples) < 3:
                    examples.append((before, event))
    return found


@pytest.mark.parametrize("codec", EVENT_CODECS, ids=[codec.field for codec in EVENT_CODECS])
def test_each_event_kind_round_trips_through_its_own_field(codec: EventCodec) -> None:
    examples = _examples().get(codec.kind, [])
    assert examples, f"the random games should hold a {codec.kind.__name__}"
    for before, event in examples:
        # Every game seats at least three: seats 0 to 2 and a spectator see every redaction.
        for seen in [event, *(redact_event(event, seat, before) for seat in (None, 0, 1, 2))]:
            message = event_to_proto(seen)
            assert message.WhichOneof("event") == codec.field
            assert codec.decode(getattr(message, codec.field)) == seen
            assert event_from_proto(message) == seen


def test_an_explicit_setup_round_trips_with_the_game_it_creates() -> None:
    ring = tuple((kind, house) for house in House for kind in LandscapeType)
    full = ExplicitSetup(
        start_player=2,
        ring=ring,
        deck=(8, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 2, 2, 2),
        set_aside=(ActionCard.FARMER, ActionCard.TRAITOR),
    )
    for setup in (full, ExplicitSetup(start_player=0), ExplicitSetup(ring=ring), ExplicitSetup()):
        assert setup_from_proto(setup_to_proto(setup)) == setup
        events, _ = execute(initial_state(), CreateGame(Ruleset.standard(3), b"\x07" * 32, setup))
        for event in events:
            assert _through_the_log(event) == event


def test_a_custom_card_table_round_trips_with_its_provisional_flags() -> None:
    table = load_card_table()
    city = replace(table.landscapes[LandscapeType.CITY], vp=(20, 9, 4, 2))
    custom = replace(table, name="house-rules", landscapes=(*table.landscapes[:-1], city))
    for ruleset in (
        Ruleset.standard(3),
        Ruleset.standard(4, builder_may_move=True),
        Ruleset(4, 5, False, custom),
    ):
        message = ruleset_to_proto(ruleset)
        assert ruleset_from_proto(message) == ruleset
        provisional = [[c.provisional for c in s.vp] for s in message.card_table.landscapes]
        assert provisional == [list(s.provisional) for s in ruleset.card_table.landscapes]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (events_pb2.GameEvent(), "event"),
        (events_pb2.GameEvent(phase_began=events_pb2.PhaseBegan()), "phase_began.phase"),
        (
            events_pb2.GameEvent(
                points_awarded=events_pb2.PointsAwarded(seat=1, points=2, reason=9)  # type: ignore[arg-type]
            ),
            "points_awarded.reason",
        ),
        (
            events_pb2.GameEvent(
                action_cards_revealed=events_pb2.ActionCardsRevealed(
                    picks=[cards_pb2.SeatPick(), cards_pb2.SeatPick(card=0)]  # type: ignore[arg-type]
                )
            ),
            "action_cards_revealed.picks[1].card",
        ),
        (events_pb2.GameEvent(game_created=events_pb2.GameCreated()), "game_created.ruleset"),
    ],
)
def test_an_event_message_that_describes_no_event_is_malformed(
    message: events_pb2.GameEvent, field: str
) -> None:
    with pytest.raises(MalformedMessage) as raised:
        event_from_proto(message)
    assert raised.value.field == field


def test_bytes_that_are_no_event_are_malformed() -> None:
    with pytest.raises(MalformedMessage):
        decode_record(b"\xff\xff\xff")


def test_a_card_table_lacking_a_landscape_is_malformed() -> None:
    message = ruleset_to_proto(Ruleset.standard(3))
    del message.card_table.landscapes[2]
    with pytest.raises(MalformedMessage, match="river"):
        ruleset_from_proto(message)


# --- commands ----------------------------------------------------------------------------------


@config
def test_every_legal_command_round_trips(players: int, builder_may_move: bool) -> None:
    count = 0
    for game in _games(players, builder_may_move)[:4]:
        for state in _states(game):
            for seat in to_act(state):
                for command in legal_commands(state, seat):
                    assert command_from_proto(command_to_proto(command), seat) == command
                    count += 1
    assert count > 1000


def test_the_seat_comes_from_the_caller_not_the_message() -> None:
    message = command_to_proto(PlaceFirstEstate(seat=1, position=4))
    assert command_from_proto(message, 3) == PlaceFirstEstate(seat=3, position=4)


def test_out_of_range_numbers_reach_the_rules_and_break_them_there() -> None:
    game = _games(3, False)[0]
    state = next(s for s in _states(game) if s.phase is Phase.FIRST_ESTATES)
    seat = to_act(state)[0]
    message = commands_pb2.Command(place_first_estate=commands_pb2.PlaceFirstEstate(position=-1))
    command = command_from_proto(message, seat)
    assert command == PlaceFirstEstate(seat, -1)
    with pytest.raises(RuleViolation) as raised:
        execute(state, command)
    assert raised.value.code is ViolationCode.INVALID_POSITION


_TOO_MANY = list(range(MAX_COMMAND_CARDS + 1))


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (commands_pb2.Command(), "command"),
        (commands_pb2.Command(pick_action_card=commands_pb2.PickActionCard()), "card"),
        (
            commands_pb2.Command(pick_action_card=commands_pb2.PickActionCard(card=42)),  # type: ignore[arg-type]
            "card",
        ),
        (
            commands_pb2.Command(place_building=commands_pb2.PlaceBuilding(position=3)),
            "side",
        ),
        (
            commands_pb2.Command(
                move_building=commands_pb2.MoveBuilding(origin=1, destination=2, side=3)  # type: ignore[arg-type]
            ),
            "side",
        ),
        (commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=_TOO_MANY)), "cards"),
        (commands_pb2.Command(discard_cards=commands_pb2.DiscardCards(cards=_TOO_MANY)), "cards"),
    ],
    ids=[
        "no-command",
        "unspecified-card",
        "unknown-card",
        "unspecified-side",
        "unknown-side",
        "too-many-supply-cards",
        "too-many-discards",
    ],
)
def test_a_malformed_command_is_refused_before_the_rules_see_it(
    message: commands_pb2.Command, field: str
) -> None:
    with pytest.raises(MalformedCommand) as raised:
        command_from_proto(message, 0)
    assert raised.value.field == field


def test_a_malformed_setup_is_a_malformed_command() -> None:
    setup = events_pb2.ExplicitSetup(
        ring=events_pb2.Ring(
            landscapes=[events_pb2.RingLandscape(type=cards_pb2.LANDSCAPE_TYPE_MEADOW)]
        )
    )
    with pytest.raises(MalformedCommand) as raised:
        setup_from_proto(setup)
    assert raised.value.field == "ring.landscapes[0].house"


def test_as_many_cards_as_the_limit_are_still_a_command() -> None:
    cards = list(range(MAX_COMMAND_CARDS))
    message = commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=cards))
    assert command_from_proto(message, 1).cards == tuple(cards)  # type: ignore[union-attr]


# --- views -------------------------------------------------------------------------------------


@config
def test_every_view_round_trips(players: int, builder_may_move: bool) -> None:
    for game in _games(players, builder_may_move)[:2]:
        for state in _viewable_states(game):
            for seat in (None, *range(players)):
                seen = view(state, seat)
                message = view_to_proto(seen, "g-1")
                assert message.game_id == "g-1"
                assert view_from_proto(message) == seen


def _a_view_after_a_conflict() -> view_pb2.PlayerView:
    game = _games(4, False)[0]
    state = next(state for state in _viewable_states(game) if state.last_conflict is not None)
    return view_to_proto(view(state, 0), "g-1")


def test_a_conflict_summary_adds_its_strengths_up_from_the_parts_it_lists() -> None:
    message = _a_view_after_a_conflict()
    summary = view_from_proto(message).last_conflict
    assert summary is not None
    strengths = summary.strengths()
    assert strengths is not None
    eagle, rose = strengths
    assert (eagle.total, rose.total) == (summary.eagle_strength, summary.rose_strength)
    message.last_conflict.ClearField("eagle")  # a server that sends no breakdown
    without = view_from_proto(message).last_conflict
    assert without is not None and without.strengths() is None


@pytest.mark.parametrize("seat_listed", ["twice", "nowhere"])
def test_a_strength_breakdown_that_seats_no_seat_once_is_malformed(seat_listed: str) -> None:
    message = _a_view_after_a_conflict()
    eagle, rose = message.last_conflict.eagle, message.last_conflict.rose
    backer = (eagle.seats or rose.seats)[0].seat
    if seat_listed == "twice":
        for strength in (eagle, rose):
            if all(part.seat != backer for part in strength.seats):
                strength.seats.add(seat=backer, cards=0)
    else:
        for strength in (eagle, rose):
            kept = [part for part in strength.seats if part.seat != backer]
            del strength.seats[:]
            strength.seats.extend(kept)
    with pytest.raises(MalformedMessage, match="last_conflict"):
        view_from_proto(message)


def _with_others_cards_dealt_anew(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same game but for what `seat` cannot see: the other hands and the draw pile."""
    others = [s for s in range(len(state.hands)) if s != seat]
    cards = [card for s in others for card in state.hands[s]] + list(state.deck)
    rng.shuffle(cards)
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], cards = tuple(sorted(cards[:size])), cards[size:]
    changed = state.copy()
    changed.hands = tuple(hands)
    changed.deck = tuple(cards)
    return changed


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_view_carries_no_other_seat_hand(players: int) -> None:
    rng = random.Random(players)
    differed = 0
    for game in _games(players, True)[:3]:
        for state in _viewable_states(game):
            for seat in range(players):
                message = view_to_proto(view(state, seat), "g")
                assert tuple(message.hand.cards) == state.hands[seat]
                changed = _with_others_cards_dealt_anew(state, seat, rng)
                differed += changed.hands != state.hands
                assert view_to_proto(view(changed, seat), "g") == message
    assert differed > 100, "the other hands should really have changed"


def test_a_spectator_view_has_no_hand_and_no_commands() -> None:
    state = next(s for s in _states(_games(4, False)[0]) if s.phase is Phase.SUPPLY)
    message = view_to_proto(view(state, None), "g")
    assert not message.HasField("seat")
    assert not message.HasField("hand")
    assert not message.legal


# --- rule violations ---------------------------------------------------------------------------


@pytest.mark.parametrize("code", list(ViolationCode))
def test_every_rule_violation_code_travels_by_name(code: ViolationCode) -> None:
    violation = RuleViolation(code, "a message for people", "position")
    message = violation_to_proto(violation)
    assert errors_pb2.ViolationCode.Name(message.code) == f"VIOLATION_CODE_{code.name}"
    back = violation_from_proto(message)
    assert (back.code, back.message, back.field) == (code, "a message for people", "position")


def test_an_unspecified_violation_code_is_malformed() -> None:
    with pytest.raises(MalformedMessage):
        violation_from_proto(errors_pb2.RuleViolationDetail(message="?"))


# --- the enum mapping --------------------------------------------------------------------------

ENUMS: list[tuple[type[IntEnum], EnumDescriptor, str]] = [
    (House, cards_pb2.House.DESCRIPTOR, "HOUSE_"),
    (LandscapeType, cards_pb2.LandscapeType.DESCRIPTOR, "LANDSCAPE_TYPE_"),
    (ActionCard, cards_pb2.ActionCard.DESCRIPTOR, "ACTION_CARD_"),
    (BuildingSide, cards_pb2.BuildingSide.DESCRIPTOR, "BUILDING_SIDE_"),
    (Phase, events_pb2.Phase.DESCRIPTOR, "PHASE_"),
    (ScoreReason, events_pb2.ScoreReason.DESCRIPTOR, "SCORE_REASON_"),
    (DrawReason, events_pb2.DrawReason.DESCRIPTOR, "DRAW_REASON_"),
    (DecisionKind, view_pb2.DecisionKind.DESCRIPTOR, "DECISION_KIND_"),
]


@pytest.mark.parametrize(
    ("engine", "proto", "prefix"), ENUMS, ids=[engine.__name__ for engine, _, _ in ENUMS]
)
def test_each_proto_enum_is_its_engine_enum_plus_one(
    engine: type[IntEnum], proto: EnumDescriptor, prefix: str
) -> None:
    expected = [(f"{prefix}UNSPECIFIED", 0)] + [(prefix + m.name, m.value + 1) for m in engine]
    assert [(value.name, value.number) for value in proto.values] == expected


def test_the_proto_violation_codes_are_the_engine_codes() -> None:
    values = errors_pb2.ViolationCode.DESCRIPTOR.values
    assert [value.number for value in values] == list(range(len(values)))
    names = [value.name.removeprefix("VIOLATION_CODE_") for value in values]
    assert names == ["UNSPECIFIED", *(code.name for code in ViolationCode)]
