"""The `expert` bot: its best moves tried on sampled rounds, judged by a network from self-play.

Its knowledge is the seat's view (tests/ai/test_ismcts_hidden_information.py runs it on games
the seat cannot tell apart); here: it plays its samples only to the start of the next round, it
decides the same for the same view and seed, its weights ship in the package and say how they
were made, what they learned makes sense in the game, and the training that makes them is
reproducible.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from services.ai import ExpertPolicy, policy_for_level
from services.ai.training import TrainingRun, train_expert
from services.ai.value import FEATURES, ValueNet, seat_features, shipped_value
from services.engine import (
    PLAYER_COUNTS,
    CreateGame,
    GameState,
    Phase,
    PlaySupply,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    to_act,
    view,
)


def decision(seed: int, phase: Phase, round_: int) -> GameState:
    """The first decision of `phase` in round `round_` of a game of random moves."""
    rng = random.Random(seed)
    _, state = execute(initial_state(), CreateGame(Ruleset.standard(4), rng.randbytes(32)))
    while not (state.round == round_ and state.phase is phase):
        assert state.phase is not Phase.GAME_OVER, "this seed's game must last that long"
        state = execute(state, rng.choice(legal_commands(state, to_act(state)[0])))[1]
    return state


class RecordingValue:
    """A value that remembers where the samples stopped, and prefers the seat's fuller hand."""

    def __init__(self) -> None:
        self.judged: list[tuple[int, Phase, int]] = []

    def seat_rewards(self, states: Sequence[GameState], seat: int) -> list[float]:
        self.judged.extend((state.round, state.phase, seat) for state in states)
        return [len(state.hands[seat]) / 10 for state in states]


def test_each_candidate_is_played_on_each_sample_to_the_start_of_the_next_round() -> None:
    state = decision(3, Phase.SUPPLY, 2)
    seat = to_act(state)[0]
    seen = view(state, seat)
    assert len(seen.legal) > 3
    value = RecordingValue()
    choice = ExpertPolicy(value, samples=5, candidates=3).choose(
        seen, state.rules, random.Random(0)
    )
    assert value.judged == [(3, Phase.CONFLICT, seat)] * 15
    # Judged by this value, keeping every card is best: the seat plays none.
    assert choice.command == PlaySupply(seat, ())
    assert "best of 3 moves, found on 5 sampled rounds" in choice.reason


def test_with_stages_the_worse_half_of_the_moves_is_dropped_after_each_batch_of_samples() -> None:
    state = decision(3, Phase.SUPPLY, 2)
    seat = to_act(state)[0]
    seen = view(state, seat)
    value = RecordingValue()
    policy = ExpertPolicy(value, samples=9, candidates=5, stages=3)
    choice = policy.choose(seen, state.rules, random.Random(0))
    # 5 moves on 3 samples, the best 3 of them on 3 more, the best 2 on the last 3.
    assert value.judged == [(3, Phase.CONFLICT, seat)] * (15 + 9 + 6)
    assert choice.command == PlaySupply(seat, ())
    assert "best of 5 moves, found on 9 sampled rounds" in choice.reason
    # Down to one move, no sample is played for it alone.
    value.judged.clear()
    ExpertPolicy(value, samples=9, candidates=2, stages=3).choose(
        seen, state.rules, random.Random(0)
    )
    assert len(value.judged) == 2 * 3
    with pytest.raises(ValueError, match="stages must be 1 to 9"):
        ExpertPolicy(value, samples=9, stages=10)


def test_in_the_last_round_the_samples_end_with_the_game() -> None:
    state = decision(4, Phase.DRAFT, 8)
    seat = to_act(state)[0]
    value = RecordingValue()
    ExpertPolicy(value, samples=4).choose(view(state, seat), state.rules, random.Random(0))
    assert value.judged == [], "finished games are scored by their result, not judged"


