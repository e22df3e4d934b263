"""What the events tell a client beyond the view: who sits where, the points of the last
conflict, the trading-post bonus, how the game ended, and the latest happenings in words.

A `Chronicle` is a plain fold over the (redacted) events a watcher receives: `apply` one event
after another, from the first. It never needs the server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from services.api.verrater.v1 import events_pb2

from . import words

#: How many of the latest happenings a chronicle keeps for the screen.
RECENT = 40

_DECISION_EVENTS = (
    "first_estate_placed",
    "conflict_chosen",
    "action_card_picked",
    "supply_played",
    "building_placed",
    "building_flipped",
    "building_moved",
    "build_passed",
    "cards_discarded",
)


def timed_out_seat(event: events_pb2.GameEvent) -> int | None:
    """The seat a bot decided for because its turn timer ran out, if this is such a decision."""
    kind = event.WhichOneof("event")
    if not event.turn_timer_expired or kind not in _DECISION_EVENTS:
        return None
    seat: int = getattr(event, kind).seat
    return seat


@dataclass
class Chronicle:
    """The fold of a game's events as one watcher saw them."""

    names: list[str] = field(default_factory=list)
    turn_seconds: int = 0
    # Landscape types by ring position, to name places in the happenings.
    ring: list[int] = field(default_factory=list)
    # Points of the latest conflict (conquest, traitor, strategist): seat -> [(points, reason)].
    conflict_points: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    trading_post_bonus: dict[int, int] = field(default_factory=dict)
    ended: events_pb2.GameEnded | None = None
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=RECENT))

    @classmethod
    def of(cls, events: Iterable[events_pb2.GameEvent]) -> Chronicle:
        chronicle = cls()
        for event in events:
            chronicle.apply(event)
        return chronicle

    def name(self, seat: int) -> str:
        return words.seat_name(self.names, seat)

    def _place(self, position: int) -> str:
        if 0 <= position < len(self.ring):
            return words.landscape_at(self.ring[position], position)
        return f"#{position}"

    def apply(self, event: events_pb2.GameEvent) -> None:
        """Fold one event in."""
        kind = event.WhichOneof("event")
        timed_out = timed_out_seat(event)
        if timed_out is not None:
            self.recent.append(f"{self.name(timed_out)}'s turn timer ran out: a bot decided")
        if kind == "game_created":
            created = event.game_created
            self.names = [seat.name for seat in created.seats]
            self.turn_seconds = created.turn_seconds
            if not self.names:
                self.names = [f"Seat {seat + 1}" for seat in range(created.ruleset.players)]
        elif kind == "ring_laid_out":
            self.ring = [landscape.type for landscape in event.ring_laid_out.landscapes]
        elif kind == "conflict_resolved":
            self.conflict_points = {}
        elif kind == "points_awarded":
            awarded = event.points_awarded
            if awarded.reason == events_pb2.SCORE_REASON_TRADING_POSTS:
                bonus = self.trading_post_bonus.get(awarded.seat, 0) + awarded.points
                self.trading_post_bonus[awarded.seat] = bonus
            else:
                self.conflict_points.setdefault(awarded.seat, []).append(
                    (awarded.points, awarded.reason)
                )
        elif kind == "game_ended":
            self.ended = event.game_ended
        line = self.describe(event)
        if line:
            self.recent.append(line)

    def describe(self, event: events_pb2.GameEvent) -> str:
        """One event in words for the "latest" list; empty for bookkeeping events."""
        kind = event.WhichOneof("event")
        name = self.name
        if kind == "game_created":
            return f"A new game; seed commitment {event.game_created.seed_commitment}"
        if kind == "first_estate_placed":
            placed = event.first_estate_placed
            return f"{name(placed.seat)} placed a first estate under {self._place(placed.position)}"
        if kind == "round_started":
            started = event.round_started
            return f"Round {started.round} begins; {name(started.start_player)} starts"
        if kind == "conflict_chosen":
            chosen = event.conflict_chosen
            return (
                f"{name(chosen.seat)} marked the conflict: {self._place(chosen.first)} vs "
                f"{self._place(chosen.second)}"
            )
        if kind == "action_card_picked":
            picked = event.action_card_picked
            if picked.HasField("card"):
                return f"{name(picked.seat)} picked {words.ACTIONS.get(picked.card, '?')}"
            return f"{name(picked.seat)} picked an action card"
        if kind == "supply_played":
            played = event.supply_played
            return f"{name(played.seat)} played supply {words.cards(list(played.cards))}"
        if kind == "allegiance_switched":
            switched = event.allegiance_switched
            return f"{name(switched.seat)} betrays: now backs {words.house(switched.house)}"
        if kind == "conflict_resolved":
            resolved = event.conflict_resolved
            outcome = (
                f"{words.house(resolved.winner)} wins" if resolved.HasField("winner") else "a tie"
            )
            return (
                f"Conflict: Eagle {resolved.eagle_strength}, Rose {resolved.rose_strength}: "
                f"{outcome}"
            )
        if kind == "points_awarded":
            awarded = event.points_awarded
            reason = words.REASONS.get(awarded.reason, "?")
            return f"{name(awarded.seat)} +{awarded.points} VP ({reason})"
        if kind == "landscape_flipped":
            flipped = event.landscape_flipped
            return f"{self._place(flipped.position)} now belongs to {words.house(flipped.house)}"
        if kind == "building_placed":
            built = event.building_placed
            side = words.with_article(words.SIDES.get(built.side, "building"))
            return f"{name(built.seat)} built {side} under {self._place(built.position)}"
        if kind == "building_flipped":
            turned = event.building_flipped
            side = words.SIDES.get(turned.side, "?")
            where = self._place(turned.position)
            return f"{name(turned.seat)} turned the building under {where} to {side}"
        if kind == "building_moved":
            moved = event.building_moved
            return (
                f"{name(moved.seat)} moved a building from {self._place(moved.origin)} to "
                f"{self._place(moved.destination)}"
            )
        if kind == "build_passed":
            return f"{name(event.build_passed.seat)} built nothing"
        if kind == "cards_drawn":
            drawn = event.cards_drawn
            seen = f" ({words.cards(list(drawn.cards.cards))})" if drawn.HasField("cards") else ""
            plural = "card" if drawn.count == 1 else "cards"
            return f"{name(drawn.seat)} drew {drawn.count} {plural}{seen}"
        if kind == "discard_pile_reshuffled":
            return f"The discard pile ({event.discard_pile_reshuffled.size} cards) is reshuffled"
        if kind == "cards_discarded":
            discarded = event.cards_discarded
            return f"{name(discarded.seat)} discarded {words.cards(list(discarded.cards))}"
        if kind == "game_ended":
            return "The game is over" + (" early" if event.game_ended.early else "")
        return ""
