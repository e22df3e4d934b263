"""`run_bot_tournament`: the report's shape, and the statistics behind it."""

from __future__ import annotations

import pytest

from services.bench.bots import run_bot_tournament, wilson_interval


def test_the_tournament_reports_each_matchup_in_the_agreed_shape() -> None:
    report = run_bot_tournament(games=2, budget_s=0.01, workers=2)
    assert list(report) == ["matchups"]
    assert [(m["strong"], m["weak"]) for m in report["matchups"]] == [
        ("normal", "easy"),
        ("hard", "normal"),
    ]
    for matchup in report["matchups"]:
        assert set(matchup) == {
            "strong",
            "weak",
            "games",
            "win_rate",
            "ci95",
            "seconds_per_decision",
            "mean_vp",
        }
        assert matchup["games"] == 2
        low, high = matchup["ci95"]
        assert 0.0 <= low <= matchup["win_rate"] <= high <= 1.0
        assert matchup["seconds_per_decision"] > 0.0
        assert set(matchup["mean_vp"]) == {"strong", "weak"}


def test_the_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
