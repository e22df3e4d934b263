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

Everything random comes from `seed` (game seeds, the random moves, the initial weights and the
order of the minibatches), so a run is reproducible; the games are spread over `workers`
processes, which does not change them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from services.engine import (
    PLAYER_COUNTS,
    CreateGame,
    Phase,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    to_act,
)

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


def self_play_game(players: int, seed: int, index: int) -> tuple[list[list[float]], list[float]]:
    """One self-play game's round-start facts, one row per seat and round, and their rewards."""
    digest = hashlib.sha256(f"verrater-train:{seed}:{players}:{index}".encode()).digest()
    rng = random.Random(digest)
    ruleset = Ruleset.standard(players)
    policy = HeuristicPolicy()
    _, state = execute(initial_state(), CreateGame(ruleset, digest))
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
            # The seat's own knowledge of the true state: exactly what its view shows
            # (tests/ai/test_knowledge_matches_view.py), without building the view.
            command = legal[policy.best_index(Knowledge.from_sampled_state(state, seat, legal))]
        state = execute(state, command)[1]
    rewards = final_rewards(state)
    return rows, [rewards[seat] for seat in seats]


def _play(task: tuple[int, int, int]) -> tuple[list[list[float]], list[float]]:
    return self_play_game(*task)


def self_play(players: int, games: int, seed: int, workers: int) -> tuple[Matrix, Matrix, Matrix]:
    """`games` games' facts and rewards, and each row's game index (for the held-out split)."""
    tasks = [(players, seed, index) for index in range(games)]
    if workers <= 1:
        results = [_play(task) for task in tasks]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_play, tasks, chunksize=64))
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


def fit(x: Matrix, y: Matrix, run: TrainingRun, rng: np.random.Generator) -> list[Layer]:
    """A tanh MLP (two hidden layers) fitted by Adam on minibatches; returns its layers."""
    layers = _initial(rng, [FEATURES, run.hidden, run.hidden, 1])
    params = [p for layer in layers for p in (layer.weights, layer.bias)]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    for _ in range(run.epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), run.batch):
            batch = order[start : start + run.batch]
            grads = _gradients(layers, x[batch], y[batch])
            step += 1
            for i, grad in enumerate(grads):
                first[i] = beta1 * first[i] + (1 - beta1) * grad
                second[i] = beta2 * second[i] + (1 - beta2) * grad * grad
                m = first[i] / (1 - beta1**step)
                v = second[i] / (1 - beta2**step)
                params[i] -= run.learning_rate * m / (np.sqrt(v) + eps)  # in place
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


def train_expert(run: TrainingRun, out: Path, log: Any = print) -> dict[str, Any]:
    """Self-play and fit for every player count; writes the weights to `out`, returns figures."""
    started = time.perf_counter()
    nets: dict[int, list[Layer]] = {}
    figures: dict[str, Any] = {"players": {}}
    for players in PLAYER_COUNTS:
        games = run.games if players == 4 else run.games // 2
        clock = time.perf_counter()
        x, y, game = self_play(players, games, run.seed, run.workers)
        played = time.perf_counter() - clock
        held = game % 20 == 0
        rng = np.random.default_rng([run.seed, players])
        clock = time.perf_counter()
        layers = fit(x[~held], y[~held], run, rng)
        baseline = float(np.mean(y[~held]))
        constant = [Layer(np.zeros((FEATURES, 1)), np.asarray([np.log(baseline / (1 - baseline))]))]
        figures["players"][str(players)] = {
            "games": games,
            "positions": len(x),
            "self_play_s": round(played, 1),
            "fit_s": round(time.perf_counter() - clock, 1),
            "held_out_loss": round(_loss(layers, x[held], y[held]), 5),
            "held_out_loss_constant": round(_loss(constant, x[held], y[held]), 5),
        }
        log(json.dumps({"players": players, **figures["players"][str(players)]}))
        nets[players] = layers
    figures["seconds"] = round(time.perf_counter() - started, 1)
    meta = {
        "command": f"verrater train expert --games {run.games} --seed {run.seed}",
        "run": {
            "games": run.games,
            "seed": run.seed,
            "hidden": run.hidden,
            "epochs": run.epochs,
            "batch": run.batch,
            "learning_rate": run.learning_rate,
            "exploration": EXPLORATION,
        },
        "figures": figures,
    }
    out.write_text(json.dumps(ValueNet(nets, meta).to_json()) + "\n", encoding="utf-8")
    return figures
