"""A game's events told as a readable round-by-round story (demo, replay).

The story is told from the full (unredacted) log, so it is for finished games or for the
server's own eyes; it never decides anything, it only narrates the facts the events record.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator, Sequence

from services.engine import (
    ActionCard,
    ActionCardsRevealed,
    AllegianceSwitched,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildingSide,
    BuildPassed,
    CardsDiscarded,
    CardsDrawn,
    ConflictChosen,
    ConflictResolved,
    DiscardPileReshuffled,
    Event,
    FirstEstatePlaced,
    GameCreated,
    GameEnded,
    House,
    LandscapeFlipped,
    LandscapeType,
    Phase,
    PhaseBegan,
    PointsAwarded,
    RingLaidOut,
    RoundStarted,
    StartPlayerChosen,
    StrategistAssigned,
    SupplyPlayed,
)


def _house(house: House) -> str:
    return house.name.title()


def _kind(kind: LandscapeType) -> str:
    return kind.name.lower()


def _card(card: ActionCard | None) -> str:
    return card.name.lower() if card is not None else "nothing"


def _side(side: BuildingSide) -> str:
    return side.name.lower().replace("_", " ")


def a_side(side: BuildingSide) -> str:
    """A building side with its article: "an estate", "a trading post"."""
    name = _side(side)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def seat_names(events: Iterable[Event]) -> tuple[str, ...]:
    """Who sat where, from the first event (empty for a game created without seating)."""
    for event in events:
        if isinstance(event, GameCreated):
            return tuple(seat.name for seat in event.seats)
        break
    return ()


def who(names: Sequence[str], seat: int) -> str:
    """A seat by its player's name, or "seat N" (the log's own numbering) without one."""
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"


def fitted(lines: Iterable[str], width: int) -> Iterator[str]:
    """The story's lines wrapped at `width` (a terminal's), between words: a line too long goes
    on below, indented two more than it starts, so it still reads as one fact."""
    for line in lines:
        if len(line) <= width:
            yield line
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        yield from textwrap.wrap(
            line,
            width,
            initial_indent="",
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
        )


def tell(events: Iterable[Event]) -> Iterator[str]:
    """One line per noteworthy fact, with a header line per round; players by name."""
    kinds: tuple[LandscapeType, ...] = ()
    names: tuple[str, ...] = ()

    def where(position: int) -> str:
        return f"{_kind(kinds[position])} #{position}" if kinds else f"#{position}"

    def name(seat: int) -> str:
        return who(names, seat)

    for event in events:
        match event:
            case GameCreated():
                names = tuple(seat.name for seat in event.seats)
                rules = event.ruleset
                yield (
                    f"A game of Verräter for {rules.players} players over {rules.rounds} rounds "
                    f"(seed commitment {event.seed_commitment[:16]}…)"
                )
            case StartPlayerChosen():
                houses = ", ".join(
                    f"{name(seat)} {_house(house)}" for seat, house in enumerate(event.allegiances)
                )
                yield f"Start player: {name(event.seat)}. Allegiances: {houses}."
            case RingLaidOut():
                kinds = tuple(kind for kind, _ in event.landscapes)
                ring = " ".join(
                    f"{i}:{_kind(k)}/{_house(h)[0]}" for i, (k, h) in enumerate(event.landscapes)
                )
                yield f"Ring: {ring}"
            case StrategistAssigned():
                yield f"  {name(event.seat)} holds the strategy cards."
            case FirstEstatePlaced():
                yield f"  {name(event.seat)} places a first estate under {where(event.position)}."
            case RoundStarted():
                yield ""
                yield f"== Round {event.round} (start player: {name(event.start_player)}) =="
            case ConflictChosen():
                yield (
                    f"  {name(event.seat)} marks the conflict "
                    f"{where(event.first)} vs {where(event.second)}."
                )
            case SupplyPlayed():
                cards = ", ".join(map(str, event.cards)) or "nothing"
                yield f"  {name(event.seat)} plays supply: {cards}."
            case ActionCardsRevealed():
                picks = ", ".join(f"{name(s)} {_card(c)}" for s, c in enumerate(event.picks))
                yield f"  Reveal: {picks}."
            case AllegianceSwitched():
                yield f"  {name(event.seat)} betrays and now backs {_house(event.house)}!"
            case ConflictResolved():
                outcome = f"{_house(event.winner)} wins" if event.winner is not None else "a tie"
                yield (f"  Eagle {event.eagle_strength} vs Rose {event.rose_strength}: {outcome}.")
            case LandscapeFlipped():
                yield f"  {where(event.position)} falls to {_house(event.house)}."
            case PointsAwarded():
                reason = event.reason.name.lower().replace("_", " ")
                yield f"  {name(event.seat)} gains {event.points} VP ({reason})."
            case BuildingPlaced():
                yield (
                    f"  {name(event.seat)} builds {a_side(event.side)} under "
                    f"{where(event.position)}."
                )
            case BuildingFlipped():
                yield (
                    f"  {name(event.seat)} turns the building under {where(event.position)} "
                    f"into {a_side(event.side)}."
                )
            case BuildingMoved():
                yield (
                    f"  {name(event.seat)} moves a building from {where(event.origin)} to "
                    f"{where(event.destination)} as {a_side(event.side)}."
                )
            case BuildPassed():
                yield f"  {name(event.seat)} (builder) builds nothing."
            case DiscardPileReshuffled():
                yield f"  The discard pile ({event.size} cards) is reshuffled into the draw pile."
            case CardsDrawn():
                reason = event.reason.name.lower()
                yield f"  {name(event.seat)} draws {event.count} ({reason})."
            case CardsDiscarded():
                cards = ", ".join(map(str, event.cards))
                yield f"  {name(event.seat)} discards {cards} down to the hand limit."
            case PhaseBegan() if event.phase is Phase.FIRST_ESTATES:
                yield "First estates, in turn order:"
            case GameEnded():
                winners = " and ".join(name(s) for s in event.winners)
                scores = ", ".join(f"{name(s)}: {vp}" for s, vp in enumerate(event.final_vp))
                ending = " (early: one house holds every landscape)" if event.early else ""
                yield ""
                yield f"Game over{ending}. Final VP: {scores}. Winner: {winners}."
                yield f"Seed revealed: {event.seed.hex()}"
            case _:
                continue
