"""What one seat (or a spectator) is shown of a game, as the PlayerView message, and back.

A view carries nothing the engine's view left out: the redaction happens in the engine, and this
module only translates. A view goes out to a watching seat after each change of its game, so
the parts that recur from view to view are built once and shared (see `_SHARED_MESSAGES`). Bots
and clients that run the engine read views back with `view_from_proto`.
"""

from __future__ import annotations

from functools import lru_cache

from google.protobuf import timestamp_pb2

from services.api.verrater.v1 import view_pb2
from services.engine import (
    ActionCard,
    BuildingSide,
    ConflictSummary,
    DecisionKind,
    House,
    HouseStrength,
    LandscapeType,
    LandscapeView,
    Phase,
    PlayerView,
    SeatView,
    StrengthParts,
    Turn,
)

from .commands import command_from_proto, command_to_proto
from .enums import (
    _ACTION_CARD,
    _BUILDING_SIDE,
    _DECISION_KIND,
    _HOUSE,
    _LANDSCAPE_TYPE,
    _PHASE,
    MalformedMessage,
    _action_cards,
    _enum,
    _enums,
    _picks_of,
    _seat_pick,
    _supply,
    _wire,
    _wire_or_none,
    bot_level_from_proto,
    bot_level_to_proto,
)

# A view is mostly parts that recur from view to view and game to game: the same landscapes,
# seats, last conflict and legal commands. Their messages are built once and shared (all the
# inputs are frozen); a parent message copies a sub-message it is given, so sharing is safe as
# long as nothing mutates these, which is why they stay private to view_to_proto. The recent
# ones are what recur (a game's next view shares most of its previous one): a bigger cache
# mostly keeps old entries alive for the garbage collector to walk.
_SHARED_MESSAGES = 4096
_legal_command_to_proto = lru_cache(maxsize=_SHARED_MESSAGES)(command_to_proto)


def view_to_proto(
    view: PlayerView, game_id: str, deadline_ms: int | None = None
) -> view_pb2.PlayerView:
    """The view as its seat receives it; it carries nothing the engine's view left out.
    `deadline_ms` is when the decision it awaits is due (the game service's turn clock)."""
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
            deadline=None if deadline_ms is None else _timestamp(deadline_ms),
        ),
        last_conflict=None if summary is None else _summary_to_proto(summary),
        seed_commitment=view.seed_commitment,
        hand=_supply(view.hand),
        pick=_wire_or_none(view.pick, _ACTION_CARD),
        offered=_action_cards(view.offered),
        legal=[_legal_command_to_proto(command) for command in view.legal],
        winners=view.winners,
        seed=view.seed,
        turn_seconds=view.turn_seconds,
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
        bot_level=bot_level_to_proto(seat.bot_level),
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
        **_strengths_to_proto(summary.strengths()),
    )


def _strengths_to_proto(
    strengths: tuple[HouseStrength, HouseStrength] | None,
) -> dict[str, view_pb2.HouseStrength]:
    if strengths is None:
        return {}
    eagle, rose = strengths
    return {"eagle": _strength_to_proto(eagle), "rose": _strength_to_proto(rose)}


def _strength_to_proto(strength: HouseStrength) -> view_pb2.HouseStrength:
    return view_pb2.HouseStrength(
        position=strength.position,
        landscape=strength.landscape,
        seats=[view_pb2.SeatContribution(seat=seat, cards=cards) for seat, cards in strength.seats],
        diplomats=strength.diplomats,
        total=strength.total,
    )


def _parts_from_proto(message: view_pb2.ConflictSummary) -> StrengthParts | None:
    """The parts of the strengths a summary lists (who backed which house, each house's
    landscape); the cards and diplomats in them are the summary's own plays and picks."""
    if not (message.HasField("eagle") and message.HasField("rose")):
        return None
    backers = {part.seat: House.EAGLE for part in message.eagle.seats}
    for part in message.rose.seats:
        if backers.setdefault(part.seat, House.ROSE) is not House.ROSE:
            raise MalformedMessage("last_conflict.rose.seats", f"seat {part.seat} backs both")
    if sorted(backers) != list(range(len(message.picks))):
        raise MalformedMessage("last_conflict.eagle.seats", "every seat backs one house")
    return StrengthParts(
        allegiance=tuple(backers[seat] for seat in range(len(backers))),
        eagle_at=message.eagle.position,
        eagle_landscape=message.eagle.landscape,
        rose_at=message.rose.position,
        rose_landscape=message.rose.landscape,
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
        turn_seconds=message.turn_seconds,
    )


#: Decoded ring positions by their fields: a ring has a dozen, a bot decodes one per turn, and
#: they rarely change (LandscapeView is frozen, so one may be shared).
_LANDSCAPES: dict[tuple[int, int, int, int, int], LandscapeView] = {}
_LANDSCAPES_KEPT = 4096


def _landscape_view_from_proto(message: view_pb2.LandscapeView, index: int) -> LandscapeView:
    key = (
        message.position,
        message.type,
        message.house,
        message.building_owner if message.HasField("building_owner") else -1,
        message.building_side if message.HasField("building_side") else -1,
    )
    known = _LANDSCAPES.get(key)
    if known is None:
        known = _decode_landscape(message, index)
        if len(_LANDSCAPES) >= _LANDSCAPES_KEPT:
            _LANDSCAPES.clear()
        _LANDSCAPES[key] = known
    return known


def _decode_landscape(message: view_pb2.LandscapeView, index: int) -> LandscapeView:
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
        bot_level=bot_level_from_proto(message.bot_level, f"{field}.bot_level"),
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
        parts=_parts_from_proto(message),
    )


def _timestamp(unix_ms: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(unix_ms)
    return stamp