def test_the_same_view_and_seed_give_the_same_decision_and_reason() -> None:
    state = decision(5, Phase.DRAFT, 3)
    seen = view(state, to_act(state)[0])
    assert len(seen.legal) > 1
    first = policy_for_level("expert").choose(seen, state.rules, random.Random(7))
    again = policy_for_level("expert").choose(seen, state.rules, random.Random(7))
    assert (first.command, first.reason) == (again.command, again.reason)
    assert "sampled rounds" in first.reason


def test_the_weights_ship_in_the_package_for_every_player_count_with_their_recipe() -> None:
    net = shipped_value()
    assert set(net.nets) == set(PLAYER_COUNTS)
    assert net.meta["command"].startswith("verrater train expert")
    for players in PLAYER_COUNTS:
        assert net.nets[players][0].weights.shape[0] == FEATURES
        # The network learned something: it beats a constant guess on held-out games.
        figures = net.meta["figures"]["players"][str(players)]
        assert figures["held_out_loss"] < figures["held_out_loss_constant"]
    # The four-player network was tuned on the expert's own games, round after round: each round
    # judges the games it was tuned on better than before it.
    rounds = net.meta["figures"]["expert_rounds"]
    assert [tuned["round"] for tuned in rounds] == list(
        range(1, net.meta["run"]["expert_rounds"] + 1)
    )
    assert len(rounds) >= 2
    for tuned in rounds:
        assert tuned["games"] == net.meta["run"]["expert_games"] > 0
        assert tuned["held_out_loss"] < tuned["held_out_loss_before"]
        assert tuned["held_out_loss"] < tuned["held_out_loss_constant"]
    assert net.meta["figures"]["expert"] == rounds[-1]


def test_the_network_judges_states_together_as_it_judges_each_alone() -> None:
    states = [decision(seed, Phase.CONFLICT, 4) for seed in (6, 7, 8)]
    together = shipped_value().seat_rewards(states, 2)
    alone = [shipped_value().reward(state, 2) for state in states]
    assert together == pytest.approx(alone, abs=1e-12)
    assert len(set(together)) == 3


def test_the_network_rates_a_seat_higher_the_more_points_it_leads_by() -> None:
    state = decision(6, Phase.CONFLICT, 5)
    ahead, behind = state.copy(), state.copy()
    ahead.vp = (30, 10, 10, 10)
    behind.vp = (0, 20, 20, 20)
    assert len(seat_features(state)[0]) == FEATURES
    assert shipped_value().rewards(ahead)[0] > 0.5 > shipped_value().rewards(behind)[0]


def test_training_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    run = TrainingRun(games=8, seed=11, epochs=1, workers=1, expert_games=2, expert_rounds=1)
    train_expert(run, tmp_path / "a.json", log=lambda _: None)
    train_expert(run, tmp_path / "b.json", log=lambda _: None)
    other = TrainingRun(games=8, seed=12, epochs=1, workers=1, expert_games=2, expert_rounds=1)
    train_expert(other, tmp_path / "c.json", log=lambda _: None)
    a, b, c = (json.loads((tmp_path / f"{name}.json").read_text()) for name in "abc")
    assert a["nets"] == b["nets"]
    assert a["nets"] != c["nets"]
    # What it wrote is what the expert loads.
    assert set(ValueNet.from_json(a).nets) == set(PLAYER_COUNTS)


def test_the_expert_stage_tunes_the_four_player_network_it_started_from(tmp_path: Path) -> None:
    first = TrainingRun(games=8, seed=11, epochs=1, workers=1, expert_games=0)
    train_expert(first, tmp_path / "heuristic.json", log=lambda _: None)
    both = TrainingRun(
        games=8, seed=11, epochs=1, workers=2, expert_games=4, expert_rounds=1, tune_epochs=2
    )
    figures = train_expert(both, tmp_path / "tuned.json", log=lambda _: None)
    heuristic, tuned = (
        json.loads((tmp_path / f"{name}.json").read_text()) for name in ("heuristic", "tuned")
    )
    assert "expert" not in heuristic["meta"]["figures"]
    # Three players keep the first stage's network; four are tuned, from its weights as written.
    assert tuned["nets"]["3"] == heuristic["nets"]["3"]
    assert tuned["nets"]["4"] != heuristic["nets"]["4"]
    expert = figures["expert"]
    assert expert["games"] == 4
    assert expert["positions"] == 4 * 4 * Ruleset.standard(4).rounds
    assert expert["held_out_loss_before"] != expert["held_out_loss"]
    # Two processes play the same games as one.
    again = TrainingRun(
        games=8, seed=11, epochs=1, workers=1, expert_games=4, expert_rounds=1, tune_epochs=2
    )
    train_expert(again, tmp_path / "again.json", log=lambda _: None)
    assert json.loads((tmp_path / "again.json").read_text())["nets"] == tuned["nets"]


