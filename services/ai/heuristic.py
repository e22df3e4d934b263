"""The rules-aware bot: scores every legal command by the victory points it is expected to bring.

One yardstick for every decision: *relative* VP, the seat's own gain minus the average gain of
the other seats (in a race for the most VP, points shared by everyone are worth nothing). Supply
cards are worth VP too, because they are what wins later conflicts; a card spent now has to buy
more than it would be worth kept. The main estimate is a conflict's outcome: the strength each
house has on the table, plus what the seats still to act are expected to add, turned into a win
chance by a logistic curve whose width grows with what is still unknown.

The same scoring serves a real decision (from the seat's view) and the search bot's simulated
players (from what a seat would know in a sampled state), so it has to be cheap: a few tens of
microseconds per decision.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from services.engine import (
    CARDS_SCORED_PER_TRADING_POST,
    DIPLOMAT_BONUS,
    DRAW_CAP,
    HAND_LIMIT,
    MAX_TRADING_POSTS,
    RING_SIZE,
    STRATEGIST_POINTS,
    SUPPLY_CARDS,
    TRAITOR_POINTS,
    ActionCard,
    BuildingSide,
    ChooseConflict,
    DiscardCards,
    FlipBuilding,
    House,
    MoveBuilding,
    PassBuild,
    Phase,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlayerView,
    PlaySupply,
    Ruleset,
)

from .knowledge import Knowledge
from .policy import Choice, decision_legal

#: The mean value of a supply card: what an unseen card in someone's hand is worth on average.
MEAN_CARD = sum(SUPPLY_CARDS) / len(SUPPLY_CARDS)


@dataclass(frozen=True, slots=True)
class Weights:
    """The heuristic's judgement, in one place: every number it does not get from the rules."""

    #: VP a supply card in hand is worth, plus per point of its value.
    card_base: float = 0.1
    card_per_point: float = 0.08
    #: Share of their hand's value the seats still to play are expected to put into a conflict.
    commit: float = 0.45
    #: Variance of a conflict's outcome: a base, per unseen card still to be played, and per
    #: unrevealed pick (diplomats and the traitor move strength from house to house).
    base_variance: float = 4.0
    variance_per_card: float = 7.0
    variance_per_pick: float = 3.0
    #: Cards an estate under the house its owner backs yields per draw phase (the draw cap and
    #: the hand limit waste some), and how likely its landscape is to stay with that house.
    estate_yield: float = 0.7
    hold_inland: float = 0.9
    hold_border: float = 0.6
    #: An estate under the other house's land only pays after a flip or a switch of sides.
    foreign_estate: float = 0.25
    #: VP a trading post is expected to bring at the end (min(3, final hand)).
    trading_post: float = 2.2
    #: Chance per round left that the seat holds the builder again. A trading post pays the
    #: same whenever it is built, an estate less with every round: while another chance to
    #: build is likely, an estate now and a trading post later beats the other order.
    build_again: float = 0.08
    #: How much the other seats' gains count against the seat's own (1: a pure race for the
    #: most VP, where points everyone gets are worth nothing).
    rivalry: float = 1.0
    #: Choosing next round's conflict is worth something beyond the strategist's 2 VP.
    strategist_control: float = 0.8
    #: How many draw phases a switch of sides is expected to last (for estates it affects).
    switch_horizon: int = 2


DEFAULT_WEIGHTS = Weights()


class Battle:
    """This round's conflict as one seat sees it, once it has settled which side it ends on.

    `edge` is the expected strength of that side minus the other's, not counting the seat's own
    supply cards; `win` and `lose` are the seat's relative VP if its side wins or loses.
    """

    __slots__ = ("edge", "lose", "spread", "win")

    def __init__(self, edge: float, spread: float, win: float, lose: float) -> None:
        self.edge = edge
        self.spread = spread
        self.win = win
        self.lose = lose

    def win_chance(self, extra: float) -> float:
        """Chance the side wins with `extra` more strength (a tie is neither win nor loss)."""
        return _logistic((self.edge + extra - 0.5) / self.spread)

    def value(self, extra: float) -> float:
        """Expected relative VP of the conflict with `extra` more strength on the seat's side."""
        win = _logistic((self.edge + extra - 0.5) / self.spread)
        lose = _logistic((-self.edge - extra - 0.5) / self.spread)
        return win * self.win + lose * self.lose


