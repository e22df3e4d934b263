"""Determinization: a full game state consistent with what one seat may see.

Search bots (ISMCTS) cannot play on the real state: it holds the other hands, the draw pile
order and the secret picks. They play on *determinizations* instead: states drawn at random among
those the seat cannot tell apart from the real one. This is the engine's counterpart of
OpenSpiel's `resample_from_infostate`, so that no bot ever has to reach into game internals.

`sample_state(view(state, s), ruleset, rng)` gives a state whose view for `s` equals
`view(state, s)` field for field. What is drawn at random, and how:

- **Supply cards.** The 23 cards are the seat's own hand, the discard pile and the cards played
  this round (all seen) plus the unseen ones, which are dealt uniformly at random to the other
  hands (their sizes are public) and to the draw pile (its size is public, its order random).
  Exception: before the first draw of the game every hand is the public starting hand (3, 4, 5)
  minus what its owner played, so those hands are exact rather than drawn.
- **Action cards.** The set-aside card, the other seats' secret picks and the cards still in the
  draft are a uniformly random arrangement of the action cards the seat has not seen: while it
  is picking, it sees the cards offered to it; otherwise only its own pick (and, after the
  reveal, every pick).
- **Future shuffles.** The seed is fresh random bytes (the real seed is secret until the game
  ends), so every later shuffle, draft and reshuffle is random too.

Approximations, harmless for the view and documented here so nobody mistakes them for facts:

- Sampling is uniform given the *current* view. The view holds no history, so inferences a
  player could draw from earlier rounds (which cards a seat kept, what it was offered in an
  earlier pick of this draft) are not used.
- `reshuffles` (how many times the discard pile was reshuffled) is not in the view; it only
  labels future shuffles of the seed, and the seed is fresh, so it is set to 0.
- `seed_commitment` is copied from the view: it commits to the real seed, not the fresh one.
- `setup` is None: an explicit setup only fixes hidden facts (draw pile, set-aside cards).
- Fields that no rule reads keep their defaults (who sits where), except the turn timer, which
  the view shows and is copied.
"""

from __future__ import annotations

import random
from collections import Counter

from .cards import ALL_ACTION_CARDS, STARTING_HAND, SUPPLY_CARDS, ActionCard, Ruleset
from .events import Phase
from .rng import SEED_BYTES
from .state import GameState, remove_cards
from .views import PlayerView

#: Phases of a round in which no card has been drawn yet: in round 1 hands are still exact.
_BEFORE_THE_DRAW = frozenset(
    {Phase.FIRST_ESTATES, Phase.CONFLICT, Phase.DRAFT, Phase.SUPPLY, Phase.BUILD}
)


def sample_state(view: PlayerView, ruleset: Ruleset, rng: random.Random) -> GameState:
    """A random full state that `view.seat` cannot tell apart from the real one.

    Raises ValueError for a spectator view (no information set to sample for) or a view that
    contradicts itself (its cards do not add up to the 23 supply cards).
    """
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator view has no information set to sample from")
    n = ruleset.players
    if len(view.seats) != n:
        raise ValueError(f"the view shows {len(view.seats)} seats, the ruleset {n}")
    state = GameState()
    state.ruleset = ruleset
    # Once the game is over the seed is public; until then it is secret and replaced.
    state.seed = view.seed if view.seed is not None else rng.randbytes(SEED_BYTES)
    state.seed_commitment = view.seed_commitment
    state.version = view.version
    state.phase = view.phase
    state.round = view.round
    state.start_player = view.start_player
    state.strategist = view.strategist
    state.kinds = tuple(landscape.type for landscape in view.ring)
    state.houses = tuple(landscape.house for landscape in view.ring)
    state.buildings = view.buildings()
    state.allegiance = tuple(s.house for s in view.seats)
    state.vp = tuple(s.vp for s in view.seats)
    state.played = tuple(s.played for s in view.seats)
    state.discard = view.discard
    state.conflict = view.conflict
    state.last_conflict = view.last_conflict
    state.winners = view.winners
    state.turn = _turn_counter(view, n)
    state.turn_seconds = view.turn_seconds
    state.hands, state.deck = _deal_supply(view, seat, n, rng)
    state.set_aside, state.pool, state.picks, state.revealed = _deal_action_cards(view, seat, rng)
    return state


