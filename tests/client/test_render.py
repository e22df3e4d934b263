"""The screen is a pure function of (view, ruleset, events, prompt): checked on whole recorded
games, frame by frame, at the smallest terminal and a roomy one, and at 80x24 with the names a
newcomer's table has: what must be seen is there whole, never cut to `…`."""

from __future__ import annotations

import copy
import re

import pytest
from rich.text import Text

from services.api.verrater.v1 import cards_pb2, events_pb2, view_pb2
from services.client import stakes, words
from services.client.chronicle import Chronicle
from services.client.conflict import conflict_lines, strength_parts
from services.client.render import (
    Prompt,
    Scene,
    menu_grid,
    menu_label,
    render_frame,
    to_text,
)
from services.client.summaries import render_conflict, render_end, render_final

from .recorded import NAMES, RecordedGame, record_game

SIZES = [(80, 24), (120, 40)]
CHOICE = "Your choice: "
#: A newcomer's first table: the player and three bots, named as the lobby names them.
NEWCOMERS = ("Newcomer", "Bot 2 (normal)", "Bot 3 (normal)", "Bot 4 (normal)")
#: A player row of the players table: the seat's mark, the name (and tags), house, VP, hand.
PLAYER_ROW = re.compile(r"^[▶ ]{0,2}P(\d) +(.+?) +(Eagle|Rose) +(\d+) +(\d+) ")


@pytest.fixture(scope="module", params=[1, 2, 3])
def game(request: pytest.FixtureRequest) -> RecordedGame:
    return record_game(request.param)


@pytest.fixture(scope="module", params=[(1, 4), (2, 4), (3, 3)], ids=["4p", "4p", "3p"])
def newcomers_game(request: pytest.FixtureRequest) -> RecordedGame:
    seed, players = request.param
    return record_game(seed, players=players, names=NEWCOMERS[:players])


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


def scene(game: RecordedGame, view: view_pb2.PlayerView, chronicle: Chronicle) -> Scene:
    """The scene the session draws: a question with its menu when the view asks one."""
    supply = view.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY
    prompt = Prompt(label=CHOICE, menu=not supply) if view.legal else Prompt(idle="Waiting: others")
    return Scene(view, game.ruleset, chronicle, prompt=prompt, clock="1:45 left")


def frame_lines(scene: Scene, width: int, height: int) -> list[str]:
    text = to_text(render_frame(scene, width, height), width=width, height=height)
    return text.removesuffix("\n").split("\n")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_frame_fills_the_terminal_exactly_with_the_status_line_first(
    game: RecordedGame, width: int, height: int
) -> None:
    for view, chronicle in screens(game):
        lines = frame_lines(scene(game, view, chronicle), width, height)
        assert len(lines) == height
        assert all(len(line) <= width for line in lines)
        status = lines[0].removesuffix("1:45 left").rstrip()
        assert status in words.status_lines(view, chronicle.names), lines[0]
        assert lines[0].rstrip().endswith("1:45 left")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_frame_shows_the_ring_the_players_the_hand_and_the_prompt(
    game: RecordedGame, width: int, height: int
) -> None:
    for view, chronicle in screens(game):
        lines = frame_lines(scene(game, view, chronicle), width, height)
        text = "\n".join(lines)
        for position in range(12):
            assert f"#{position} " in text
        for name in NAMES:
            assert name in text
        assert "Your hand:" in text
        assert lines[-1].startswith(CHOICE if view.legal else "Waiting: others")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_option_of_a_menu_is_on_the_screen(
    game: RecordedGame, width: int, height: int
) -> None:
    for view, chronicle in screens(game):
        if not view.legal or view.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY:
            continue
        text = to_text(render_frame(scene(game, view, chronicle), width, height), width, height)
        for number, command in enumerate(view.legal, start=1):
            assert f"{number} {menu_label(command, view, width)}" in text