def _logistic(x: float) -> float:
    if x < -30.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class HeuristicPolicy:
    """A rules-aware player: picks the legal command with the most expected relative VP."""

    name = "heuristic"

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.weights = weights

    def choose(self, view: PlayerView, ruleset: Ruleset, rng: random.Random) -> Choice:
        legal = decision_legal(view)
        knowledge = Knowledge.from_view(view, ruleset)
        index = self.best_index(knowledge)
        return Choice(legal[index], explain(knowledge, legal[index], self.weights))

    def best_index(self, knowledge: Knowledge) -> int:
        """The index in `knowledge.legal` of the command to play (the first of equals)."""
        values = scores(knowledge, self.weights)
        best = 0
        for i in range(1, len(values)):
            if values[i] > values[best]:
                best = i
        return best


# --- scoring -------------------------------------------------------------------------------


def scores(k: Knowledge, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Expected relative VP of every command in `k.legal`, in the same order."""
    phase = k.phase
    if phase is Phase.SUPPLY:
        return _supply_scores(k, w)
    if phase is Phase.DRAFT:
        return _draft_scores(k, w)
    if phase is Phase.CONFLICT:
        return _conflict_scores(k, w)
    if phase is Phase.BUILD:
        return [_build_value(k, w, command) for command in k.legal]
    if phase is Phase.HAND_LIMIT:
        return [-float(sum(c.cards)) if isinstance(c, DiscardCards) else 0.0 for c in k.legal]
    if phase is Phase.FIRST_ESTATES:
        return [_first_estate_value(k, c) for c in k.legal]
    return [0.0] * len(k.legal)


def card_worth(w: Weights, value: float) -> float:
    """What one supply card in hand is worth in VP before the last round."""
    return w.card_base + w.card_per_point * value


def _side_positions(k: Knowledge, conflict: tuple[int, int], side: House) -> tuple[int, int]:
    """(position of `side`'s landscape, position of the other house's) in a conflict."""
    first, second = conflict
    return (first, second) if k.houses[first] is side else (second, first)


def _estate_unit(k: Knowledge, w: Weights) -> float:
    """VP an estate under its owner's house brings over the rest of the game."""
    return k.draw_phases_left() * w.estate_yield * card_worth(w, MEAN_CARD)


def _outcome(
    k: Knowledge, w: Weights, allegiance: tuple[House, ...], winner: House, lost_at: int
) -> float:
    """Relative VP for the seat when `winner` conquers the landscape at `lost_at`."""
    n = k.players
    me = k.seat
    backers = sum(1 for house in allegiance if house is winner)
    points = k.card_table[k.kinds[lost_at]].points_for(backers) if backers else 0
    mine = allegiance[me] is winner
    gain = (points if mine else 0) - w.rivalry * points * (backers - mine) / (n - 1)
    building = k.buildings[lost_at]
    if building is not None and building.side is BuildingSide.ESTATE:
        # The landscape turns to the winner: its estate starts or stops paying its owner.
        change = _estate_unit(k, w) * (1.0 if allegiance[building.owner] is winner else -1.0)
        gain += change if building.owner == me else -w.rivalry * change / (n - 1)
    return gain


def _battle(
    k: Knowledge,
    w: Weights,
    conflict: tuple[int, int],
    side: House,
    *,
    bonus: float = 0.0,
    own: float = 0.0,
) -> Battle:
    """The conflict if the seat ends on `side` with `bonus` (diplomat) and `own` expected cards."""
    me = k.seat
    mine_at, theirs_at = _side_positions(k, conflict, side)
    table = k.card_table
    edge = float(table[k.kinds[mine_at]].cp - table[k.kinds[theirs_at]].cp) + bonus + own
    variance = w.base_variance
    allegiance = k.allegiance
    if allegiance[me] is not side:
        allegiance = allegiance[:me] + (side,) + allegiance[me + 1 :]
    still_to_play = k.phase in (Phase.CONFLICT, Phase.DRAFT, Phase.SUPPLY)
    hidden_picks = not k.picks_revealed
    for seat in range(k.players):
        if seat == me:
            continue
        sign = 1.0 if allegiance[seat] is side else -1.0
        played = k.played[seat]
        if played is not None:
            edge += sign * sum(played)
        elif still_to_play:
            count = k.hand_counts[seat]
            edge += sign * w.commit * MEAN_CARD * count
            variance += w.variance_per_card * count
        if hidden_picks:
            variance += w.variance_per_pick
    win = _outcome(k, w, allegiance, side, theirs_at)
    lose = _outcome(k, w, allegiance, side.other, mine_at)
    return Battle(edge, math.sqrt(variance), win, lose)


def _final_draws(k: Knowledge, pick: ActionCard | None) -> int:
    """Cards the seat expects in this round's draw phase, given its pick."""
    if pick is ActionCard.FARMER:
        return DRAW_CAP
    estates = k.productive_estates(k.seat, k.house)
    return min(DRAW_CAP, estates + (pick is ActionCard.DIPLOMAT2))


def _keep_costs(k: Knowledge, w: Weights, draws: int) -> Callable[[int, int], float]:
    """VP lost by spending `count` cards of value `total` from the hand now, as a function of
    (`count`, `total`): what does not depend on them is worked out once per decision."""
    hand = len(k.hand)
    if k.last_round:
        # Only trading posts still count cards: min(3, hand) each, after this round's draws.
        posts = k.trading_posts(k.seat)
        before = min(CARDS_SCORED_PER_TRADING_POST, hand + draws)

        def last_round(count: int, total: int) -> float:
            after = min(CARDS_SCORED_PER_TRADING_POST, hand - count + draws)
            return posts * (before - after) + 0.01 * total

        return last_round
    base, per_point = w.card_base, w.card_per_point
    # Cards over the hand limit after the draw are discarded anyway (the lowest ones).
    wasted_now = max(0, hand + draws - HAND_LIMIT)
    lowest = card_worth(w, min(k.hand)) if k.hand else 0.0

    def keep_cost(count: int, total: int) -> float:
        cost = count * base + per_point * total
        wasted_after = max(0, hand - count + draws - HAND_LIMIT)
        if wasted_now > wasted_after and hand:
            cost -= (wasted_now - wasted_after) * lowest
        return cost

    return keep_cost


def _supply_battle(k: Knowledge, w: Weights) -> tuple[House, Battle]:
    """The side the seat fights for in the supply phase (the traitor's is the other house, as
    from the reveal), and the conflict with its diplomat bonus, if any, on that side."""
    assert k.conflict is not None, "the supply phase follows a chosen conflict"
    side = k.house.other if k.pick is ActionCard.TRAITOR else k.house
    bonus = float(DIPLOMAT_BONUS.get(k.pick, 0)) if k.pick is not None else 0.0
    return side, _battle(k, w, k.conflict, side, bonus=bonus)


def _supply_scores(k: Knowledge, w: Weights) -> list[float]:
    _, battle = _supply_battle(k, w)
    keep_cost = _keep_costs(k, w, _final_draws(k, k.pick))
    # Choices with as many cards of the same total score the same; a hand has few of those.
    seen: dict[tuple[int, int], float] = {}
    out = []
    for command in k.legal:
        cards = command.cards if isinstance(command, PlaySupply) else ()
        key = (len(cards), sum(cards))
        value = seen.get(key)
        if value is None:
            value = seen[key] = battle.value(key[1]) - keep_cost(*key)
        out.append(value)
    return out


def _own_play(k: Knowledge, w: Weights) -> float:
    return w.commit * sum(k.hand)


def _draw_value(k: Knowledge, w: Weights, extra: int) -> float:
    """VP of `extra` more cards in this round's draw phase, on top of the usual draws."""
    usual = _final_draws(k, None)
    hand = (1.0 - w.commit) * len(k.hand)  # what is likely left after the supply phase
    if k.last_round:
        posts = k.trading_posts(k.seat)
        return posts * (
            min(CARDS_SCORED_PER_TRADING_POST, hand + min(DRAW_CAP, usual + extra))
            - min(CARDS_SCORED_PER_TRADING_POST, hand + usual)
        )
    room = max(0.0, HAND_LIMIT - hand - usual)
    gained = min(float(min(DRAW_CAP, usual + extra) - usual), room + 1.0)
    return max(0.0, gained) * card_worth(w, MEAN_CARD)


def _draft_scores(k: Knowledge, w: Weights) -> list[float]:
    assert k.conflict is not None, "the draft follows a chosen conflict"
    own = _own_play(k, w)
    stay = _battle(k, w, k.conflict, k.house, own=own)
    out = []
    for command in k.legal:
        card = command.card if isinstance(command, PickActionCard) else None
        out.append(_pick_value(k, w, card, stay=stay, own=own))
    return out


def _pick_value(
    k: Knowledge, w: Weights, card: ActionCard | None, *, stay: Battle, own: float
) -> float:
    """What keeping `card` adds to the round, in relative VP (`stay`: the round without it)."""
    assert k.conflict is not None
    base = stay.value(0.0)
    if card is ActionCard.TRAITOR:
        switch = _battle(k, w, k.conflict, k.house.other, own=own)
        estates = k.productive_estates(k.seat, k.house.other) - k.productive_estates(
            k.seat, k.house
        )
        horizon = min(k.draw_phases_left(), w.switch_horizon)
        estate_change = estates * horizon * w.estate_yield * card_worth(w, MEAN_CARD)
        return TRAITOR_POINTS + switch.value(0.0) - base + estate_change
    if card is ActionCard.DIPLOMAT5:
        return stay.value(5.0) - base
    if card is ActionCard.DIPLOMAT2:
        return stay.value(2.0) - base + _draw_value(k, w, 1)
    if card is ActionCard.STRATEGIST:
        return STRATEGIST_POINTS + w.strategist_control
    if card is ActionCard.FARMER:
        estates = k.productive_estates(k.seat, k.house)
        return _draw_value(k, w, DRAW_CAP - min(DRAW_CAP, estates))
    if card is ActionCard.BUILDER:
        return max(0.0, _best_build(k, w))
    return 0.0


def _conflict_scores(k: Knowledge, w: Weights) -> list[float]:
    own = _own_play(k, w)
    out = []
    for command in k.legal:
        if isinstance(command, ChooseConflict):
            conflict = (command.first, command.second)
            out.append(_battle(k, w, conflict, k.house, own=own).value(0.0))
        else:
            out.append(0.0)
    return out


# --- buildings -----------------------------------------------------------------------------


def _estate_share(k: Knowledge, w: Weights, position: int) -> float:
    """The share of a full estate's yield an estate at `position` is expected to bring."""
    house = k.houses[position]
    if house is not k.house:
        return w.foreign_estate
    left = k.houses[(position - 1) % RING_SIZE]
    right = k.houses[(position + 1) % RING_SIZE]
    return w.hold_inland if left is house and right is house else w.hold_border


def _estate_value(k: Knowledge, w: Weights, position: int) -> float:
    """VP an estate at `position` is expected to bring the seat over the rest of the game."""
    return _estate_unit(k, w) * _estate_share(k, w, position)


def _trading_post_value(k: Knowledge, w: Weights) -> float:
    """What building a trading post *now* adds, over keeping the card for a later build."""
    if k.last_round:
        return float(min(CARDS_SCORED_PER_TRADING_POST, len(k.hand) + _final_draws(k, k.pick)))
    later = min(1.0, w.build_again * (k.rounds - k.round))
    return w.trading_post * (1.0 - later)


def _building_value(k: Knowledge, w: Weights, position: int, side: BuildingSide) -> float:
    if side is BuildingSide.ESTATE:
        return _estate_value(k, w, position)
    # A trading post pays the same anywhere; under the other house's land it also keeps an
    # opponent's estate out.
    block = 0.05 if k.houses[position] is not k.house else 0.0
    return _trading_post_value(k, w) + block


def _build_value(k: Knowledge, w: Weights, command: PlayerCommand) -> float:
    if isinstance(command, PlaceBuilding):
        return _building_value(k, w, command.position, command.side)
    if isinstance(command, FlipBuilding):
        building = k.buildings[command.position]
        if building is None:
            return 0.0
        now = building.side
        new = BuildingSide.ESTATE if now is BuildingSide.TRADING_POST else BuildingSide.TRADING_POST
        return _building_value(k, w, command.position, new) - _building_value(
            k, w, command.position, now
        )
    if isinstance(command, MoveBuilding):
        building = k.buildings[command.origin]
        if building is None:
            return 0.0
        return _building_value(k, w, command.destination, command.side) - _building_value(
            k, w, command.origin, building.side
        )
    return 0.0


def _best_build(k: Knowledge, w: Weights) -> float:
    """The best the seat could build now (for valuing the builder card in the draft)."""
    unit = _estate_unit(k, w)
    room = k.trading_posts(k.seat) < MAX_TRADING_POSTS
    trading_post = _trading_post_value(k, w)
    best = 0.0
    if k.unplaced_buildings(k.seat):
        if room:
            best = trading_post
        for position in range(RING_SIZE):
            if k.buildings[position] is None:
                best = max(best, unit * _estate_share(k, w, position))
    for position, building in enumerate(k.buildings):
        if building is not None and building.owner == k.seat:
            estate = unit * _estate_share(k, w, position)
            if building.side is BuildingSide.TRADING_POST:
                best = max(best, estate - trading_post)
            elif room:
                best = max(best, trading_post - estate)
    return best


def _first_estate_value(k: Knowledge, command: PlayerCommand) -> float:
    """Setup: an estate under the seat's own house, inland and strong, pays the longest."""
    if not isinstance(command, PlaceFirstEstate):
        return 0.0
    position = command.position
    house = k.houses[position]
    inland = (k.houses[(position - 1) % RING_SIZE] is house) + (
        k.houses[(position + 1) % RING_SIZE] is house
    )
    own = 3.0 if house is k.house else 0.0
    return own + 0.6 * inland + 0.05 * k.card_table[k.kinds[position]].cp


# --- reasons -------------------------------------------------------------------------------


def _where(k: Knowledge, position: int) -> str:
    return f"{k.kinds[position].name.lower()} at {position}"


def _estate_why(k: Knowledge, position: int) -> str:
    """Why an estate here pays (or does not): it draws a card each round its landscape belongs
    to the house its owner backs; land with the same house on both sides is hard to attack."""
    house = k.houses[position]
    if house is not k.house:
        return (
            f"{house.name.title()} land draws nothing while you back "
            f"{k.house.name.title()}, unless it is conquered or you switch sides"
        )
    same = (k.houses[(position - 1) % RING_SIZE] is house) + (
        k.houses[(position + 1) % RING_SIZE] is house
    )
    safety = {
        2: "with your house on both sides it is hard to attack",
        1: "with one neighbour of the other house it can be attacked from there",
        0: "between two landscapes of the other house it is easy to attack",
    }[same]
    return f"a card each round you back {house.name.title()}; {safety}"


def _post_why(k: Knowledge) -> str:
    return (
        f"at the end a trading post scores 1 VP per card in hand, at most "
        f"{CARDS_SCORED_PER_TRADING_POST}, wherever it stands"
    )


def explain(k: Knowledge, command: PlayerCommand, w: Weights = DEFAULT_WEIGHTS) -> str:
    """A short reason for `command`, in the game's words, for the player or the log."""
    match command:
        case PlaySupply(cards=cards):
            side, battle = _supply_battle(k, w)
            chance = battle.win_chance(float(sum(cards)))
            if not cards:
                return f"saves its cards ({chance:.0%} chance {side.name.title()} wins anyway)"
            shown = "+".join(str(c) for c in cards)
            return f"plays {shown} for {side.name.title()} ({chance:.0%} chance to win)"
        case ChooseConflict(first=first, second=second):
            mine, theirs = _side_positions(k, (first, second), k.house)
            backers = sum(1 for house in k.allegiance if house is k.house)
            spec = k.card_table[k.kinds[theirs]]
            return (
                f"{k.house.name.title()} attacks the {_where(k, theirs)} from the "
                f"{_where(k, mine)}: conquered, it gives each of {backers} backers "
                f"{spec.points_for(backers)} VP (its conflict value {spec.cp}, the attacker's "
                f"{k.card_table[k.kinds[mine]].cp})"
            )
        case PickActionCard(card=card):
            if card is ActionCard.TRAITOR:
                return "keeps the traitor: the other house pays more this round"
            return f"keeps {card.name.lower()}: the most expected points"
        case PlaceBuilding(position=position, side=side):
            if side is BuildingSide.ESTATE:
                return f"an estate under the {_where(k, position)}: {_estate_why(k, position)}"
            return f"a trading post under the {_where(k, position)}: {_post_why(k)}"
        case FlipBuilding(position=position):
            building = k.buildings[position]
            if building is not None and building.side is BuildingSide.ESTATE:
                return f"turns its estate under the {_where(k, position)} into a trading post: " + (
                    _post_why(k)
                )
            return f"turns its trading post under the {_where(k, position)} into an estate: " + (
                _estate_why(k, position)
            )
        case MoveBuilding(origin=origin, destination=destination):
            return f"moves its building from {origin} to the {_where(k, destination)}"
        case PassBuild():
            return "builds nothing: no building is worth a card now"
        case DiscardCards(cards=cards):
            return f"discards its lowest cards {', '.join(str(c) for c in cards)}"
        case PlaceFirstEstate(position=position):
            return f"first estate under the {_where(k, position)}: {_estate_why(k, position)}"
    return "the best-scoring legal move"
