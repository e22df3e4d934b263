"""`verrater train expert`: the `expert` bot's value network, learned from self-play.

1. **Self-play.** Heuristic bots play `games` games per player count (with a small share of
   random moves, so that the positions reached are not only the heuristic's favourites). At the
   start of every round each seat's facts are recorded (`value.seat_features`); when the game
   ends each record is labelled with that seat's reward (`ismcts.final_rewards`: win share and
   VP margin). These are the positions, and the continuation, the search's leaves meet: the
   `expert` search plays its samples by the heuristic to the start of the next round.
2. **Fit.** A small multilayer perceptron per player count, by Adam on the cross-entropy
   between its output and the reward, on all but a held-out twentieth of the games (whose loss
   is reported).
3. **Expert self-play.** The `expert` search, judging by the network of step 2 exactly as
   written to the file (rounded, as the bot loads it), plays `expert_games` four-player games
   against itself (a cheaper search than the shipped level's, and the same share of random
   moves), recorded and labelled as in step 1.
4. **Tuning.** The four-player network of step 2 is fitted further on those positions, from its
   own weights and at a smaller step: the heuristic's games taught it what positions are worth
   when the heuristic plays them, and the expert's games correct that towards what they are worth
   when the expert plays them, which is what its search asks. A tenth of the games is held out;
   the loss of the network before and after tuning on them is reported. The three-player network
   is step 2's (the benchmark that measures the levels plays four).
5. **Again.** Steps 3 and 4 are repeated `expert_rounds` times in all, each round's games
   judged by the network the round before tuned (as written), on games of its own, and tuned
   from it: the expert the games show gets stronger with its judgement, so the positions and
   outcomes the next round learns from are a stronger player's. A run can be resumed from the
   file an earlier run of the same recipe wrote with fewer rounds (`resume`): only the missing
   rounds are played, and the weights are the ones a whole run writes.

Everything random comes from `seed` (game seeds, the random moves, the searches' samples, the
initial weights and the order of the minibatches), so a run is reproducible; the games are
spread over `workers` processes, which does not change them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from services.engine import (
    PLAYER_COUNTS,
    CreateGame,
    GameState,
    Phase,
    PlayerCommand,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    to_act,
    view,
)

from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy
from .ismcts import final_rewards
from .knowledge import Knowledge
from .value import FEATURES, Layer, Matrix, ValueNet, seat_features

#: The share of self-play moves chosen at random instead of by the heuristic.
EXPLORATION = 0.05


@dataclass(frozen=True, slots=True)
class TrainingRun:
    """What `train_expert` was asked to do (written into the weights file)."""

    games: int = 60_000
    seed: int = 0
    hidden: int = 32
    epochs: int = 6
    batch: int = 512
    learning_rate: float = 0.002
    workers: int = 2
    #: Steps 3 and 4: four-player games of the expert against itself (0: stop after step 2),
    #: the search it plays them with, and the tuning's epochs and step size.
    expert_games: int = 2_000
    #: Rounds of steps 3 and 4, each from the network the one before made.
    expert_rounds: int = 2
    expert_samples: int = 8
    expert_candidates: int = 5
    tune_epochs: int = 10
    tune_learning_rate: float = 0.0005


def self_play_game(players: int, seed: int, index: int) -> tuple[list[list[float]], list[float]]:
    """One heuristic self-play game's round-start facts, one row per seat and round, and their
    rewards."""
    digest = hashlib.sha256(f"verrater-train:{seed}:{players}:{index}".encode()).digest()
    policy = HeuristicPolicy()

    def decide(
        state: GameState, seat: int, legal: list[PlayerCommand], rng: random.Random
    ) -> PlayerCommand:
        # The seat's own knowledge of the true state: exactly what its view shows
        # (tests/ai/test_knowledge_matches_view.py), without building the view.
        return legal[policy.best_index(Knowledge.from_sampled_state(state, seat, legal))]

    return _record_game(players, digest, decide)


def expert_self_play_game(
    value: ValueNet, run: TrainingRun, players: int, index: int, stage: int = 1
) -> tuple[list[list[float]], list[float]]:
    """One game of the expert (judging by `value`) against itself in round `stage` of steps 3
    and 4, recorded as `self_play_game` records; each seat decides from its view."""
    rounds = "" if stage == 1 else f"round{stage}:"  # the first round's seeds are v2's
    label = f"verrater-train-expert:{run.seed}:{rounds}{players}:{index}"
    digest = hashlib.sha256(label.encode()).digest()
    policy = ExpertPolicy(value, samples=run.expert_samples, candidates=run.expert_candidates)
    ruleset = Ruleset.standard(players)

    def decide(
        state: GameState, seat: int, legal: list[PlayerCommand], rng: random.Random
    ) -> PlayerCommand:
        return policy.choose(view(state, seat), ruleset, rng).command

    return _record_game(players, digest, decide)


def _record_game(
    players: int,
    digest: bytes,
    decide: Callable[[GameState, int, list[PlayerCommand], random.Random], PlayerCommand],
) -> tuple[list[list[float]], list[float]]:
    """A game from `digest` played by `decide` (with a share of random moves): every seat's
    facts at every round's start, and the reward the game gave that seat."""
    rng = random.Random(digest)
    _, state = execute(initial_state(), CreateGame(Ruleset.standard(players), digest))
    rows: list[list[float]] = []
    seats: list[int] = []
    recorded = 0
    while state.phase is not Phase.GAME_OVER:
        if state.phase is Phase.CONFLICT and state.round > recorded:
            recorded = state.round
            rows.extend(seat_features(state))
            seats.extend(range(players))
        seat = to_act(state)[0]
        legal = legal_commands(state, seat)
        if len(legal) > 1 and rng.random() < EXPLORATION:
            command = rng.choice(legal)
        else:
            command = decide(state, seat, legal, rng)
        state = execute(state, command)[1]
    rewards = final_rewards(state)
    return rows, [rewards[seat] for seat in seats]


