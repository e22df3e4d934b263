"""The screen is a pure function of (view, ruleset, events): checked on whole recorded games."""

from __future__ import annotations

import copy

import pytest

from services.api.verrater.v1 import cards_pb2, events_pb2, view_pb2
from services.client import words
from services.client.chronicle import Chronicle
from services.client.render import (
    render_conflict,
    render_final,
    render_options,
    render_screen,
    strength_parts,
    to_text,
)

from .recorded import NAMES, RecordedGame, record_game


@pytest.fixture(scope="module", params=[1, 2, 3])
def game(request: pytest.FixtureRequest) -> RecordedGame:
    return record_game(request.param)


def screens(game: RecordedGame) -> list[tuple[view_pb2.PlayerView, Chronicle]]:
    """Every view at the end of a batch, with the chronicle of the events up to it."""
    chronicle = Chronicle()
    shown = []
    for update in game.updates:
        chronicle.apply(update.event)
        if update.HasField("view"):
            shown.append((update.view, copy.deepcopy(chronicle)))
    assert chronicle.ended is not None
    return shown


def test_every_screen_of_a_game_shows_ring_players_hand_and_status(game: RecordedGame) -> None:
    for view, chronicle in screens(game):
        text = to_text(render_screen(view, game.ruleset, chronicle), width=160)
        assert words.status_line(view, chronicle.names) in text
        for position in range(12):
            assert f"#{position}" in text
        for name in NAMES:
            assert name in text
        assert "Your hand:" in text
        if view.HasField("conflict") and view.phase != events_pb2.PHASE_GAME_OVER:
            assert "conflict marked:" in text


def test_the_ring_shows_each_landscapes_conflict_value_from_the_ruleset(
    game: RecordedGame,
) -> None:
    view, chronicle = screens(game)[0]
    cp = {spec.type: spec.cp for spec in game.ruleset.card_table.landscapes}
    text = to_text(render_screen(view, game.ruleset, chronicle), width=160)
    for landscape in view.ring:
        assert f"{words.LANDSCAPES[landscape.type].capitalize()} {cp[landscape.type]}" in text


def test_the_conflict_summary_explains_both_strengths_exactly(game: RecordedGame) -> None:
    summaries = 0
    for view, chronicle in screens(game):
        if not view.HasField("last_conflict"):
            continue
        summary = view.last_conflict
        eagle = strength_parts(view, game.ruleset, chronicle.names, cards_pb2.HOUSE_EAGLE)
        rose = strength_parts(view, game.ruleset, chronicle.names, cards_pb2.HOUSE_ROSE)
        assert sum(value for _, value in eagle) == summary.eagle_strength
        assert sum(value for _, value in rose) == summary.rose_strength
        text = to_text(render_conflict(view, game.ruleset, chronicle) or "", width=160)
        assert f"Conflict of round {summary.round}" in text
        assert f"Eagle {summary.eagle_strength} = " in text
        assert f"Rose {summary.rose_strength} = " in text
        summaries += 1
    assert summaries > 0


def test_the_conflict_summary_shows_the_points_each_player_got(game: RecordedGame) -> None:
    for view, chronicle in screens(game):
        if not view.HasField("last_conflict"):
            continue
        summary = view.last_conflict
        for seat, conquest in enumerate(summary.conquest_points):
            gained = sum(
                points
                for points, reason in chronicle.conflict_points.get(seat, [])
                if reason == events_pb2.SCORE_REASON_CONQUEST
            )
            assert gained == conquest
        text = to_text(render_conflict(view, game.ruleset, chronicle) or "", width=200)
        if summary.HasField("traitor"):
            assert f"Traitor: {NAMES[summary.traitor]} betrayed" in text
            points = next(line for line in text.splitlines() if "Points:" in line)
            traitor = points[points.index(NAMES[summary.traitor]) :].split(" · ")[0]
            assert "+1 (traitor)" in traitor
        if summary.HasField("flipped"):
            assert "flipped to" in text
        else:
            assert "No landscape changed hands" in text


def test_final_scores_show_the_trading_post_bonus_on_its_own(game: RecordedGame) -> None:
    view, chronicle = screens(game)[-1]
    assert view.phase == events_pb2.PHASE_GAME_OVER
    ended = chronicle.ended
    assert ended is not None
    text = to_text(render_final(chronicle), width=160)
    assert "Final scores" in text
    for seat, total in enumerate(ended.final_vp):
        bonus = chronicle.trading_post_bonus.get(seat, 0)
        row = next(line for line in text.splitlines() if line.strip().startswith(NAMES[seat]))
        assert row.split()[1:4] == [str(total - bonus), f"+{bonus}", str(total)]
        assert view.seats[seat].vp == total
    assert ("wins" in text) or ("share the win" in text)


def test_a_spectator_sees_no_hand() -> None:
    game = record_game(7, seat=None)
    chronicle = Chronicle.of(update.event for update in game.updates)
    view = game.updates[-1].view
    text = to_text(render_screen(view, game.ruleset, chronicle), width=160)
    assert "spectator" in text
    assert "Your hand" not in text


def test_options_are_numbered_in_words(game: RecordedGame) -> None:
    for view, _ in screens(game):
        if not view.legal:
            continue
        text = to_text(render_options(view), width=160)
        for number, command in enumerate(view.legal, start=1):
            assert f"{number}. {words.describe(command, view)}" in text


def test_narrow_terminals_get_the_players_above_the_latest_happenings(
    game: RecordedGame,
) -> None:
    view, chronicle = screens(game)[5]
    narrow = to_text(render_screen(view, game.ruleset, chronicle), width=100)
    assert max(len(line) for line in narrow.splitlines()) <= 100
    players = narrow.index("Players")
    assert narrow.index("Latest") > players
