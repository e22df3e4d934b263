"""The search bot: single-observer Information-Set MCTS (Cowling, Powley & Whitehouse 2012).

The bot sees only its view, so it cannot search the real game tree. Each iteration instead
draws a *determinization* — a full state consistent with the view, from the engine's
`sample_state` — and walks one tree whose nodes are the bot's information sets: a node is reached
by the moves the bot itself could observe, whatever hidden cards the sample holds. A move that
is illegal in the sample (say, a supply card the sampled hand lacks) is skipped for that
iteration, so UCB counts how often a child was *available*, not how often its parent was
visited. After the tree, the sample is played to the end by the heuristic bot for every seat
(each simulated seat decides from what it would know in the sample), and the final victory
points are backed up the path, each node scored for the seat that moved into it.

Two refinements make the few iterations a 0.25 s budget allows (60 to 300 until the last
rounds, see `services/bench/bots.py`) count:

- **Progressive widening, heuristic first.** A node may have about `widening * sqrt(visits)`
  children; new children are added in the heuristic's order of preference. Without this every
  opponent node would try a fresh, mostly absurd, move on every visit, and the bot would be
  planning against opponents who throw their cards away.
- **Secret moves are not branches.** Another seat's draft pick is hidden from the bot, so it
  does not split the tree (one child per seat, the pick made by the heuristic in the sample):
  otherwise the bot's later decisions would sit under nodes that know the secret pick.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from services.engine import (
    GameState,
    Phase,
    PlayerCommand,
    PlayerView,
    Ruleset,
    advance,
    legal_commands,
    sample_state,
    to_act,
)

from .heuristic import HeuristicPolicy, explain, scores
from .knowledge import Knowledge
from .policy import Choice, decision_legal

#: The `hard` level's thinking time per decision.
DEFAULT_BUDGET_S = 0.25


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The outcome of one search: the move, and how well it was examined."""

    command: PlayerCommand
    visits: int
    mean_reward: float
    iterations: int
    seconds: float


@dataclass(frozen=True, slots=True)
class _SecretPick:
    """The edge for another seat's hidden draft pick: one per seat, whatever card it was."""

    seat: int