def _play(task: tuple[int, int, int]) -> tuple[list[list[float]], list[float]]:
    return self_play_game(*task)


#: A worker process's expert self-play setup (the value network and the run), set once by
#: `_expert_worker`, so that the network is not sent with every game.
_EXPERT: tuple[ValueNet, TrainingRun] | None = None


def _expert_worker(weights: dict[str, Any], run: TrainingRun) -> None:
    global _EXPERT  # noqa: PLW0603 - one network per worker process, read by every game
    _EXPERT = (ValueNet.from_json(weights), run)


def _play_expert(task: tuple[int, int, int]) -> tuple[list[list[float]], list[float]]:
    assert _EXPERT is not None, "_expert_worker sets up every process that plays"
    return expert_self_play_game(*_EXPERT, *task)


def self_play(players: int, games: int, seed: int, workers: int) -> tuple[Matrix, Matrix, Matrix]:
    """`games` heuristic games' facts and rewards, and each row's game index (for the held-out
    split)."""
    tasks = [(players, seed, index) for index in range(games)]
    if workers <= 1:
        results = [_play(task) for task in tasks]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_play, tasks, chunksize=64))
    return _stacked(results)


def expert_self_play(
    weights: dict[str, Any], run: TrainingRun, stage: int = 1, players: int = 4
) -> tuple[Matrix, Matrix, Matrix]:
    """`run.expert_games` games of the expert judging by `weights` (a weights file's JSON)
    against itself in round `stage`, as `self_play` returns them."""
    tasks = [(players, index, stage) for index in range(run.expert_games)]
    if run.workers <= 1:
        value = ValueNet.from_json(weights)
        results = [expert_self_play_game(value, run, *task) for task in tasks]
    else:
        with ProcessPoolExecutor(
            max_workers=run.workers, initializer=_expert_worker, initargs=(weights, run)
        ) as pool:
            results = list(pool.map(_play_expert, tasks, chunksize=8))
    return _stacked(results)


def _stacked(
    results: list[tuple[list[list[float]], list[float]]],
) -> tuple[Matrix, Matrix, Matrix]:
    x = np.asarray([row for rows, _ in results for row in rows], dtype=np.float64)
    y = np.asarray([label for _, labels in results for label in labels], dtype=np.float64)
    game = np.asarray([i for i, (_, labels) in enumerate(results) for _ in labels])
    return x, y, game


def _initial(rng: np.random.Generator, sizes: list[int]) -> list[Layer]:
    return [
        Layer(rng.normal(0.0, 1.0 / np.sqrt(fan_in), (fan_in, fan_out)), np.zeros(fan_out))
        for fan_in, fan_out in itertools.pairwise(sizes)
    ]


