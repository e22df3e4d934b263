"""Honest games audit clean: any player count, variant, card table or fixed setup."""

from __future__ import annotations

import pytest

from services.audit import FindingKind, audit
from services.engine import (
    DEFAULT_CARD_TABLE,
    ActionCard,
    CardTable,
    ExplicitSetup,
    Ruleset,
    ScoreReason,
    deciding_seat,
)
from services.engine.events import (
    DiscardPileReshuffled,
    GameEnded,
    PointsAwarded,
    RoundStarted,
)

from .logs import chained, events_of, payloads_of, random_log, random_log_created_with


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("seed", range(12))
def test_random_finished_games_audit_clean(players: int, seed: int) -> None:
    entries = random_log(seed, players)
    events = events_of(entries)
    report = audit(entries)
    assert report.ok, report.summary()
    assert report.replayed
    assert report.decisions == sum(1 for event in events if deciding_seat(event) is not None)
    # Start player, ring and supply deck, then one deal per round and every reshuffle.
    random_outcomes = (RoundStarted, DiscardPileReshuffled)
    assert report.shuffles == 3 + sum(isinstance(event, random_outcomes) for event in events)


@pytest.mark.parametrize("seed", range(6))
def test_games_with_the_builder_may_move_variant_audit_clean(seed: int) -> None:
    ruleset = Ruleset.standard(4, builder_may_move=True)
    report = audit(random_log(seed, ruleset=ruleset))
    assert report.ok, report.summary()


def _generous_card_table() -> CardTable:
    table = DEFAULT_CARD_TABLE.to_dict()
    table["name"] = "house-rules"
    for landscape in table["landscapes"]:
        landscape["vp"] = [points * 10 + 7 for points in landscape["vp"]]
    return CardTable.from_dict(table)


def test_a_game_with_another_card_table_is_audited_with_that_table() -> None:
    ruleset = Ruleset.standard(4, card_table=_generous_card_table())
    entries = random_log(5, ruleset=ruleset)
    conquests = [
        event.points
        for event in events_of(entries)
        if isinstance(event, PointsAwarded) and event.reason is ScoreReason.CONQUEST
    ]
    assert conquests and all(points % 10 == 7 for points in conquests)
    report = audit(entries)
    assert report.ok, report.summary()
    assert "house-rules" in report.summary()


def test_a_fixed_setup_audits_clean_and_the_report_names_what_was_fixed_by_hand() -> None:
    setup = ExplicitSetup(start_player=2, set_aside=(ActionCard.FARMER, ActionCard.TRAITOR))
    report = audit(random_log_created_with(3, setup=setup))
    assert report.ok, report.summary()
    assert report.explicit == ("start player", "set-aside action cards of rounds 1-2")
    assert "set by hand" in report.summary()


def test_a_game_with_a_turn_timer_audits_clean() -> None:
    report = audit(random_log_created_with(4, players=3, turn_seconds=45))
    assert report.ok, report.summary()


def test_the_report_states_the_result_and_the_verdict() -> None:
    entries = random_log(1)
    ended = events_of(entries)[-1]
    assert isinstance(ended, GameEnded)
    report = audit(entries)
    summary = report.summary()
    assert report.final_vp == ended.final_vp
    assert report.winners == ended.winners
    assert report.seed == ended.seed
    assert ended.seed.hex() in summary
    assert "CLEAN" in summary
    assert entries[-1].hash in summary


def test_a_log_cut_short_at_a_batch_boundary_is_not_a_finished_game() -> None:
    entries = random_log(2)
    last_decision = max(
        index for index, event in enumerate(events_of(entries)) if deciding_seat(event) is not None
    )
    # A tail cut keeps an intact chain: only the missing end tells.
    report = audit(chained(payloads_of(entries)[:last_decision]))
    assert [finding.kind for finding in report.findings] == [FindingKind.RESULT]
    assert "not over" in report.findings[0].message


def test_an_empty_log_is_a_finding() -> None:
    report = audit([])
    assert not report.ok
    assert report.findings[0].message == "the log is empty"
