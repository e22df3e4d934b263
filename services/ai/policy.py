"""What every bot is: a policy that chooses one legal command from a player's view.

A policy is given exactly what a human in that seat may know — the seat's `PlayerView` — and the
game's `Ruleset`, never the game state. That is the whole contract between the game and its
bots (ARCHITECTURE.md, AI service): a bot can be run by a Celery worker, by a client asking for
a hint, or by a third party, and none of them can leak hidden cards into its decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from services.engine import PlayerCommand, PlayerView, Ruleset


@dataclass(frozen=True, slots=True)
class Choice:
    """A bot's decision: one of the view's legal commands, and why, for people to read."""

    command: PlayerCommand
    reason: str


class Policy(Protocol):
    """A bot: `choose` returns one of `view.legal` for the seat the view belongs to."""

    name: str

    def choose(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> Choice:
        """Decide for `view.seat`; `rng` is the only source of randomness the bot may use."""
        ...


def decision_legal(view: object) -> tuple[PlayerCommand, ...]:
    """The legal commands of a seat's view; refuses anything that is not a seat's view.

    Python does not enforce annotations, so this check is what keeps a caller from handing a
    bot the full game state (or a spectator view) by mistake.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"a policy decides from a PlayerView, not a {type(view).__name__}")
    if view.seat is None:
        raise ValueError("a spectator view has no decision to make")
    if not view.legal:
        raise ValueError(f"seat {view.seat} has no decision to make now")
    return view.legal


class RandomPolicy:
    """Uniformly random among the legal commands: the weakest bot and the baseline."""

    name = "random"

    def choose(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> Choice:
        legal = decision_legal(view)
        return Choice(rng.choice(legal), f"random among {len(legal)} legal moves")
