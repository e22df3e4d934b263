"""`decide`: the rules of Verräter (shared/RULES.md), one function per rule.

`decide(state, command)` checks a command against the rules and returns the events it causes:
the decision itself and every automatic consequence up to the next decision (or the end of the
game). It raises `RuleViolation` and changes nothing when the command breaks a rule.

The module follows the rulebook: setup, then the phases of a round in order. Who must act is
`turns.py`; the commands a seat may give, `legal.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import (
    ALL_ACTION_CARDS,
    CARDS_SCORED_PER_TRADING_POST,
    DIPLOMAT2_DRAW,
    DRAW_CAP,
    FARMER_DRAW,
    HAND_LIMIT,
    MAX_SUPPLY_PLAYED,
    MAX_TRADING_POSTS,
    RING_SIZE,
    STARTING_HAND,
    STRATEGIST_POINTS,
    SUPPLY_CARDS,
    TRAITOR_POINTS,
    ActionCard,
    BuildingSide,
    House,
    LandscapeType,
)
from .commands import (
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    ChooseConflict,
    Command,
    CreateGame,
    DiscardCards,
    FlipBuilding,
    MoveBuilding,
    PassBuild,
    PickActionCard,
    PlaceBuilding,
    PlaceFirstEstate,
    PlayerCommand,
    PlaySupply,
    valid_turn_seconds,
)
from .errors import RuleViolation, ViolationCode
from .events import (
    ActionCardPicked,
    ActionCardsDealt,
    ActionCardsRevealed,
    AllegianceSwitched,
    BuildingFlipped,
    BuildingMoved,
    BuildingPlaced,
    BuildPassed,
    CardsDiscarded,
    CardsDrawn,
    ConflictChosen,
    ConflictResolved,
    DiscardPileReshuffled,
    DrawReason,
    Event,
    ExplicitSetup,
    FirstEstatePlaced,
    GameCreated,
    GameEnded,
    LandscapeFlipped,
    Phase,
    PhaseBegan,
    PointsAwarded,
    RingLaidOut,
    RoundEnded,
    RoundStarted,
    ScoreReason,
    StartPlayerChosen,
    StrategistAssigned,
    SupplyDealt,
    SupplyDiscarded,
    SupplyPlayed,
)
from .rng import commitment, shuffled
from .state import GameState, evolve, fold, remove_cards
from .strength import conflict_strengths
from .turns import at_rest, to_act

#: The phase each player command belongs to.
PHASE_OF_COMMAND: dict[type, Phase] = {
    PlaceFirstEstate: Phase.FIRST_ESTATES,
    ChooseConflict: Phase.CONFLICT,
    PickActionCard: Phase.DRAFT,
    PlaySupply: Phase.SUPPLY,
    PlaceBuilding: Phase.BUILD,
    FlipBuilding: Phase.BUILD,
    MoveBuilding: Phase.BUILD,
    PassBuild: Phase.BUILD,
    DiscardCards: Phase.HAND_LIMIT,
}


# --- decide --------------------------------------------------------------------------------


def decide(state: GameState, command: Command) -> list[Event]:
    """The events a command causes, or RuleViolation if the rules forbid it."""
    return execute(state, command)[0]


def execute(state: GameState, command: Command) -> tuple[list[Event], GameState]:
    """`decide` and the state after its events, folded once (the fast path for callers)."""
    events, states = execute_steps(state, command)
    return events, states[-1]


def advance(state: GameState, command: Command) -> GameState:
    """`execute(state, command)[1]` without its events or the states on the way: the state is
    copied once per batch of events (the command's, then each automatic phase's) instead of
    once per event. For searches, whose playouts ask only where a move leads."""
    state = fold(_command_events(state, command), state)
    while not at_rest(state):
        state = fold(_AUTOMATIC[state.phase](state), state)
    return state


def execute_steps(state: GameState, command: Command) -> tuple[list[Event], list[GameState]]:
    """`decide` and every state on the way, folded once: `states[i]` is the state event `i`
    applies to, and `states[-1]` the state after the last. For callers that show each event
    against the state before it (a seat's redacted events, live watchers), which would
    otherwise fold the batch again."""
    first = _command_events(state, command)
    events: list[Event] = []
    states = [state]
    for event in first:
        state = evolve(state, event)
        events.append(event)
        states.append(state)
    # Run the automatic phases until someone must decide or the game is over.
    while not at_rest(state):
        for event in _AUTOMATIC[state.phase](state):
            state = evolve(state, event)
            events.append(event)
            states.append(state)
    return events, states


def _command_events(state: GameState, command: Command) -> list[Event]:
    """The events the command itself causes (before any automatic phase), or RuleViolation."""
    if isinstance(command, CreateGame):
        return _create_game(state, command)
    return _decide_player_command(state, command)


def _violation(code: ViolationCode, message: str, field: str = "") -> RuleViolation:
    return RuleViolation(code, message, field)


def _decide_player_command(state: GameState, command: PlayerCommand) -> list[Event]:
    if state.ruleset is None:
        raise _violation(ViolationCode.GAME_NOT_STARTED, "the game has not been created")
    if state.phase is Phase.GAME_OVER:
        raise _violation(ViolationCode.GAME_OVER, "the game is over")
    if not 0 <= command.seat < len(state.vp):
        raise _violation(
            ViolationCode.INVALID_SEAT, f"seat {command.seat} is not in this game", "seat"
        )
    wanted = PHASE_OF_COMMAND[type(command)]
    if state.phase is not wanted:
        raise _violation(
            ViolationCode.WRONG_PHASE,
            f"it is the {state.phase.name.lower()} phase; "
            f"{type(command).__name__} belongs to the {wanted.name.lower()} phase",
        )
    if command.seat not in to_act(state):
        raise _violation(
            ViolationCode.NOT_YOUR_TURN,
            f"seat {command.seat} is not to act now (waiting for seats {list(to_act(state))})",
            "seat",
        )
    match command:
        case PlaceFirstEstate():
            return [_place_first_estate(state, command)]
        case ChooseConflict():
            return [_choose_conflict(state, command)]
        case PickActionCard():
            return [_pick_action_card(state, command)]
        case PlaySupply():
            return [_play_supply(state, command)]
        case PlaceBuilding():
            return [_place_building(state, command)]
        case FlipBuilding():
            return [_flip_building(state, command)]
        case MoveBuilding():
            return [_move_building(state, command)]
        case PassBuild():
            return [BuildPassed(command.seat)]
        case DiscardCards():
            return [_discard_cards(state, command)]


def _check_position(position: int, field: str) -> None:
    if not 0 <= position < RING_SIZE:
        raise _violation(
            ViolationCode.INVALID_POSITION,
            f"landscape position {position} is outside the ring 0..{RING_SIZE - 1}",
            field,
        )


def _check_free(state: GameState, position: int, field: str) -> None:
    _check_position(position, field)
    if state.buildings[position] is not None:
        raise _violation(
            ViolationCode.LANDSCAPE_OCCUPIED,
            f"landscape {position} already holds a building",
            field,
        )


def _check_trading_post_room(state: GameState, seat: int, already: int) -> None:
    if already >= MAX_TRADING_POSTS:
        raise _violation(
            ViolationCode.TRADING_POST_LIMIT,
            f"seat {seat} already has {MAX_TRADING_POSTS} trading posts in play",
            "side",
        )


def _take_from_hand(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    rest = remove_cards(hand, cards)
    if rest is None:
        raise _violation(
            ViolationCode.CARD_NOT_IN_HAND,
            f"cards {list(cards)} are not all in your hand {list(hand)}",
            "cards",
        )
    return rest


# --- setup ---------------------------------------------------------------------------------


def _create_game(state: GameState, command: CreateGame) -> list[Event]:
    if state.ruleset is not None:
        raise _violation(ViolationCode.GAME_ALREADY_STARTED, "the game already exists")
    if command.setup is not None:
        _validate_setup(command.setup, command.ruleset.players)
    if not valid_turn_seconds(command.turn_seconds):
        raise _violation(
            ViolationCode.INVALID_SETUP,
            f"turn_seconds must be 0 (no timer) or {MIN_TURN_SECONDS}-{MAX_TURN_SECONDS}",
            "turn_seconds",
        )
    if command.seats and len(command.seats) != command.ruleset.players:
        raise _violation(
            ViolationCode.INVALID_SETUP,
            f"{len(command.seats)} seat assignments for {command.ruleset.players} players",
            "seats",
        )
    return [
        GameCreated(
            ruleset=command.ruleset,
            seed_commitment=commitment(command.seed),
            seed=command.seed,
            setup=command.setup,
            seats=command.seats,
            ranked=command.ranked,
            turn_seconds=command.turn_seconds,
        )
    ]


def _ring_cards() -> tuple[tuple[LandscapeType, House], ...]:
    """One card of each type Eagle side up, the other Rose side up."""
    return tuple((kind, house) for house in House for kind in LandscapeType)


def _deck_cards(players: int) -> tuple[int, ...]:
    """The supply cards left for the draw pile once every player has 3, 4 and 5 (sorted)."""
    rest = list(SUPPLY_CARDS)
    for _ in range(players):
        for card in STARTING_HAND:
            rest.remove(card)
    return tuple(sorted(rest))


def _validate_setup(setup: ExplicitSetup, players: int) -> None:
    if setup.start_player is not None and not 0 <= setup.start_player < players:
        raise _violation(ViolationCode.INVALID_SETUP, "start player is not a seat", "start_player")
    if setup.ring is not None and sorted(setup.ring) != sorted(_ring_cards()):
        raise _violation(
            ViolationCode.INVALID_SETUP,
            "the ring must hold each landscape type once per house",
            "ring",
        )
    if setup.deck is not None and tuple(sorted(setup.deck)) != _deck_cards(players):
        raise _violation(
            ViolationCode.INVALID_SETUP,
            f"the deck must be the {len(_deck_cards(players))} supply cards left after dealing",
            "deck",
        )


def _setup(state: GameState) -> list[Event]:
    """Setup 1-4: start player and allegiances, the ring, supply, the strategist."""
    rules = state.rules
    n = rules.players
    setup = state.setup or ExplicitSetup()
    start = (
        setup.start_player
        if setup.start_player is not None
        else shuffled(state.seed, "start-player", range(n))[0]
    )
    allegiances = tuple(
        House.EAGLE if (seat - start) % n % 2 == 0 else House.ROSE for seat in range(n)
    )
    ring = setup.ring if setup.ring is not None else shuffled(state.seed, "ring", _ring_cards())
    deck = setup.deck if setup.deck is not None else shuffled(state.seed, "supply", _deck_cards(n))
    return [
        StartPlayerChosen(start, allegiances),
        RingLaidOut(ring),
        SupplyDealt((STARTING_HAND,) * n, len(deck), deck),
        StrategistAssigned((start + 1) % n),
        PhaseBegan(Phase.FIRST_ESTATES),
    ]


def _place_first_estate(state: GameState, command: PlaceFirstEstate) -> Event:
    _check_free(state, command.position, "position")
    return FirstEstatePlaced(command.seat, command.position)


def _first_round(state: GameState) -> list[Event]:
    return [RoundStarted(1, state.start_player)]


# --- phases 1-3: conflict, draft, supply -------------------------------------------------------


def are_adjacent(first: int, second: int) -> bool:
    """Ring neighbours: position i touches i-1 and i+1 (mod 12)."""
    return (first - second) % RING_SIZE in (1, RING_SIZE - 1)


def _choose_conflict(state: GameState, command: ChooseConflict) -> Event:
    _check_position(command.first, "first")
    _check_position(command.second, "second")
    if not are_adjacent(command.first, command.second):
        raise _violation(
            ViolationCode.NOT_ADJACENT,
            f"landscapes {command.first} and {command.second} are not neighbours in the ring",
            "second",
        )
    if state.houses[command.first] is state.houses[command.second]:
        raise _violation(
            ViolationCode.SAME_HOUSE,
            f"landscapes {command.first} and {command.second} both belong to "
            f"{state.houses[command.first].name.title()}",
            "second",
        )
    return ConflictChosen(command.seat, command.first, command.second)


def _deal_action_cards(state: GameState) -> list[Event]:
    """Phase 2: shuffle the six action cards; set the top one aside, offer the rest."""
    explicit = state.setup.set_aside if state.setup is not None else None
    if explicit is not None and state.round <= len(explicit):
        set_aside = explicit[state.round - 1]
        offered = tuple(card for card in ALL_ACTION_CARDS if card is not set_aside)
    else:
        order = shuffled(state.seed, f"draft:{state.round}", ALL_ACTION_CARDS)
        set_aside, offered = order[0], order[1:]
    # Dealt first: the state is at rest (someone to act) only once the phase has begun.
    return [ActionCardsDealt(set_aside, offered), PhaseBegan(Phase.DRAFT)]


def _pick_action_card(state: GameState, command: PickActionCard) -> Event:
    if command.card not in state.pool:
        raise _violation(
            ViolationCode.CARD_NOT_OFFERED,
            f"{command.card.name.lower()} is not among the cards offered to you",
            "card",
        )
    return ActionCardPicked(command.seat, command.card)


def _begin_supply(state: GameState) -> list[Event]:
    return [PhaseBegan(Phase.SUPPLY)]


def _play_supply(state: GameState, command: PlaySupply) -> Event:
    if len(command.cards) > MAX_SUPPLY_PLAYED:
        raise _violation(
            ViolationCode.TOO_MANY_CARDS,
            f"at most {MAX_SUPPLY_PLAYED} supply cards may be played, not {len(command.cards)}",
            "cards",
        )
    _take_from_hand(state.hands[command.seat], command.cards)
    return SupplyPlayed(command.seat, tuple(sorted(command.cards)))


# --- phases 4-6: reveal, resolve, score ----------------------------------------------------


def _reveal_resolve_score(state: GameState) -> list[Event]:
    """Phases 4-6. Runs on the state after the last supply card was played."""
    events: list[Event] = [ActionCardsRevealed(state.picks)]
    traitor = state.holder(ActionCard.TRAITOR)
    if traitor is not None:
        switch = AllegianceSwitched(traitor, state.allegiance[traitor].other)
        events.append(switch)
        # The switch counts at once: resolve against the state that includes it.
        state = evolve(evolve(state, events[0]), switch)
    eagle_strength, rose_strength = conflict_strengths(state)
    eagle, rose = eagle_strength.total, rose_strength.total
    winner = House.EAGLE if eagle > rose else House.ROSE if rose > eagle else None
    events.append(ConflictResolved(eagle, rose, winner))
    if winner is not None:
        loser_at = rose_strength.position if winner is House.EAGLE else eagle_strength.position
        backers = [seat for seat, house in enumerate(state.allegiance) if house is winner]
        if backers:
            points = state.rules.card_table[state.kinds[loser_at]].points_for(len(backers))
            events.extend(PointsAwarded(seat, points, ScoreReason.CONQUEST) for seat in backers)
        events.append(LandscapeFlipped(loser_at, winner))
    if traitor is not None:
        events.append(PointsAwarded(traitor, TRAITOR_POINTS, ScoreReason.TRAITOR))
    strategist = state.holder(ActionCard.STRATEGIST)
    if strategist is not None:
        events.append(PointsAwarded(strategist, STRATEGIST_POINTS, ScoreReason.STRATEGIST))
    events.append(PhaseBegan(Phase.BUILD))
    return events


# --- phase 7: build ------------------------------------------------------------------------


def _place_building(state: GameState, command: PlaceBuilding) -> Event:
    _check_free(state, command.position, "position")
    if state.unplaced_buildings(command.seat) == 0:
        raise _violation(
            ViolationCode.NO_BUILDING_LEFT, "all your building cards are already in play"
        )
    if command.side is BuildingSide.TRADING_POST:
        _check_trading_post_room(state, command.seat, state.trading_posts(command.seat))
    return BuildingPlaced(command.seat, command.position, command.side)


def _own_building(state: GameState, seat: int, position: int, field: str) -> BuildingSide:
    _check_position(position, field)
    building = state.buildings[position]
    if building is None or building.owner != seat:
        raise _violation(
            ViolationCode.NOT_YOUR_BUILDING,
            f"landscape {position} holds no building of yours",
            field,
        )
    return building.side


def _flip_building(state: GameState, command: FlipBuilding) -> Event:
    side = _own_building(state, command.seat, command.position, "position")
    new_side = (
        BuildingSide.ESTATE if side is BuildingSide.TRADING_POST else BuildingSide.TRADING_POST
    )
    if new_side is BuildingSide.TRADING_POST:
        _check_trading_post_room(state, command.seat, state.trading_posts(command.seat))
    return BuildingFlipped(command.seat, command.position, new_side)


def _move_building(state: GameState, command: MoveBuilding) -> Event:
    if not state.rules.builder_may_move:
        raise _violation(
            ViolationCode.VARIANT_DISABLED,
            "buildings never move (the builder_may_move variant is off in this game)",
        )
    side = _own_building(state, command.seat, command.origin, "origin")
    _check_free(state, command.destination, "destination")
    if command.side is BuildingSide.TRADING_POST:
        others = state.trading_posts(command.seat) - (side is BuildingSide.TRADING_POST)
        _check_trading_post_room(state, command.seat, others)
    return BuildingMoved(command.seat, command.origin, command.destination, command.side)


# --- phases 8-10: strategist, discard, draw ----------------------------------------------------


def _strategist_discard_draw(state: GameState) -> list[Event]:
    """Phases 8-10 up to the hand limit. Runs on the state after the build phase."""
    events: list[Event] = []
    strategist = state.holder(ActionCard.STRATEGIST)
    if strategist is not None:
        events.append(StrategistAssigned(strategist))
    played = tuple(card for cards in state.played if cards for card in cards)
    if played:
        events.append(SupplyDiscarded(played))
    deck = list(state.deck)
    discard = list(state.discard + played)
    reshuffles = state.reshuffles
    drawn = [0] * len(state.vp)

    def draw(seat: int, wanted: int, reason: DrawReason) -> None:
        nonlocal deck, discard, reshuffles
        wanted = min(wanted, DRAW_CAP - drawn[seat])
        while wanted > 0:
            if not deck:
                if not discard:
                    return
                order = shuffled(state.seed, f"reshuffle:{reshuffles}", sorted(discard))
                events.append(DiscardPileReshuffled(len(order), order))
                deck, discard = list(order), []
                reshuffles += 1
            cards = tuple(deck[:wanted])
            del deck[:wanted]
            events.append(CardsDrawn(seat, len(cards), cards, reason))
            drawn[seat] += len(cards)
            wanted -= len(cards)

    farmer = state.holder(ActionCard.FARMER)
    if farmer is not None:
        draw(farmer, FARMER_DRAW, DrawReason.FARMER)
    for index in range(len(state.vp)):
        seat = state.seat_in_turn(index)
        if seat != farmer:
            estates = state.productive_estates(seat)
            if estates:
                draw(seat, estates, DrawReason.ESTATES)
    diplomat2 = state.holder(ActionCard.DIPLOMAT2)
    if diplomat2 is not None:
        draw(diplomat2, DIPLOMAT2_DRAW, DrawReason.DIPLOMAT2)
    events.append(PhaseBegan(Phase.HAND_LIMIT))
    return events


def _discard_cards(state: GameState, command: DiscardCards) -> Event:
    hand = state.hands[command.seat]
    excess = len(hand) - HAND_LIMIT
    if len(command.cards) != excess:
        raise _violation(
            ViolationCode.WRONG_DISCARD_COUNT,
            f"you hold {len(hand)} cards and must discard exactly {excess}",
            "cards",
        )
    _take_from_hand(hand, command.cards)
    return CardsDiscarded(command.seat, tuple(sorted(command.cards)))


# --- phases 11-12 and the end ----------------------------------------------------------------


def _end_round(state: GameState) -> list[Event]:
    """Phases 11-12, then the next round or the end of the game."""
    n = len(state.vp)
    next_start = (state.start_player + 1) % n
    events: list[Event] = [RoundEnded(state.round, next_start)]
    one_house = len(set(state.houses)) == 1
    if state.round < state.rules.rounds and not one_house:
        events.append(RoundStarted(state.round + 1, next_start))
        return events
    final_vp = list(state.vp)
    for seat in range(n):
        cards = min(CARDS_SCORED_PER_TRADING_POST, len(state.hands[seat]))
        points = state.trading_posts(seat) * cards
        if points:
            events.append(PointsAwarded(seat, points, ScoreReason.TRADING_POSTS))
            final_vp[seat] += points
    best = max(final_vp)
    winners = tuple(seat for seat in range(n) if final_vp[seat] == best)
    events.append(GameEnded(tuple(final_vp), winners, state.seed, early=one_house))
    return events


def competition_ranks(final_vp: Sequence[int]) -> tuple[int, ...]:
    """Rank per seat from final VP, most VP first; ties share the better rank (1, 1, 3), so
    the winners of `GameEnded` are exactly the seats of rank 1."""
    return tuple(1 + sum(other > vp for other in final_vp) for vp in final_vp)


_AUTOMATIC = {
    Phase.SETUP: _setup,
    Phase.FIRST_ESTATES: _first_round,
    Phase.CONFLICT: _deal_action_cards,
    Phase.DRAFT: _begin_supply,
    Phase.SUPPLY: _reveal_resolve_score,
    Phase.BUILD: _strategist_discard_draw,
    Phase.HAND_LIMIT: _end_round,
}
