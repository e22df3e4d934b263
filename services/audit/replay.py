"""A game's log told round by round, for people (`verrater replay`).

The public story is `services.audit.story.tell`. A finished game's record is open, so each
chapter ends with what was hidden while it was played (the draw pile, the action card deal and
picks, the cards drawn). A log of a game still running is told as a spectator sees it: every
event is redacted first, and nothing hidden is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.audit.story import seat_names, tell, who
from services.engine import (
    ActionCard,
    ActionCardPicked,
    ActionCardsDealt,
    CardsDrawn,
    DiscardPileReshuffled,
    Event,
    GameState,
    Phase,
    RoundEnded,
    RoundStarted,
    SupplyDealt,
    evolve,
    initial_state,
    redact_event,
)

from .export import LogEntry, LogFormatError, records_of


@dataclass(frozen=True, slots=True)
class _Chapter:
    """A stretch of the log told together: the setup, one round (`round`), or the end."""

    round: int | None
    span: range


def tell_story(entries: Sequence[LogEntry], round: int | None = None) -> list[str]:
    """The story of the log, or of one round of it; ValueError for a round it does not hold."""
    events = [record.event for record in records_of(entries)]
    before = _states_before(events, [entry.version for entry in entries])
    finished = bool(events) and evolve(before[-1], events[-1]).phase is Phase.GAME_OVER
    told = (
        events
        if finished
        else [redact_event(event, None, state) for event, state in zip(events, before, strict=True)]
    )
    chapters = _chapters(events, finished)
    if round is not None:
        chapters = [chapter for chapter in chapters if chapter.round == round]
        if not chapters:
            played = [event.round for event in events if isinstance(event, RoundStarted)]
            raise ValueError(f"the log holds no round {round} (rounds played: {played})")
    # `tell` narrates event by event, so a stretch's lines are those of the log up to its end
    # without those of the log up to its start.
    lines = list(tell(told))
    bounds = {index for chapter in chapters for index in (chapter.span.start, chapter.span.stop)}
    told_up_to = {index: sum(1 for _ in tell(told[:index])) for index in bounds}
    story: list[str] = []
    for chapter in chapters:
        story.extend(lines[told_up_to[chapter.span.start] : told_up_to[chapter.span.stop]])
        if finished:
            story.extend(_behind_the_screen(events, before, chapter.span, seat_names(events)))
    if round is not None and story and not story[0]:
        story = story[1:]
    return story


def _states_before(events: Sequence[Event], versions: Sequence[int]) -> list[GameState]:
    """The state each event applies to (redaction and the hidden facts need it)."""
    states = []
    state = initial_state()
    for event, version in zip(events, versions, strict=True):
        states.append(state)
        try:
            state = evolve(state, event)
        except (ValueError, IndexError, KeyError) as error:
            raise LogFormatError(
                f"version {version}: the log cannot be told past this event ({error}); "
                "audit it to see what is wrong"
            ) from None
    return states


def _chapters(events: Sequence[Event], finished: bool) -> list[_Chapter]:
    """The setup, each round from its start to the next, and (finished games) the final score."""
    starts = [i for i, event in enumerate(events) if isinstance(event, RoundStarted)]
    ends = [i for i, event in enumerate(events) if isinstance(event, RoundEnded)]
    last = ends[-1] + 1 if finished and ends else len(events)
    chapters = [_Chapter(None, range(0, starts[0] if starts else last))]
    for number, start in enumerate(starts):
        stop = starts[number + 1] if number + 1 < len(starts) else last
        round_started = events[start]
        assert isinstance(round_started, RoundStarted)
        chapters.append(_Chapter(round_started.round, range(start, stop)))
    if last < len(events):
        chapters.append(_Chapter(None, range(last, len(events))))
    return chapters


def _cards(cards: Sequence[int | ActionCard] | None) -> str:
    if cards is None:
        return "unknown"
    return ", ".join(
        card.name.lower() if isinstance(card, ActionCard) else str(card) for card in cards
    )


def _behind_the_screen(
    events: Sequence[Event], before: Sequence[GameState], span: range, names: Sequence[str]
) -> list[str]:
    """What nobody (or only one seat) saw during the stretch: open once the game is over."""
    facts = []
    for index in span:
        event, state = events[index], before[index]
        match event:
            case SupplyDealt():
                facts.append(f"draw pile, top card first: {_cards(event.deck)}")
            case ActionCardsDealt():
                set_aside = event.set_aside.name.lower() if event.set_aside is not None else "?"
                facts.append(
                    f"set aside: {set_aside}; offered to {who(names, state.start_player)}: "
                    f"{_cards(event.offered)}"
                )
            case ActionCardPicked() if event.card is not None:
                facts.append(
                    f"{who(names, event.seat)} keeps {event.card.name.lower()} of "
                    f"{_cards(state.pool)}"
                )
            case CardsDrawn():
                facts.append(f"{who(names, event.seat)} draws {_cards(event.cards)}")
            case DiscardPileReshuffled():
                facts.append(f"new draw pile, top card first: {_cards(event.order)}")
            case _:
                continue
    if not facts:
        return []
    return ["  Behind the screen (hidden during play):"] + [f"    {fact}" for fact in facts]