class _Node:
    """Statistics of one move in the bot's information-set tree."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Hashable, _Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0


class IsmctsPolicy:
    """ISMCTS within a time budget (seconds) and/or an iteration budget, whichever ends first.

    `exploration` is the UCB constant for rewards in [0, 1]; `widening` scales how many
    children a node may have per square root of its visits; `win_weight` splits the reward
    between the win share and the VP margin to the best other seat.
    """

    name = "ismcts"

    def __init__(
        self,
        budget_s: float | None = DEFAULT_BUDGET_S,
        iterations: int | None = None,
        *,
        exploration: float = 0.7,
        widening: float = 1.0,
        win_weight: float = 0.5,
        margin_scale: float = 30.0,
        rollout: HeuristicPolicy | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """`clock` reads the seconds the time budget is spent in (tests step it by hand)."""
        if budget_s is None and iterations is None:
            raise ValueError("ISMCTS needs a time budget, an iteration budget, or both")
        if iterations is not None and iterations < 1:
            raise ValueError("ISMCTS needs at least one iteration")
        self.budget_s = budget_s
        self.iterations = iterations
        self.exploration = exploration
        self.widening = widening
        self.win_weight = win_weight
        self.margin_scale = margin_scale
        self.rollout = rollout if rollout is not None else HeuristicPolicy()
        self.clock = clock

    def choose(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> Choice:
        legal = decision_legal(view)
        if len(legal) == 1:
            return Choice(legal[0], "the only legal move")
        result = self.search(view, ruleset, rng)
        why = explain(Knowledge.from_view(view, ruleset), result.command, self.rollout.weights)
        return Choice(
            result.command,
            f"{why}; best of {result.iterations} sampled games "
            f"({result.visits} tries, {result.mean_reward:.2f} expected)",
        )

    def search(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> SearchResult:
        """Search from the view until the budget is spent; the most visited move wins."""
        legal = decision_legal(view)
        seat = view.seat
        assert seat is not None, "decision_legal refuses spectator views"
        clock = self.clock
        start = clock()
        deadline = start + self.budget_s if self.budget_s is not None else math.inf
        limit = self.iterations if self.iterations is not None else math.inf
        root = _Node()
        done = 0
        now = start
        # Stop when another iteration of average length would end past the deadline, so the
        # budget is kept on average rather than overrun by the last iteration.
        while done < limit and (done == 0 or now + (now - start) / done < deadline):
            self._iterate(root, sample_state(view, ruleset, rng), seat)
            done += 1
            now = clock()
        tried = [(command, root.children[command]) for command in legal if command in root.children]
        command, node = max(tried, key=lambda item: (item[1].visits, item[1].reward))
        return SearchResult(
            command=command,
            visits=node.visits,
            mean_reward=node.reward / node.visits,
            iterations=done,
            seconds=clock() - start,
        )

    # --- one iteration -----------------------------------------------------------------------

    def _iterate(self, root: _Node, state: GameState, me: int) -> None:
        path: list[tuple[_Node, int]] = []
        node = root
        root.visits += 1
        while state.phase is not Phase.GAME_OVER:
            seats = to_act(state)
            seat = me if me in seats else seats[0]
            legal = legal_commands(state, seat)
            if seat != me and state.phase is Phase.DRAFT:
                command = heuristic_move(self.rollout, state, seat, legal)
                node = _child(node, _SecretPick(seat))
                node.available += 1
            else:
                available = [command for command in legal if command in node.children]
                width = self.widening * math.sqrt(node.visits)
                if len(available) < len(legal) and len(available) < max(1.0, width):
                    command = self._expansion(state, seat, legal, node)
                    for other in available:
                        node.children[other].available += 1
                    node = _child(node, command)
                    node.available += 1
                    node.visits += 1
                    path.append((node, seat))
                    state = play_out(self.rollout, advance(state, command))
                    break
                command = self._select(node, available)
                node = node.children[command]
            node.visits += 1
            path.append((node, seat))
            state = advance(state, command)
        rewards = self._rewards(state)
        for visited, mover in path:
            visited.reward += rewards[mover]

    def _select(self, node: _Node, available: list[PlayerCommand]) -> PlayerCommand:
        """UCB1 over the children available in this sample (availability counts, not visits)."""
        best = available[0]
        best_value = -math.inf
        c = self.exploration
        for command in available:
            child = node.children[command]
            child.available += 1
            value = child.reward / child.visits + c * math.sqrt(
                math.log(child.available) / child.visits
            )
            if value > best_value:
                best, best_value = command, value
        return best

    def _expansion(
        self, state: GameState, seat: int, legal: list[PlayerCommand], node: _Node
    ) -> PlayerCommand:
        """The untried legal move the heuristic likes best."""
        knowledge = Knowledge.from_sampled_state(state, seat, legal)
        values = scores(knowledge, self.rollout.weights)
        best: PlayerCommand | None = None
        best_value = -math.inf
        for command, value in zip(legal, values, strict=True):
            if command not in node.children and value > best_value:
                best, best_value = command, value
        assert best is not None, "expansion needs an untried move"
        return best

    def _rewards(self, state: GameState) -> list[float]:
        return final_rewards(state, self.win_weight, self.margin_scale)


def final_rewards(
    state: GameState, win_weight: float = 0.5, margin_scale: float = 30.0
) -> list[float]:
    """Per seat of a finished game: `win_weight` x win share + the rest x VP margin to the best
    other seat (clipped to [0, 1], reached at `margin_scale` VP)."""
    vp = state.vp
    winners = state.winners
    share = 1.0 / len(winners)
    out = []
    for seat, points in enumerate(vp):
        best_other = max(v for s, v in enumerate(vp) if s != seat)
        margin = min(1.0, max(0.0, 0.5 + (points - best_other) / margin_scale))
        win = share if seat in winners else 0.0
        out.append(win_weight * win + (1.0 - win_weight) * margin)
    return out


def heuristic_move(
    rollout: HeuristicPolicy, state: GameState, seat: int, legal: list[PlayerCommand]
) -> PlayerCommand:
    """The playout policy: the heuristic deciding from what `seat` knows in the sample."""
    if len(legal) == 1:
        return legal[0]
    knowledge = Knowledge.from_sampled_state(state, seat, legal)
    return legal[rollout.best_index(knowledge)]


def play_out(
    rollout: HeuristicPolicy, state: GameState, until_round: int | None = None
) -> GameState:
    """A sampled state played on by the heuristic for every seat, to the end of the game or
    (with `until_round`) until that round begins, whichever comes first."""
    while state.phase is not Phase.GAME_OVER:
        if (
            until_round is not None
            and state.round >= until_round
            and (state.phase is Phase.CONFLICT)
        ):
            break
        seat = to_act(state)[0]
        state = advance(state, heuristic_move(rollout, state, seat, legal_commands(state, seat)))
    return state


def _child(node: _Node, key: Hashable) -> _Node:
    child = node.children.get(key)
    if child is None:
        child = node.children[key] = _Node()
    return child
