"""Provably fair: the seed opens the commitment, and every shuffle is the one the seed gives.

Each shuffle is recomputed here from `rng.shuffled` and the documented inputs of the shuffle
(docs/LOG_FORMAT.md, "Every shuffle of a game"), independently of the engine whose deal it
checks. Parts of the setup fixed by hand (`ExplicitSetup`) are not drawn from the seed and are
named instead.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from services.engine import (
    STARTING_HAND,
    SUPPLY_CARDS,
    ActionCard,
    ActionCardsDealt,
    CardsDiscarded,
    DiscardPileReshuffled,
    Event,
    ExplicitSetup,
    GameCreated,
    GameEnded,
    House,
    LandscapeType,
    RingLaidOut,
    RoundStarted,
    StartPlayerChosen,
    SupplyDealt,
    SupplyDiscarded,
    shuffled,
)

from .findings import Finding, FindingKind, plain

# The inputs of each shuffle, in the order the generator receives them.
#: "ring": one card of each type Eagle side up, then one of each type Rose side up.
RING_CARDS: tuple[tuple[LandscapeType, House], ...] = tuple(
    (kind, house) for house in House for kind in LandscapeType
)
#: "draft:{round}": the six action cards in their enum order.
ACTION_CARDS: tuple[ActionCard, ...] = tuple(ActionCard)


def supply_deck_cards(players: int) -> tuple[int, ...]:
    """The input of "supply": the cards left once each player holds a 3, a 4 and a 5, ascending."""
    left = Counter(SUPPLY_CARDS)
    left.subtract(Counter(STARTING_HAND * players))
    return tuple(sorted(left.elements()))


def _order(cards: Sequence[Any] | None) -> str:
    return "none" if cards is None else ", ".join(plain(card) for card in cards) or "empty"


class Fairness:
    """The seed against its commitment, and every shuffle outcome against the seed."""

    def __init__(self, events: Sequence[Event], versions: Sequence[int]) -> None:
        self.findings: list[Finding] = []
        self.checked = 0
        self.explicit: tuple[str, ...] = ()
        self._versions = versions
        created = events[0]
        if not isinstance(created, GameCreated):
            return  # the replay reports a log that does not begin with its creation
        setup = created.setup or ExplicitSetup()
        self.explicit = _explicit_parts(setup)
        at_end = next(
            ((i, event) for i, event in enumerate(events) if isinstance(event, GameEnded)), None
        )
        seed = self._check_seed(created, at_end)
        if seed is not None:
            self._check_shuffles(events, seed, setup, created.ruleset.players)

    def _found(self, index: int, message: str) -> None:
        self.findings.append(Finding(self._versions[index], FindingKind.FAIRNESS, message))

    def _check_seed(
        self, created: GameCreated, at_end: tuple[int, GameEnded] | None
    ) -> bytes | None:
        """The game's seed: the one in the log that hashes to the commitment, if any."""
        commitment = created.seed_commitment
        if created.seed is None:
            self._found(0, "GameCreated carries no seed: this is a redacted copy of the log")
        revealed = None
        if at_end is not None:
            index, ended = at_end
            revealed = ended.seed
            if _sha256(revealed) != commitment:
                self._found(
                    index,
                    f"the revealed seed does not match the commitment: sha256(seed) is "
                    f"{_sha256(revealed)}, the first event committed to {commitment}",
                )
            if created.seed is not None and created.seed != revealed:
                self._found(
                    0,
                    f"the seed recorded at creation ({created.seed.hex()}) is not the revealed "
                    f"seed ({revealed.hex()})",
                )
        # Only the committed seed is the game's: checking the deal against another one would
        # only report that it is another one, at every shuffle.
        for seed in (revealed, created.seed):
            if seed is not None and _sha256(seed) == commitment:
                return seed
        self._found(0, "no seed in the log matches the commitment: no shuffle can be checked")
        return None

    def _compare(self, index: int, what: str, logged: Any, expected: Any) -> None:
        self.checked += 1
        if logged != expected:
            self._found(
                index,
                f"the {what} is not the one the seed gives: the log has {_order(logged)}, "
                f"the seed gives {_order(expected)}",
            )

    def _check_shuffles(
        self, events: Sequence[Event], seed: bytes, setup: ExplicitSetup, players: int
    ) -> None:
        round_number = 0
        discard_pile: list[int] = []
        reshuffles = 0
        for index, event in enumerate(events):
            match event:
                case StartPlayerChosen() if setup.start_player is None:
                    start = shuffled(seed, "start-player", range(players))[:1]
                    self._compare(index, "start player", (event.seat,), start)
                case RingLaidOut() if setup.ring is None:
                    ring = shuffled(seed, "ring", RING_CARDS)
                    self._compare(index, "ring", event.landscapes, ring)
                case SupplyDealt() if setup.deck is None:
                    deck = shuffled(seed, "supply", supply_deck_cards(players))
                    self._compare(index, "supply deck", event.deck, deck)
                case RoundStarted():
                    round_number = event.round
                case ActionCardsDealt():
                    if setup.set_aside is not None and round_number <= len(setup.set_aside):
                        continue
                    deal = shuffled(seed, f"draft:{round_number}", ACTION_CARDS)
                    logged = None if event.offered is None else (event.set_aside, *event.offered)
                    self._compare(index, f"action card deal of round {round_number}", logged, deal)
                case SupplyDiscarded() | CardsDiscarded():
                    discard_pile.extend(event.cards)
                case DiscardPileReshuffled():
                    label = f"reshuffle:{reshuffles}"
                    pile = shuffled(seed, label, sorted(discard_pile))
                    self._compare(index, f"reshuffled draw pile ({label})", event.order, pile)
                    discard_pile = []
                    reshuffles += 1
                case _:
                    continue


def _sha256(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def _explicit_parts(setup: ExplicitSetup) -> tuple[str, ...]:
    parts = []
    if setup.start_player is not None:
        parts.append("start player")
    if setup.ring is not None:
        parts.append("ring")
    if setup.deck is not None:
        parts.append("supply deck")
    if setup.set_aside is not None:
        parts.append(f"set-aside action cards of rounds 1-{len(setup.set_aside)}")
    return tuple(parts)
