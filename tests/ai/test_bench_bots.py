"""`run_bot_tournament`: the report's shape, and the statistics behind it."""

from __future__ import annotations

from typing import Any

import pytest

from services.bench.bots import (
    HALF_WIDTH,
    GameResult,
    games_needed,
    run_bot_tournament,
    summarize,
    wilson_interval,
)


def test_the_tournament_reports_each_matchup_in_the_agreed_shape() -> None:
    report = run_bot_tournament(games=2, budget_s=0.01, workers=2)
    assert list(report) == ["matchups"]
    assert [(m["strong"], m["weak"]) for m in report["matchups"]] == [
        ("normal", "easy"),
        ("hard", "normal"),
        ("expert", "normal"),
        ("expert", "hard"),
    ]
    for matchup in report["matchups"]:
        assert set(matchup) == {
            "strong",
            "weak",
            "games",
            "win_rate",
            "ci95_low",
            "ci95_high",
            "ci95",
            "seconds_per_decision",
            "mean_seconds_per_decision",
            "wall_seconds_per_decision",
            "mean_vp",
        }
        assert matchup["games"] == 2
        low, high = matchup["ci95"]
        assert (low, high) == (matchup["ci95_low"], matchup["ci95_high"])
        assert 0.0 <= low <= matchup["win_rate"] <= high <= 1.0
        assert matchup["seconds_per_decision"] > 0.0
        assert set(matchup["mean_vp"]) == {"strong", "weak"}


def test_without_a_number_of_games_a_matchup_plays_until_its_interval_is_narrow() -> None:
    report = run_bot_tournament(games=None, budget_s=0.01, workers=2, matchups=[("normal", "easy")])
    [matchup] = report["matchups"]
    assert (matchup["ci95_high"] - matchup["ci95_low"]) / 2 <= HALF_WIDTH
    assert matchup["games"] % 4 == 0, "every seat gets the strong bot equally often"


def test_a_long_run_reports_the_games_so_far_as_it_goes() -> None:
    reports: list[dict[str, Any]] = []
    final = run_bot_tournament(
        games=8,
        budget_s=0.01,
        workers=1,
        matchups=[("normal", "easy"), ("easy", "normal")],
        progress=reports.append,
    )
    # Every 8 games, the matchups taking turns: 4 of each after 8, all 16 at the end.
    assert [[m["games"] for m in r["matchups"]] for r in reports] == [[4, 4], [8, 8]]
    assert reports[-1] == final


def test_the_games_needed_for_a_five_point_interval_follow_the_win_rate() -> None:
    # A coin-flip rate needs the most games (about 1.96^2 / (4 x 0.05^2) = 384), a lopsided
    # one fewer; games already played are never taken back.
    assert 380 <= games_needed(50, 100) <= 388
    assert games_needed(90, 100) < games_needed(60, 100) < games_needed(50, 100)
    assert games_needed(200, 400) == 400
    low, high = wilson_interval(0.5 * games_needed(50, 100), games_needed(50, 100))
    assert (high - low) / 2 <= HALF_WIDTH


def test_the_seconds_per_decision_are_the_median_decision() -> None:
    games = [
        GameResult(0, (30, 10, 10, 10), (0,), (0.001, 0.001, 0.5), (0.002, 0.002, 0.9)),
        GameResult(1, (10, 30, 10, 10), (1,), (0.002, 0.003), (0.004, 0.005)),
    ]
    line = summarize("expert", "hard", games)
    assert line["seconds_per_decision"] == 0.002
    assert line["mean_seconds_per_decision"] == round(0.507 / 5, 6)
    assert line["wall_seconds_per_decision"] == 0.004
    assert line["win_rate"] == 1.0


def test_the_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