def _turn_counter(view: PlayerView, n: int) -> int:
    """The engine's within-phase counter: how many seats have acted in turn order so far."""
    if view.phase is Phase.FIRST_ESTATES:
        return sum(1 for landscape in view.ring if landscape.building_owner is not None)
    if view.phase is Phase.DRAFT:
        return sum(1 for s in view.seats if s.has_picked)
    if view.phase is Phase.SUPPLY:
        return sum(1 for s in view.seats if s.played is not None)
    # The build phase is at rest only while the builder has not acted; other phases reset it.
    return 0


def _deal_supply(
    view: PlayerView, seat: int, n: int, rng: random.Random
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Every hand and the draw pile: the seat's own hand, the rest dealt from the unseen cards."""
    own = view.hand if view.hand is not None else ()
    known: dict[int, tuple[int, ...]] = {seat: own}
    if view.round <= 1 and view.phase in _BEFORE_THE_DRAW:
        for other in range(n):
            if other != seat:
                rest = remove_cards(STARTING_HAND, view.seats[other].played or ())
                if rest is None:
                    raise ValueError(f"seat {other} played cards it was never dealt")
                known[other] = rest
    unseen = Counter(SUPPLY_CARDS)
    unseen.subtract(view.discard)
    for seat_view in view.seats:
        unseen.subtract(seat_view.played or ())
    for hand in known.values():
        unseen.subtract(hand)
    if any(count < 0 for count in unseen.values()):
        raise ValueError("the view shows more of some supply card than the game has")
    pile = list(unseen.elements())
    wanted = view.deck_count + sum(view.seats[s].hand_count for s in range(n) if s not in known)
    if len(pile) != wanted:
        raise ValueError(
            f"{len(pile)} supply cards are unseen but hands and draw pile hold {wanted}"
        )
    rng.shuffle(pile)
    hands: list[tuple[int, ...]] = []
    for other in range(n):
        if other in known:
            hands.append(known[other])
        else:
            count = view.seats[other].hand_count
            hands.append(tuple(sorted(pile[:count])))
            del pile[:count]
    return tuple(hands), tuple(pile)


def _deal_action_cards(
    view: PlayerView, seat: int, rng: random.Random
) -> tuple[ActionCard | None, tuple[ActionCard, ...], tuple[ActionCard | None, ...], bool]:
    """The set-aside card, the draft pool, every pick, and whether the picks are revealed."""
    revealed = any(s.revealed_pick is not None for s in view.seats)
    if view.phase in (Phase.FIRST_ESTATES, Phase.CONFLICT):
        # Nothing is dealt before the draft of a round.
        return None, (), tuple(None for _ in view.seats), False
    if revealed:
        picks = tuple(s.revealed_pick for s in view.seats)
        unseen = [card for card in ALL_ACTION_CARDS if card not in picks]
        return rng.choice(unseen), (), picks, True
    seen: tuple[ActionCard, ...] = view.offered if view.offered is not None else ()
    if view.pick is not None:
        seen += (view.pick,)
    unseen = [card for card in ALL_ACTION_CARDS if card not in seen]
    rng.shuffle(unseen)
    set_aside = unseen.pop()
    picks_list: list[ActionCard | None] = []
    for s in view.seats:
        if s.seat == seat:
            picks_list.append(view.pick)
        else:
            picks_list.append(unseen.pop() if s.has_picked else None)
    if view.phase is not Phase.DRAFT:
        pool: tuple[ActionCard, ...] = ()  # the leftovers went back unseen
    elif view.offered is not None:
        pool = view.offered
    else:
        pool = tuple(unseen)
    return set_aside, pool, tuple(picks_list), False