def _loss(layers: list[Layer], x: Matrix, y: Matrix) -> float:
    """Mean cross-entropy between the network's output and the rewards."""
    p = ValueNet({0: layers}, {}).predict(0, x).clip(1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit(
    x: Matrix,
    y: Matrix,
    run: TrainingRun,
    rng: np.random.Generator,
    start: list[Layer] | None = None,
) -> list[Layer]:
    """A tanh MLP (two hidden layers) fitted by Adam on minibatches; returns its layers. From
    random weights, `run.epochs` at `run.learning_rate`; or, tuning, from a copy of `start`'s,
    `run.tune_epochs` at `run.tune_learning_rate`."""
    if start is None:
        layers = _initial(rng, [FEATURES, run.hidden, run.hidden, 1])
        epochs, learning_rate = run.epochs, run.learning_rate
    else:
        layers = [Layer(layer.weights.copy(), layer.bias.copy()) for layer in start]
        epochs, learning_rate = run.tune_epochs, run.tune_learning_rate
    params = [p for layer in layers for p in (layer.weights, layer.bias)]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for begin in range(0, len(x), run.batch):
            batch = order[begin : begin + run.batch]
            grads = _gradients(layers, x[batch], y[batch])
            step += 1
            for i, grad in enumerate(grads):
                first[i] = beta1 * first[i] + (1 - beta1) * grad
                second[i] = beta2 * second[i] + (1 - beta2) * grad * grad
                m = first[i] / (1 - beta1**step)
                v = second[i] / (1 - beta2**step)
                params[i] -= learning_rate * m / (np.sqrt(v) + eps)  # in place
    return layers


def _gradients(layers: list[Layer], x: Matrix, y: Matrix) -> list[Matrix]:
    """Gradients of the mean cross-entropy, in the order weights, bias of each layer."""
    activations = [x]
    for layer in layers[:-1]:
        activations.append(np.tanh(activations[-1] @ layer.weights + layer.bias))
    out = layers[-1]
    z = activations[-1] @ out.weights + out.bias
    p = 1.0 / (1.0 + np.exp(-z))
    delta = (p - y[:, None]) / len(x)  # sigmoid with cross-entropy: the error itself
    grads: list[Matrix] = []
    for depth in range(len(layers) - 1, -1, -1):
        a = activations[depth]
        grads[:0] = [a.T @ delta, delta.sum(axis=0)]
        if depth > 0:
            delta = (delta @ layers[depth].weights.T) * (1.0 - a * a)
    return grads


def train_expert(
    run: TrainingRun,
    out: Path,
    log: Any = print,
    resume: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Steps 1 to 4 (the module's doc); writes the weights to `out`, returns figures.

    `resume` is the JSON of a file an earlier run of the same recipe (`run`, but for fewer
    rounds of steps 3 and 4) wrote: its networks are taken as they are and only the rounds it
    did not do are played, which gives the file a whole run would (the figures but time)."""
    started = time.perf_counter()
    if resume is not None:
        nets, figures, done = _resumed(resume, run)
    else:
        nets, players = _heuristic_stage(run, log)
        figures, done = {"players": players}, 0
    rounds = run.expert_rounds if run.expert_games else 0
    for stage in range(done + 1, rounds + 1):
        # The network as the expert will load it: rounded as the file has it.
        weights = ValueNet(nets, {}).to_json()
        written = ValueNet.from_json(weights)
        nets = dict(written.nets)
        nets[4], tuned = _tune(weights, written, run, stage)
        figures.setdefault("expert_rounds", []).append(tuned)
        figures["expert"] = tuned
        log(json.dumps({"expert": tuned}))
    figures["seconds"] = round(time.perf_counter() - started + figures.get("seconds", 0.0), 1)
    meta = {
        "command": f"verrater train expert --games {run.games} --expert-games "
        f"{run.expert_games} --expert-rounds {run.expert_rounds} --seed {run.seed}",
        "run": _recipe(run),
        "figures": figures,
    }
    out.write_text(json.dumps(ValueNet(nets, meta).to_json()) + "\n", encoding="utf-8")
    return figures


def _recipe(run: TrainingRun) -> dict[str, Any]:
    """What decides the weights a run makes (not its processes, which do not change them)."""
    return {
        "games": run.games,
        "seed": run.seed,
        "hidden": run.hidden,
        "epochs": run.epochs,
        "batch": run.batch,
        "learning_rate": run.learning_rate,
        "exploration": EXPLORATION,
        "expert_games": run.expert_games,
        "expert_rounds": run.expert_rounds,
        "expert_samples": run.expert_samples,
        "expert_candidates": run.expert_candidates,
        "tune_epochs": run.tune_epochs,
        "tune_learning_rate": run.tune_learning_rate,
    }


def _heuristic_stage(run: TrainingRun, log: Any) -> tuple[dict[int, list[Layer]], dict[str, Any]]:
    """Steps 1 and 2 for every player count: the networks, and their figures, by player
    count."""
    nets: dict[int, list[Layer]] = {}
    figures: dict[str, Any] = {}
    for players in PLAYER_COUNTS:
        games = run.games if players == 4 else run.games // 2
        clock = time.perf_counter()
        x, y, game = self_play(players, games, run.seed, run.workers)
        played = time.perf_counter() - clock
        held = game % 20 == 0
        rng = np.random.default_rng([run.seed, players])
        clock = time.perf_counter()
        layers = fit(x[~held], y[~held], run, rng)
        figures[str(players)] = {
            "games": games,
            "positions": len(x),
            "self_play_s": round(played, 1),
            "fit_s": round(time.perf_counter() - clock, 1),
            "held_out_loss": round(_loss(layers, x[held], y[held]), 5),
            "held_out_loss_constant": round(_loss(_constant(y[~held]), x[held], y[held]), 5),
        }
        log(json.dumps({"players": players, **figures[str(players)]}))
        nets[players] = layers
    return nets, figures


def read_weights(path: Path) -> dict[str, Any]:
    """A weights file's JSON (to resume from), or ValueError saying why it cannot be read."""
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    return data


def _resumed(
    data: dict[str, Any], run: TrainingRun
) -> tuple[dict[int, list[Layer]], dict[str, Any], int]:
    """An earlier run's networks, figures and rounds of steps 3 and 4 done; refused unless it
    followed `run`'s recipe (but for the rounds) and did fewer rounds than `run` asks."""
    earlier = ValueNet.from_json(data)
    recipe = dict(earlier.meta.get("run", {}))
    figures = dict(earlier.meta.get("figures", {}))
    # Files from before rounds were counted did one round of steps 3 and 4 if any.
    done = int(recipe.pop("expert_rounds", 1 if recipe.get("expert_games") else 0))
    if "expert" in figures and "expert_rounds" not in figures:
        figures["expert"] = {"players": 4, "round": 1, **figures["expert"]}
        figures["expert_rounds"] = [figures["expert"]]
    wanted = _recipe(run)
    rounds = wanted.pop("expert_rounds")
    if recipe != wanted:
        differs = sorted(k for k in wanted.keys() | recipe.keys() if recipe.get(k) != wanted.get(k))
        raise ValueError(f"the file was trained with another recipe ({', '.join(differs)} differ)")
    if done >= rounds:
        raise ValueError(f"the file has {done} rounds of expert self-play; ask for more")
    return dict(earlier.nets), figures, done


def _tune(
    weights: dict[str, Any], written: ValueNet, run: TrainingRun, stage: int = 1
) -> tuple[list[Layer], dict[str, Any]]:
    """Steps 3 and 4, round `stage`: the expert's games judged by `weights` (`written` is that
    file's network), and its four-player network tuned on them; returns the tuned layers and
    the figures."""
    clock = time.perf_counter()
    x, y, game = expert_self_play(weights, run, stage)
    played = time.perf_counter() - clock
    held = game % 10 == 0
    rng = np.random.default_rng([run.seed, 4, 2] if stage == 1 else [run.seed, 4, 2, stage])
    clock = time.perf_counter()
    tuned = fit(x[~held], y[~held], run, rng, start=written.nets[4])
    return tuned, {
        "players": 4,
        "round": stage,
        "games": run.expert_games,
        "positions": len(x),
        "self_play_s": round(played, 1),
        "fit_s": round(time.perf_counter() - clock, 1),
        "held_out_loss": round(_loss(tuned, x[held], y[held]), 5),
        "held_out_loss_before": round(_loss(written.nets[4], x[held], y[held]), 5),
        "held_out_loss_constant": round(_loss(_constant(y[~held]), x[held], y[held]), 5),
    }


def _constant(y: Matrix) -> list[Layer]:
    """A network that answers the mean reward whatever the position (the loss to beat)."""
    baseline = float(np.mean(y))
    return [Layer(np.zeros((FEATURES, 1)), np.asarray([np.log(baseline / (1 - baseline))]))]