def test_the_board_shows_each_landscapes_conflict_value_and_vp_scale(game: RecordedGame) -> None:
    view, chronicle = screens(game)[0]
    text = "\n".join(frame_lines(scene(game, view, chronicle), 80, 24))
    for landscape in view.ring:
        spec = stakes.spec_of(game.ruleset, landscape.type)
        assert spec is not None
        cp = stakes.cp_text(game.ruleset, spec.type)
        assert f"{words.house(landscape.house)} cp {cp}" in text
        scale = "/".join(f"{cell.points}{'*' if cell.provisional else ''}" for cell in spec.vp)
        assert scale in text
    roomy = "\n".join(frame_lines(scene(game, view, chronicle), 120, 40))
    assert "vp " + stakes.scale_text(game.ruleset, view.ring[0].type) in roomy


def test_the_supply_screen_shows_the_totals_so_far_and_what_winning_is_worth(
    game: RecordedGame,
) -> None:
    asked = [
        (view, chronicle)
        for view, chronicle in screens(game)
        if view.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY and view.legal
    ]
    assert asked
    for view, chronicle in asked:
        frame = to_text(render_frame(scene(game, view, chronicle), 120, 40), 120, 40)
        text = " ".join(frame.split())
        totals = stakes.running_totals(view, game.ruleset)
        assert f"So far: {stakes.totals_text(view, totals, chronicle.names)}" in text
        for stake in stakes.conflict_stakes(view, game.ruleset):
            said = stakes.stake_text(view, stake, chronicle.names)
            assert said.split(":")[0] in text
        assert "the traitor's switch is unknown until the reveal" in text


def test_the_conflict_summary_explains_both_strengths_exactly(game: RecordedGame) -> None:
    summaries = 0
    for view, chronicle in screens(game):
        if not view.HasField("last_conflict"):
            continue
        summary = view.last_conflict
        eagle = strength_parts(view, chronicle.names, cards_pb2.HOUSE_EAGLE)
        rose = strength_parts(view, chronicle.names, cards_pb2.HOUSE_ROSE)
        assert sum(value for _, value in eagle) == summary.eagle_strength
        assert sum(value for _, value in rose) == summary.rose_strength
        text = to_text(render_conflict(view, chronicle) or "", width=200)
        assert f"Conflict of round {summary.round}" in text
        assert f"Eagle {summary.eagle_strength} = " in text
        assert f"Rose {summary.rose_strength} = " in text
        summaries += 1
    assert summaries > 0


def test_this_rounds_conflict_stays_on_the_smallest_screen(game: RecordedGame) -> None:
    for view, chronicle in screens(game):
        if view.HasField("last_conflict") and view.last_conflict.round == view.round:
            text = to_text(render_frame(scene(game, view, chronicle), 80, 24), 80, 24)
            assert f"Conflict of round {view.round}: " in text


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
        text = " ".join(to_text(render_conflict(view, chronicle) or "", width=400).split())
        if summary.HasField("traitor"):
            assert f"{NAMES[summary.traitor]} betrayed" in text
            points = text[text.index("Points: ") :]
            traitor = points[points.index(NAMES[summary.traitor]) :].split(",")[0]
            assert "+1 (traitor)" in traitor
        if summary.HasField("flipped"):
            assert "flipped to" in text


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
    text = to_text(render_frame(Scene(view, game.ruleset, chronicle), 120, 40), 120, 40)
    assert "Spectator" in text
    assert "Your hand" not in text


def test_notes_above_the_prompt_never_push_the_frame_past_the_terminal(
    game: RecordedGame,
) -> None:
    notes = tuple(Text(f"✗ a long refusal that wraps {'x' * 90} {n}") for n in range(3))
    for view, chronicle in screens(game)[::7]:
        busy = Scene(view, game.ruleset, chronicle, prompt=Prompt(label=CHOICE, notes=notes))
        lines = frame_lines(busy, 80, 24)
        assert len(lines) == 24
        assert lines[-1].startswith(CHOICE)


