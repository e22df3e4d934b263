"""The Verräter rules engine: a pure decider with no I/O.

`decide(state, command) -> events`, `evolve(state, event) -> state`, `initial_state()`,
`legal_commands(state, seat)`, `whose_turn(state)`, `view(state, seat)`. Game state is only ever
the fold of its events; see shared/RULES.md for the rules and shared/ARCHITECTURE.md for why.
"""

from .buildings import Building, productive_estates, trading_posts, unplaced_buildings
from .cards import (
    DEFAULT_CARD_TABLE,
    PLAYER_COUNTS,
    PLAYER_COUNTS_TEXT,
    ActionCard,
    BuildingSide,
    CardTable,
    House,
    LandscapeSpec,
    LandscapeType,
    Ruleset,
    load_card_table,
)
from .commands import (
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
)
from .errors import RuleViolation, ViolationCode
from .events import (
    DECISION_EVENTS,
    DrawReason,
    Event,
    ExplicitSetup,
    Phase,
    ScoreReason,
    SeatAssignment,
    deciding_seat,
)
from .infoset import sample_state
from .legal import legal_commands
from .rules import decide, execute
from .state import (
    ConflictSummary,
    GameState,
    evolve,
    fold,
    initial_state,
    supply_count,
)
from .turns import DecisionKind, Turn, at_rest, to_act, whose_turn
from .view import LandscapeView, PlayerView, SeatView, redact_event, view

__all__ = [
    "DECISION_EVENTS",
    "DEFAULT_CARD_TABLE",
    "PLAYER_COUNTS",
    "PLAYER_COUNTS_TEXT",
    "ActionCard",
    "Building",
    "BuildingSide",
    "CardTable",
    "ChooseConflict",
    "Command",
    "ConflictSummary",
    "CreateGame",
    "DecisionKind",
    "DiscardCards",
    "DrawReason",
    "Event",
    "ExplicitSetup",
    "FlipBuilding",
    "GameState",
    "House",
    "LandscapeSpec",
    "LandscapeType",
    "LandscapeView",
    "MoveBuilding",
    "PassBuild",
    "Phase",
    "PickActionCard",
    "PlaceBuilding",
    "PlaceFirstEstate",
    "PlaySupply",
    "PlayerCommand",
    "PlayerView",
    "RuleViolation",
    "Ruleset",
    "ScoreReason",
    "SeatAssignment",
    "SeatView",
    "Turn",
    "ViolationCode",
    "at_rest",
    "decide",
    "deciding_seat",
    "evolve",
    "execute",
    "fold",
    "initial_state",
    "legal_commands",
    "load_card_table",
    "productive_estates",
    "redact_event",
    "sample_state",
    "supply_count",
    "to_act",
    "trading_posts",
    "unplaced_buildings",
    "view",
    "whose_turn",
]
