"""The `expert` bot's judgement of a position: a small network trained by self-play.

At the start of a round (the strategist about to choose the conflict) a seat's prospects are
summed up by a few public or own-hand facts (`seat_features`; the first two, meant to be the
rounds left, are not, as it says): its victory points against the others', the cards in hands,
the estates that feed them, trading posts, buildings still to place, its house's backers and
land, who chooses the next conflict and who drafts first. `ValueNet`
maps those facts to the reward the search bot plays for (win share and VP margin, see
`services/ai/ismcts.py`), as learned from heuristic self-play and tuned on the expert's own games
(`services/ai/training.py`).

The search evaluates *sampled* states (a determinization of the seat's view), so the facts may
include the sampled hands of other seats: they are the sample's, never the real game's. The
weights ship in the package (`data/expert-v3.json`) and are read with importlib.resources.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from services.engine import (
    CARDS_SCORED_PER_TRADING_POST,
    RING_SIZE,
    BuildingSide,
    GameState,
    House,
)

#: The shipped weights (v3: `verrater train expert` with two rounds of the expert's own games
#: and tuning); a new training run that changes the features gets a new features version.
WEIGHTS_FILE = "expert-v3.json"
FEATURES_VERSION = 1

Matrix = npt.NDArray[np.float64]


_OTHER = {house: house.other for house in House}


def seat_features(state: GameState, seats: Sequence[int] | None = None) -> list[list[float]]:
    """One row of facts per seat (of `seats`, default all), each from that seat's side, at the
    start of a round."""
    n = len(state.vp)
    rounds = state.rules.rounds
    left = rounds - max(state.round, 1) + 1
    houses = state.houses
    hand_n = [len(hand) for hand in state.hands]
    hand_sum = [sum(hand) for hand in state.hands]
    estates = [0] * n
    foreign = [0] * n
    posts = [0] * n
    placed = [0] * n
    for building, under in zip(state.buildings, houses, strict=True):
        if building is None:
            continue
        owner = building.owner
        placed[owner] += 1
        if building.side is BuildingSide.TRADING_POST:
            posts[owner] += 1
        elif under is state.allegiance[owner]:
            estates[owner] += 1
        else:
            foreign[owner] += 1
    bonus = [posts[i] * min(CARDS_SCORED_PER_TRADING_POST, hand_n[i]) for i in range(n)]
    # Counted with tuple.count (the search judges every sampled round's end: it adds up).
    land = {house: houses.count(house) for house in House}
    backing = {house: state.allegiance.count(house) for house in House}
    # What the next conflicts can bring: for each house, the most its backers could each gain
    # by conquering a landscape on a border, and the borders (the conflicts to choose from).
    table = state.rules.card_table
    best_gain = dict.fromkeys(House, 0)
    borders = 0
    exposed = [0] * n  # estates on a border, which a conflict may take from their owner's house
    for position in range(RING_SIZE):
        here = houses[position]
        right = houses[(position + 1) % RING_SIZE]
        left = houses[position - 1]
        if here is not right:
            borders += 1
        if here is not right or here is not left:
            attacker = _OTHER[here]
            if backing[attacker]:
                gain = table[state.kinds[position]].points_for(backing[attacker])
                best_gain[attacker] = max(best_gain[attacker], gain)
            building = state.buildings[position]
            if building is not None and building.side is BuildingSide.ESTATE:
                exposed[building.owner] += 1
    vp = state.vp
    rows = []
    for seat in range(n) if seats is None else seats:
        others = [i for i in range(n) if i != seat]
        other_vp = sorted((vp[i] for i in others), reverse=True)
        house = state.allegiance[seat]
        backers = backing[house]
        row = [
            # Meant to be the rounds left (and whether this is the last), but `left` was reused
            # by the ring's loop above: it is the house of landscape 10 here (0 or 1). The
            # shipped weights (features version 1) were trained so. The fix with weights
            # trained for it (features version 2) was measured no stronger, and not shipped
            # (docs/BENCHMARKS.md, "The rounds-left facts fixed and trained for").
            left / rounds,
            1.0 if left == 1 else 0.0,
            (vp[seat] - other_vp[0]) / 10.0,
            (vp[seat] - other_vp[1]) / 10.0,
            (vp[seat] - sum(other_vp) / len(others)) / 10.0,
            hand_n[seat] / 5.0,
            hand_sum[seat] / 20.0,
            sum(hand_n[i] for i in others) / len(others) / 5.0,
            sum(hand_sum[i] for i in others) / len(others) / 20.0,
            max(hand_sum[i] for i in others) / 20.0,
            estates[seat] / 3.0,
            foreign[seat] / 3.0,
            posts[seat] / 2.0,
            (3 - placed[seat]) / 3.0,
            sum(estates[i] for i in others) / len(others) / 3.0,
            max(estates[i] for i in others) / 3.0,
            sum(posts[i] for i in others) / len(others) / 2.0,
            bonus[seat] / 6.0,
            max(bonus[i] for i in others) / 6.0,
            backers / n,
            land.get(house, 0) / 12.0,
            1.0 if state.strategist == seat else 0.0,
            best_gain[house] / 10.0,
            best_gain[house.other] / 10.0,
            borders / RING_SIZE,
            exposed[seat] / 3.0,
        ]
        offset = (state.start_player - seat) % n
        row.extend(1.0 if offset == k else 0.0 for k in range(4))
        rows.append(row)
    return rows


FEATURES = 30


@dataclass(frozen=True, slots=True)
class Layer:
    weights: Matrix
    bias: Matrix


class ValueNet:
    """A multilayer perceptron (tanh hidden layers, a sigmoid out) per player count."""

    def __init__(self, nets: dict[int, list[Layer]], meta: dict[str, Any]) -> None:
        self.nets = nets
        self.meta = meta

    def predict(self, players: int, rows: Sequence[Sequence[float]] | Matrix) -> Matrix:
        """The expected reward of each row's seat (in [0, 1])."""
        x = np.asarray(rows, dtype=np.float64)
        layers = self.nets[players]
        for layer in layers[:-1]:
            x = np.tanh(x @ layer.weights + layer.bias)
        out = layers[-1]
        z = x @ out.weights + out.bias
        result: Matrix = 1.0 / (1.0 + np.exp(-z[:, 0]))
        return result

    def rewards(self, state: GameState) -> list[float]:
        """Each seat's expected reward from `state`, the start of a round."""
        values: list[float] = self.predict(len(state.vp), seat_features(state)).tolist()
        return values

    def reward(self, state: GameState, seat: int) -> float:
        """`seat`'s expected reward from `state`, the start of a round."""
        return self.seat_rewards((state,), seat)[0]

    def seat_rewards(self, states: Sequence[GameState], seat: int) -> list[float]:
        """`seat`'s expected reward from each of `states` (the starts of rounds of games of
        one size), in one pass through the network; none for no states."""
        if not states:
            return []
        rows = [seat_features(state, (seat,))[0] for state in states]
        values: list[float] = self.predict(len(states[0].vp), rows).tolist()
        return values

    def to_json(self) -> dict[str, Any]:
        return {
            "features_version": FEATURES_VERSION,
            "meta": self.meta,
            "nets": {
                str(players): [
                    {"weights": _rounded(layer.weights), "bias": _rounded(layer.bias)}
                    for layer in layers
                ]
                for players, layers in self.nets.items()
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ValueNet:
        if data.get("features_version") != FEATURES_VERSION:
            raise ValueError(
                f"weights for features version {data.get('features_version')}, "
                f"this code computes version {FEATURES_VERSION}"
            )
        nets = {
            int(players): [
                Layer(
                    np.asarray(layer["weights"], dtype=np.float64),
                    np.asarray(layer["bias"], dtype=np.float64),
                )
                for layer in layers
            ]
            for players, layers in data["nets"].items()
        }
        return cls(nets, data.get("meta", {}))


def _rounded(values: Matrix) -> Any:
    """Six significant digits: a third of the file, and far below what training resolves."""
    return np.vectorize(lambda x: float(f"{x:.6g}"))(values).tolist()


_SHIPPED: ValueNet | None = None


def shipped_value() -> ValueNet:
    """The weights that ship with the package (read once per process)."""
    global _SHIPPED  # noqa: PLW0603 - one read per process, shared by every expert decision
    if _SHIPPED is None:
        text = resources.files("services.ai").joinpath("data", WEIGHTS_FILE).read_text("utf-8")
        _SHIPPED = ValueNet.from_json(json.loads(text))
    return _SHIPPED