#: How the board's legend starts at every width.
LEGEND = ("Landscapes · cp conflict value", "cp conflict value")
CHAT = tuple(Text(f"Player {n}: message number {n} " + "x" * 200) for n in range(6))


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40)])
def test_the_table_chat_never_pushes_the_game_off_the_screen(
    newcomers_game: RecordedGame, width: int, height: int
) -> None:
    """With chat, every frame still shows what it must, whole, every option of a menu and this
    round's conflict when it showed it in full: chat takes only lines the events can spare, a
    line each (a long message ends in an ellipsis), or, when they spare none (a long menu at
    80x24), the newest message takes the board legend's line: a frame that had the legend
    always shows the newest message."""
    chatted = 0
    for view, chronicle in screens(newcomers_game):
        quiet = scene(newcomers_game, view, chronicle)
        busy = Scene(
            view, newcomers_game.ruleset, chronicle, prompt=quiet.prompt, clock=quiet.clock,
            chat=CHAT,
        )  # fmt: skip
        before = frame_lines(quiet, width, height)
        lines = frame_lines(busy, width, height)
        assert len(lines) == height and all(len(line) <= width for line in lines)
        _shows_whole([line for line in lines if not line.startswith("Player ")], view, chronicle)
        for number, command in enumerate(view.legal, start=1):
            if view.turn.decision != view_pb2.DECISION_KIND_PLAY_SUPPLY:
                assert f"{number} {menu_label(command, view, width)}" in "\n".join(lines)
        if view.HasField("last_conflict"):
            full = [" ".join(line.plain.split()) for line in conflict_lines(view, chronicle)]
            if all(any(part in " ".join(b.split()) for b in before) for part in full):
                assert all(any(part in " ".join(b.split()) for b in lines) for part in full)
        shown = [line for line in lines if line.startswith("Player ")]
        if any(line.startswith(LEGEND) for line in before):
            assert shown, "\n".join(lines)
        if shown:
            chatted += 1
            assert shown[-1].startswith("Player 5: message number 5")  # the newest, last
            assert shown[-1].rstrip().endswith("…")
            assert len(shown) <= (2 if height == 24 else 4)
    assert chatted  # there were frames with room for it


def test_a_terminal_below_80x24_is_asked_to_grow() -> None:
    game = record_game(1)
    view = game.updates[-1].view
    chronicle = Chronicle.of(update.event for update in game.updates)
    lines = frame_lines(Scene(view, game.ruleset, chronicle), 60, 20)
    assert len(lines) == 20
    assert "make it at least 80x24" in "\n".join(lines)


def _shows_whole(lines: list[str], view: view_pb2.PlayerView, chronicle: Chronicle) -> None:
    """What a player must see on every screen, whole: the round and phase, whose turn, the
    clock, every player's VP (yours among them) under the table's header, and your hand."""
    text = "\n".join(lines)
    assert "…" not in text, text
    status = lines[0]
    assert status.rstrip().endswith("1:45 left"), status
    if view.phase != events_pb2.PHASE_GAME_OVER:
        when = f"Round {view.round} of {view.rounds}" if view.round else "Before round 1"
        assert status.startswith(f"{when} · {words.PHASES[view.phase]} · "), status
        for seat in view.turn.seats:
            if seat == view.seat:
                assert "your turn" in status, status
            else:
                assert chronicle.name(seat) in status or words.mark(seat) in status, status
    assert any(re.match(r"^ +Seat +Player +House +VP +Hand ", line) for line in lines), text
    rows = {int(row.group(1)) - 1: row for line in lines if (row := PLAYER_ROW.match(line))}
    assert sorted(rows) == list(range(len(view.seats))), text
    for seat, row in rows.items():
        assert row.group(2).startswith(chronicle.name(seat)), row.group(0)
        assert int(row.group(4)) == view.seats[seat].vp, row.group(0)
        assert (seat == view.seat) == ("(you)" in row.group(2)), row.group(0)
    hand = " ".join(str(card) for card in sorted(view.hand.cards)) or "no cards"
    assert any(line.startswith(f"Your hand: {hand}") for line in lines), text


