"""`tell_story`: a finished game round by round, with what was hidden; a running one as seen."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

import pytest

from services.audit import replay, story, tell_story
from services.audit.verify import AuditReport
from services.engine import Event, Ruleset, SeatAssignment, deciding_seat, play_random_game
from services.engine.events import (
    ActionCardPicked,
    ActionCardsDealt,
    CardsDrawn,
    GameCreated,
    RoundStarted,
    SupplyDealt,
)

from .logs import chained, events_of, payloads_of, random_log


@pytest.mark.parametrize(("seed", "players"), [(1, 4), (2, 3), (3, 4)])
def test_the_story_of_a_finished_game_mentions_every_round(seed: int, players: int) -> None:
    entries = random_log(seed, players)
    rounds = [event.round for event in events_of(entries) if isinstance(event, RoundStarted)]
    story = "\n".join(tell_story(entries))
    for number in rounds:
        assert f"== Round {number} " in story
    assert "Game over" in story
    assert story.index("First estates") < story.index("== Round 1 ")


def test_a_finished_game_shows_what_was_hidden_during_play() -> None:
    story = "\n".join(tell_story(random_log(4)))
    assert "Behind the screen" in story
    assert "draw pile, top card first:" in story
    assert "set aside:" in story
    assert " keeps " in story


def test_one_round_alone() -> None:
    lines = tell_story(random_log(5), round=3)
    assert lines[0].startswith("== Round 3 ")
    assert not any(line.startswith("== Round") for line in lines[1:])
    assert any("Behind the screen" in line for line in lines)


def test_a_round_the_log_does_not_hold_is_an_error() -> None:
    with pytest.raises(ValueError, match="no round 42"):
        tell_story(random_log(5), round=42)


def test_a_running_game_is_told_as_a_spectator_sees_it() -> None:
    entries = random_log(6)
    events = events_of(entries)
    middle = [i for i, event in enumerate(events) if deciding_seat(event) is not None][40]
    story = tell_story(chained(payloads_of(entries)[:middle]))
    text = "\n".join(story)
    assert "== Round" in text
    assert "Behind the screen" not in text
    assert "Game over" not in text


def test_the_story_of_a_running_game_is_told_from_redacted_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    told: list[Event] = []

    def recording_tell(events: Iterable[Event]) -> Iterator[str]:
        events = list(events)
        told.extend(events)
        return story.tell(events)

    monkeypatch.setattr(replay, "tell", recording_tell)
    entries = random_log(6)
    replay.tell_story(chained(payloads_of(entries)[:60]))
    assert told
    for event in told:
        match event:
            case GameCreated():
                assert event.seed is None
            case SupplyDealt():
                assert event.deck is None
            case ActionCardsDealt():
                assert event.set_aside is None and event.offered is None
            case ActionCardPicked():
                assert event.card is None
            case CardsDrawn():
                assert event.cards is None


NAMES = ("Anna", "Bert", "Cleo", "Dora")


def _named_game(seed: int) -> list[Event]:
    game = play_random_game(Ruleset.standard(4), random.Random(seed))
    created = game.events[0]
    assert isinstance(created, GameCreated)
    seats = tuple(SeatAssignment(f"p{seat}", name) for seat, name in enumerate(NAMES))
    return [replace(created, seats=seats), *game.events[1:]]


@pytest.mark.parametrize("seed", [8, 9])
def test_the_story_names_the_players_of_the_first_event(seed: int) -> None:
    text = "\n".join(story.tell(_named_game(seed)))
    assert not re.search(r"\bseat \d", text, re.I)
    assert "Start player: " in text and "Winner: " in text
    for name in NAMES:
        assert f"  {name} " in text


def test_buildings_take_their_articles() -> None:
    lines = [line for seed in range(8, 20) for line in story.tell(_named_game(seed))]
    built = [line for line in lines if " builds " in line or " into " in line or " as a" in line]
    assert built
    assert not any(re.search(r"\ba estate\b|\ban trading\b", line) for line in built)
    assert any(" builds an estate " in line or " builds a trading post " in line for line in built)


def test_a_game_without_seating_keeps_the_logs_seat_numbers() -> None:
    text = "\n".join(tell_story(random_log(5)))
    assert "Start player: seat " in text


def test_the_audit_summary_names_the_players() -> None:
    report = AuditReport((), 10, "ab" * 32, final_vp=(12, 30, 7), winners=(1,), names=NAMES[:3])
    assert "result      Anna: 12, Bert: 30, Cleo: 7; winner Bert" in report.summary()
