"""The `expert` bot: each of its best few moves tried on the same sampled rounds, judged by value.

A move's worth is what it leads to by the start of the next round, where the value network
(`services/ai/value.py`) judges every seat's prospects. The bot draws `samples` determinizations
of its view (full states it cannot tell from the real one, `sample_state`) and plays *every*
candidate move on *each* of them, the rest of the round played by the heuristic for every seat
(each deciding from what it would know in the sample). All candidates meet the same hidden cards,
so their difference is measured without the luck of the draw: with a few dozen playouts a
decision, comparing moves on common samples is what keeps the noise below the differences that
matter (ISMCTS spreads as many playouts over independent samples, `services/ai/ismcts.py`).

Candidates are the heuristic's best `candidates` moves, one per distinct heuristic score (supply
plays of as many cards of the same total score alike, and the value would not tell them apart).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from services.engine import GameState, Phase, PlayerView, Ruleset, advance, sample_state

from .heuristic import HeuristicPolicy, explain, scores
from .ismcts import final_rewards, play_out
from .knowledge import Knowledge
from .policy import Choice, decision_legal


class RoundValue(Protocol):
    """Judges sampled states at the start of a round: a seat's expected reward in [0, 1]."""

    def seat_rewards(self, states: Sequence[GameState], seat: int) -> list[float]:
        """`seat`'s expected reward (`ismcts.final_rewards`' scale) from each of `states`, in
        one call (a network judges them all in one pass)."""
        ...


class ExpertPolicy:
    """Paired Monte Carlo over the heuristic's best moves, to the next round, judged by value."""

    name = "expert"

    def __init__(
        self,
        value: RoundValue,
        samples: int = 8,
        candidates: int = 6,
        rollout: HeuristicPolicy | None = None,
        stages: int = 1,
    ) -> None:
        """`stages` > 1: the samples come in that many batches, and after each batch but the
        last only the better half of the candidates still tried go on (successive halving)."""
        if not 1 <= stages <= samples:
            raise ValueError(f"stages must be 1 to {samples} (the samples), not {stages}")
        self.value = value
        self.samples = samples
        self.candidates = candidates
        self.stages = stages
        self.rollout = rollout if rollout is not None else HeuristicPolicy()

    def choose(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> Choice:
        legal = decision_legal(view)
        if len(legal) == 1:
            return Choice(legal[0], "the only legal move")
        seat = view.seat
        assert seat is not None, "decision_legal refuses spectator views"
        knowledge = Knowledge.from_view(view, ruleset)
        values = scores(knowledge, self.rollout.weights)
        order = sorted(range(len(legal)), key=lambda i: -values[i])
        chosen: list[int] = []
        for i in order:
            if all(values[i] != values[j] for j in chosen):
                chosen.append(i)
            if len(chosen) == self.candidates:
                break
        totals = [0.0] * len(chosen)
        running = list(range(len(chosen)))  # the candidates still tried, by slot in `chosen`
        played = 0
        for stage, batch in enumerate(_batches(self.samples, self.stages)):
            ends: list[GameState] = []  # sample by sample, each running candidate's end in turn
            for _ in range(batch):
                sample = sample_state(view, ruleset, rng)
                horizon = sample.round + 1
                for slot in running:
                    ends.append(
                        play_out(self.rollout, advance(sample, legal[chosen[slot]]), horizon)
                    )
            for n, reward in enumerate(self._rewards(ends, seat)):
                totals[running[n % len(running)]] += reward
            played += batch
            if stage < self.stages - 1:
                # The better half goes on (ties to the heuristic's order), on samples of its own.
                ranked = sorted(running, key=lambda slot: -totals[slot])
                running = sorted(ranked[: (len(running) + 1) // 2])
            if len(running) == 1:
                break
        best = max(running, key=lambda slot: totals[slot])
        command = legal[chosen[best]]
        why = explain(knowledge, command, self.rollout.weights)
        tried = f"the best of {len(chosen)} moves, found on {played} sampled rounds"
        return Choice(command, f"{why} ({tried})")

    def _rewards(self, ends: list[GameState], seat: int) -> list[float]:
        """Each end's reward for `seat`: a finished game's result, else the value's judgement
        (of all the unfinished ones at once)."""
        going = [end for end in ends if end.phase is not Phase.GAME_OVER]
        judged = iter(self.value.seat_rewards(going, seat))
        return [
            final_rewards(end)[seat] if end.phase is Phase.GAME_OVER else next(judged)
            for end in ends
        ]


def _batches(samples: int, stages: int) -> list[int]:
    """`samples` split into `stages` batches as equal as can be, the larger first."""
    size, extra = divmod(samples, stages)
    return [size + (1 if stage < extra else 0) for stage in range(stages)]