@pytest.mark.parametrize(("width", "height"), [(80, 24), (100, 36), (120, 40)])
def test_every_screen_from_80x24_up_shows_your_vp_every_vp_the_turn_the_clock_and_hand_whole(
    newcomers_game: RecordedGame, width: int, height: int
) -> None:
    for view, chronicle in screens(newcomers_game):
        lines = frame_lines(scene(newcomers_game, view, chronicle), width, height)
        _shows_whole(lines, view, chronicle)
        if view.HasField("last_conflict"):  # in full, or in a line that names the key
            text = " ".join(" ".join(lines).split())
            whole = all(
                " ".join(line.plain.split()) in text for line in conflict_lines(view, chronicle)
            )
            assert whole or f"Conflict of round {view.last_conflict.round}: " in text
            assert whole or "Tab: in full" in text, text


def test_the_conflict_key_shows_the_last_conflict_in_full_at_80x24(
    newcomers_game: RecordedGame,
) -> None:
    shown = 0
    for view, chronicle in screens(newcomers_game):
        if not view.HasField("last_conflict"):
            continue
        asked = scene(newcomers_game, view, chronicle)
        lines = frame_lines(
            Scene(
                view,
                newcomers_game.ruleset,
                chronicle,
                prompt=asked.prompt,
                clock=asked.clock,
                conflict_shown=True,
            ),
            80,
            24,
        )
        assert len(lines) == 24
        _shows_whole(lines, view, chronicle)
        text = " ".join(" ".join(lines).split())
        assert "Tab: back to the board" in text
        for line in conflict_lines(view, chronicle):
            assert " ".join(line.plain.split()) in text, (line.plain, text)
        shown += 1
    assert shown > 10


def test_a_menu_too_long_for_its_rows_still_shows_the_option_a_hint_suggested() -> None:
    game = record_game(4, names=NEWCOMERS)
    chronicle = Chronicle()
    for update in game.updates:
        chronicle.apply(update.event)
        view = update.view
        if update.HasField("view") and len(view.legal) > 12:
            break
    else:
        raise AssertionError("no decision with more than 12 options")
    last = len(view.legal) - 1
    said = f"{last + 1} {menu_label(view.legal[last], view, 80)}"
    grid, hidden = menu_grid(view, 80, 2, suggested=last)
    text = to_text(grid, 80)
    assert hidden > 0 and said in text, text
    assert f"+{hidden} more (" in text  # it says it left options out, and how to ask for them
    assert said not in to_text(menu_grid(view, 80, 2)[0], 80)


def test_the_end_screen_fits_the_terminal_it_is_left_on() -> None:
    game = record_game(1, names=NEWCOMERS)
    chronicle = Chronicle.of(update.event for update in game.updates)
    view = game.updates[-1].view
    for width, height in SIZES:
        end = render_end(
            view,
            game.ruleset,
            chronicle,
            "127.0.0.1:50051",
            (width, height),
            run=".venv/bin/verrater",
        )
        lines = to_text(end, width=width, height=height).removesuffix("\n").split("\n")
        assert len(lines) < height, "the shell's prompt after it scrolls nothing away"
        assert lines[0].startswith("Game over after round"), lines[0]
        assert all(len(line) <= width for line in lines)
        text = "\n".join(lines)
        assert "Final scores" in text
        for command in ("replay", "audit"):
            said = f"  .venv/bin/verrater {command} {view.game_id} --server 127.0.0.1:50051"
            assert said in lines, text
    roomy = to_text(
        render_end(view, game.ruleset, chronicle, "127.0.0.1:50051", (120, 60)), width=120
    )
    assert "#11 " in roomy and "Conflict of round" in roomy  # the board and the conflict too
