"""A game's events told as a readable round-by-round story (demo, replay).

The story is told from the full (unredacted) log, so it is for finished games or for the
server's own eyes; it never decides anything, it only narrates the facts the events record.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

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


def tell(events: Iterable[Event]) -> Iterator[str]:
    """One line per noteworthy fact, with a header line per round."""
    kinds: tuple[LandscapeType, ...] = ()

    def where(position: int) -> str:
        return f"{_kind(kinds[position])} #{position}" if kinds else f"#{position}"

    for event in events:
        match event:
            case GameCreated():
                rules = event.ruleset
                yield (
                    f"A game of Verräter for {rules.players} players over {rules.rounds} rounds "
                    f"(seed commitment {event.seed_commitment[:16]}…)"
                )
            case StartPlayerChosen():
                houses = ", ".join(f"seat {s} {_house(h)}" for s, h in enumerate(event.allegiances))
                yield f"Start player: seat {event.seat}. Allegiances: {houses}."
            case RingLaidOut():
                kinds = tuple(kind for kind, _ in event.landscapes)
                ring = " ".join(
                    f"{i}:{_kind(k)}/{_house(h)[0]}" for i, (k, h) in enumerate(event.landscapes)
                )
                yield f"Ring: {ring}"
            case StrategistAssigned():
                yield f"  Seat {event.seat} holds the strategy cards."
            case FirstEstatePlaced():
                yield f"  Seat {event.seat} places a first estate under {where(event.position)}."
            case RoundStarted():
                yield ""
                yield f"== Round {event.round} (start player: seat {event.start_player}) =="
            case ConflictChosen():
                yield (
                    f"  Seat {event.seat} marks the conflict "
                    f"{where(event.first)} vs {where(event.second)}."
                )
            case SupplyPlayed():
                cards = ", ".join(map(str, event.cards)) or "nothing"
                yield f"  Seat {event.seat} plays supply: {cards}."
            case ActionCardsRevealed():
                picks = ", ".join(f"seat {s} {_card(c)}" for s, c in enumerate(event.picks))
                yield f"  Reveal: {picks}."
            case AllegianceSwitched():
                yield f"  Seat {event.seat} betrays and now backs {_house(event.house)}!"
            case ConflictResolved():
                outcome = f"{_house(event.winner)} wins" if event.winner is not None else "a tie"
                yield (f"  Eagle {event.eagle_strength} vs Rose {event.rose_strength}: {outcome}.")
            case LandscapeFlipped():
                yield f"  {where(event.position)} falls to {_house(event.house)}."
            case PointsAwarded():
                reason = event.reason.name.lower().replace("_", " ")
                yield f"  Seat {event.seat} gains {event.points} VP ({reason})."
            case BuildingPlaced():
                yield (
                    f"  Seat {event.seat} builds a {_side(event.side)} under "
                    f"{where(event.position)}."
                )
            case BuildingFlipped():
                yield (
                    f"  Seat {event.seat} turns the building under {where(event.position)} "
                    f"into a {_side(event.side)}."
                )
            case BuildingMoved():
                yield (
                    f"  Seat {event.seat} moves a building from {where(event.origin)} to "
                    f"{where(event.destination)} as a {_side(event.side)}."
                )
            case BuildPassed():
                yield f"  Seat {event.seat} (builder) builds nothing."
            case DiscardPileReshuffled():
                yield f"  The discard pile ({event.size} cards) is reshuffled into the draw pile."
            case CardsDrawn():
                reason = event.reason.name.lower()
                yield f"  Seat {event.seat} draws {event.count} ({reason})."
            case CardsDiscarded():
                cards = ", ".join(map(str, event.cards))
                yield f"  Seat {event.seat} discards {cards} down to the hand limit."
            case PhaseBegan() if event.phase is Phase.FIRST_ESTATES:
                yield "First estates, in turn order:"
            case GameEnded():
                winners = " and ".join(f"seat {s}" for s in event.winners)
                scores = ", ".join(f"seat {s}: {vp}" for s, vp in enumerate(event.final_vp))
                ending = " (early: one house holds every landscape)" if event.early else ""
                yield ""
                yield f"Game over{ending}. Final VP: {scores}. Winner: {winners}."
                yield f"Seed revealed: {event.seed.hex()}"
            case _:
                continue