def test_a_run_resumed_for_more_rounds_writes_what_a_whole_run_writes(tmp_path: Path) -> None:
    recipe = {"games": 8, "seed": 5, "epochs": 1, "expert_games": 2, "tune_epochs": 1}
    one = TrainingRun(**recipe, workers=1, expert_rounds=1)
    train_expert(one, tmp_path / "one.json", log=lambda _: None)
    two = TrainingRun(**recipe, workers=2, expert_rounds=2)
    whole = train_expert(two, tmp_path / "whole.json", log=lambda _: None)
    earlier = json.loads((tmp_path / "one.json").read_text())
    resumed = train_expert(two, tmp_path / "resumed.json", log=lambda _: None, resume=earlier)
    a, b = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("whole", "resumed"))
    assert a["nets"] == b["nets"]
    assert a["meta"]["run"] == b["meta"]["run"]
    # The second round tuned from the first's network, on games of its own.
    assert a["nets"]["4"] != earlier["nets"]["4"]
    assert a["nets"]["3"] == earlier["nets"]["3"]
    first, second = whole["expert_rounds"]
    timeless = ("self_play_s", "fit_s")
    assert {k: v for k, v in first.items() if k not in timeless} == {
        k: v for k, v in earlier["meta"]["figures"]["expert"].items() if k not in timeless
    }
    assert (first["round"], second["round"]) == (1, 2)
    assert second["held_out_loss_before"] != first["held_out_loss"]
    assert [r["held_out_loss"] for r in resumed["expert_rounds"]] == [
        r["held_out_loss"] for r in whole["expert_rounds"]
    ]


def test_a_resumed_run_refuses_another_recipe_or_no_more_rounds(tmp_path: Path) -> None:
    run = TrainingRun(games=8, seed=5, epochs=1, workers=1, expert_games=2, expert_rounds=1)
    train_expert(run, tmp_path / "one.json", log=lambda _: None)
    earlier = json.loads((tmp_path / "one.json").read_text())
    other = TrainingRun(games=8, seed=6, epochs=1, workers=1, expert_games=2, expert_rounds=2)
    with pytest.raises(ValueError, match=r"another recipe \(seed differ\)"):
        train_expert(other, tmp_path / "x.json", log=lambda _: None, resume=earlier)
    with pytest.raises(ValueError, match="has 1 rounds"):
        train_expert(run, tmp_path / "x.json", log=lambda _: None, resume=earlier)
    assert not (tmp_path / "x.json").exists()


def test_the_command_resumes_a_file_and_says_why_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from services.cli import main as verrater

    small = ["--games", "8", "--seed", "5", "--epochs", "1", "--workers", "1"]
    one = tmp_path / "one.json"
    assert verrater(["train", "expert", *small, "--expert-games", "0", "--out", str(one)]) == 0
    assert json.loads(capsys.readouterr().out)["players"]["4"]["games"] == 8
    missing = tmp_path / "missing.json"
    out = tmp_path / "out.json"
    assert verrater(["train", "expert", *small, "--resume", str(missing), "--out", str(out)]) == 2
    assert f"cannot read {missing}" in capsys.readouterr().err
    other = ["--games", "8", "--seed", "6", "--epochs", "1", "--workers", "1"]
    assert verrater(["train", "expert", *other, "--resume", str(one), "--out", str(out)]) == 2
    assert "another recipe" in capsys.readouterr().err
    assert not out.exists()
