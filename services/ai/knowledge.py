"""What one seat knows, flattened into tuples the bots can evaluate quickly.

The heuristic decides from a `Knowledge`. A real decision builds it from the seat's
`PlayerView`; a search bot builds one for every simulated seat of its own sampled state
(`from_sampled_state`), taking only what that seat could see there. Both go through the same
fields, so the heuristic is one piece of code whether it plays a real game or a simulated one.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.engine import (
    ActionCard,
    Building,
    CardTable,
    GameState,
    House,
    LandscapeType,
    Phase,
    PlayerCommand,
    PlayerView,
    Ruleset,
    productive_estates,
    to_act,
    trading_posts,
    unplaced_buildings,
)


class Knowledge:
    """One seat's information set, as flat tuples indexed by seat or ring position."""

    __slots__ = (
        "allegiance",
        "buildings",
        "card_table",
        "conflict",
        "hand",
        "hand_counts",
        "houses",
        "kinds",
        "legal",
        "offered",
        "phase",
        "pick",
        "picks_revealed",
        "played",
        "players",
        "round",
        "rounds",
        "seat",
        "start_player",
        "strategist",
        "vp",
    )

    seat: int
    players: int
    phase: Phase
    round: int
    rounds: int
    start_player: int
    strategist: int
    kinds: tuple[LandscapeType, ...]
    houses: tuple[House, ...]
    buildings: tuple[Building | None, ...]
    allegiance: tuple[House, ...]
    vp: tuple[int, ...]
    hand: tuple[int, ...]
    hand_counts: tuple[int, ...]
    played: tuple[tuple[int, ...] | None, ...]
    pick: ActionCard | None
    picks_revealed: bool
    offered: tuple[ActionCard, ...]
    conflict: tuple[int, int] | None
    legal: Sequence[PlayerCommand]
    card_table: CardTable

    @classmethod
    def from_view(cls, view: PlayerView, ruleset: Ruleset) -> Knowledge:
        """What the seat of a real game knows: exactly its view."""
        if view.seat is None:
            raise ValueError("a spectator has no seat to decide for")
        k = cls.__new__(cls)
        k.seat = view.seat
        k.players = len(view.seats)
        k.phase = view.phase
        k.round = view.round
        k.rounds = view.rounds
        k.start_player = view.start_player
        k.strategist = view.strategist
        k.kinds = tuple(landscape.type for landscape in view.ring)
        k.houses = tuple(landscape.house for landscape in view.ring)
        k.buildings = view.buildings()
        k.allegiance = tuple(s.house for s in view.seats)
        k.vp = tuple(s.vp for s in view.seats)
        k.hand = view.hand if view.hand is not None else ()
        k.hand_counts = tuple(s.hand_count for s in view.seats)
        k.played = tuple(s.played for s in view.seats)
        k.pick = view.pick
        k.picks_revealed = any(s.revealed_pick is not None for s in view.seats)
        k.offered = view.offered if view.offered is not None else ()
        k.conflict = view.conflict
        k.legal = view.legal
        k.card_table = ruleset.card_table
        return k

    @classmethod
    def from_sampled_state(
        cls, state: GameState, seat: int, legal: Sequence[PlayerCommand]
    ) -> Knowledge:
        """What `seat` would know in a bot's *sampled* state (never the real game's state).

        Reads only the fields `view(state, seat)` would show, without building the view: the
        search calls this for every simulated decision, and the view costs ten times as much.
        """
        k = cls.__new__(cls)
        k.seat = seat
        k.players = len(state.vp)
        k.phase = state.phase
        k.round = state.round
        k.rounds = state.rules.rounds
        k.start_player = state.start_player
        k.strategist = state.strategist
        k.kinds = state.kinds
        k.houses = state.houses
        k.buildings = state.buildings
        k.allegiance = state.allegiance
        k.vp = state.vp
        k.hand = state.hands[seat]
        k.hand_counts = tuple(len(hand) for hand in state.hands)
        k.played = state.played
        k.pick = state.picks[seat]
        k.picks_revealed = state.revealed
        # The draft's cards are seen by the seat whose pick it is, and by no other.
        drafting = state.phase is Phase.DRAFT and to_act(state) == (seat,)
        k.offered = state.pool if drafting else ()
        k.conflict = state.conflict
        k.legal = legal
        k.card_table = state.rules.card_table
        return k

    # --- derived facts ---------------------------------------------------------------------

    @property
    def house(self) -> House:
        """The house this seat backs now."""
        return self.allegiance[self.seat]

    @property
    def last_round(self) -> bool:
        return self.round >= self.rounds

    def draw_phases_left(self) -> int:
        """Draw phases still to come, this round's included while it has not happened."""
        if self.phase is Phase.GAME_OVER:
            return 0
        before_draw = self.phase is not Phase.HAND_LIMIT
        # Before round 1 (the first estates) the round is 0, and every round's draw is to come.
        return self.rounds - max(self.round, 1) + (1 if before_draw else 0)

    def trading_posts(self, seat: int) -> int:
        return trading_posts(self.buildings, seat)

    def unplaced_buildings(self, seat: int) -> int:
        return unplaced_buildings(self.buildings, seat)

    def productive_estates(self, seat: int, house: House) -> int:
        """Estates of `seat` under landscapes of `house` (they give cards to backers of it)."""
        return productive_estates(self.buildings, self.houses, seat, house)
