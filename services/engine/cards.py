"""The components of Verräter and the ruleset a game is played with.

Card numbers live in one data file (`data/landscapes.json`, mirroring shared/LANDSCAPES.md);
this module turns it into typed values. A `Ruleset` is everything that decides how a game is
played (player count, rounds, variants, card table); it is recorded in the game's first event so
a replay uses the numbers the game was played with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from pathlib import Path
from typing import Any


class House(IntEnum):
    """The two princely houses. Players back one of them at a time."""

    EAGLE = 0
    ROSE = 1

    @property
    def other(self) -> House:
        return House.ROSE if self is House.EAGLE else House.EAGLE


class LandscapeType(IntEnum):
    """The six landscape types, in rising conflict value."""

    WASTELAND = 0
    MEADOW = 1
    RIVER = 2
    FOREST = 3
    VILLAGE = 4
    CITY = 5


class ActionCard(IntEnum):
    """The six action cards drafted every round."""

    TRAITOR = 0
    DIPLOMAT2 = 1
    DIPLOMAT5 = 2
    BUILDER = 3
    STRATEGIST = 4
    FARMER = 5


class BuildingSide(IntEnum):
    """A building card is double-sided: estate (Gutshof) or trading post (Kontor)."""

    ESTATE = 0
    TRADING_POST = 1


ALL_ACTION_CARDS: tuple[ActionCard, ...] = tuple(ActionCard)

#: The 23 supply cards: 2 x5, 3 x5, 4 x5, 5 x5, 6 x2, 8 x1 (sum 90).
SUPPLY_CARDS: tuple[int, ...] = (2,) * 5 + (3,) * 5 + (4,) * 5 + (5,) * 5 + (6,) * 2 + (8,)
#: Every player starts with one 3, one 4 and one 5.
STARTING_HAND: tuple[int, ...] = (3, 4, 5)
BUILDINGS_PER_PLAYER = 3
MAX_TRADING_POSTS = 2
#: Final scoring: each trading post in play scores the cards in its owner's hand, at most 3.
CARDS_SCORED_PER_TRADING_POST = 3
HAND_LIMIT = 5
DRAW_CAP = 3
MAX_SUPPLY_PLAYED = 5
RING_SIZE = 12
DIPLOMAT_BONUS: dict[ActionCard, int] = {ActionCard.DIPLOMAT2: 2, ActionCard.DIPLOMAT5: 5}
TRAITOR_POINTS = 1
STRATEGIST_POINTS = 2
#: Phase 10: the farmer draws this many (and nothing for estates), the diplomat2 one more.
FARMER_DRAW = DRAW_CAP
DIPLOMAT2_DRAW = 1
ROUNDS_BY_PLAYERS: dict[int, int] = {3: 9, 4: 8}
#: The numbers of players Verräter is played by, and the same for a message.
PLAYER_COUNTS: tuple[int, ...] = tuple(ROUNDS_BY_PLAYERS)
PLAYER_COUNTS_TEXT = " or ".join(str(players) for players in PLAYER_COUNTS)


@dataclass(frozen=True, slots=True)
class LandscapeSpec:
    """One landscape type's printed numbers: conflict points and the victory-point scale."""

    type: LandscapeType
    german: str
    cp: int
    vp: tuple[int, int, int, int]
    provisional: tuple[bool, bool, bool, bool]
    #: True while the conflict value is a reconstruction (shared/LANDSCAPES.md).
    cp_provisional: bool = False

    def points_for(self, winners: int) -> int:
        """VP each winner gains when this landscape is conquered by `winners` players."""
        return self.vp[winners - 1]


@dataclass(frozen=True, slots=True)
class CardTable:
    """The landscape table in force: one spec per landscape type, indexed by the type."""

    name: str
    landscapes: tuple[LandscapeSpec, ...]

    def __getitem__(self, kind: LandscapeType) -> LandscapeSpec:
        return self.landscapes[kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "landscapes": [
                {
                    "type": spec.type.name.lower(),
                    "german": spec.german,
                    "cp": spec.cp,
                    "vp": list(spec.vp),
                    "provisional": list(spec.provisional),
                    "cp_provisional": spec.cp_provisional,
                }
                for spec in self.landscapes
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardTable:
        """A validated card table: exactly one entry per landscape type, 4 VP cells each."""
        specs: dict[LandscapeType, LandscapeSpec] = {}
        for entry in data["landscapes"]:
            kind = LandscapeType[str(entry["type"]).upper()]
            vp = tuple(int(v) for v in entry["vp"])
            provisional = tuple(bool(p) for p in entry.get("provisional", [False] * 4))
            if len(vp) != 4 or len(provisional) != 4:
                raise ValueError(f"landscape {kind.name.lower()}: vp needs 4 cells")
            if kind in specs:
                raise ValueError(f"landscape {kind.name.lower()} listed twice")
            specs[kind] = LandscapeSpec(
                type=kind,
                german=str(entry.get("german", "")),
                cp=int(entry["cp"]),
                vp=(vp[0], vp[1], vp[2], vp[3]),
                provisional=(provisional[0], provisional[1], provisional[2], provisional[3]),
                cp_provisional=bool(entry.get("cp_provisional", False)),
            )
        missing = [k.name.lower() for k in LandscapeType if k not in specs]
        if missing:
            raise ValueError(f"card table lacks landscapes: {', '.join(missing)}")
        return cls(
            name=str(data.get("name", "custom")), landscapes=tuple(specs[k] for k in LandscapeType)
        )


def load_card_table(path: str | Path | None = None) -> CardTable:
    """Load a card table from a JSON file; the bundled 1998 table when no path is given."""
    if path is None:
        text = resources.files(__package__).joinpath("data/landscapes.json").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    return CardTable.from_dict(json.loads(text))


DEFAULT_CARD_TABLE = load_card_table()


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Everything that decides how one game is played; recorded in the game's first event."""

    players: int
    rounds: int
    builder_may_move: bool
    card_table: CardTable

    @classmethod
    def standard(
        cls,
        players: int,
        *,
        builder_may_move: bool = False,
        card_table: CardTable = DEFAULT_CARD_TABLE,
    ) -> Ruleset:
        """The published rules for 3 or 4 players (9 or 8 rounds)."""
        if players not in ROUNDS_BY_PLAYERS:
            raise ValueError(f"Verräter is played by {PLAYER_COUNTS_TEXT} players, not {players}")
        return cls(players, ROUNDS_BY_PLAYERS[players], builder_may_move, card_table)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rounds": self.rounds,
            "builder_may_move": self.builder_may_move,
            "card_table": self.card_table.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        return cls(
            players=int(data["players"]),
            rounds=int(data["rounds"]),
            builder_may_move=bool(data["builder_may_move"]),
            card_table=CardTable.from_dict(data["card_table"]),
        )


@dataclass(frozen=True, slots=True)
class ActionCardSpec:
    """What an action card does (RULES.md phases 4-10), as data a client can print: derived
    from the constants the rules use, so it cannot say something the rules do not do."""

    card: ActionCard
    german: str
    conflict_points: int = 0
    victory_points: int = 0
    cards_drawn: int = 0
    switches_house: bool = False
    takes_strategist: bool = False
    builds: bool = False
    replaces_estate_draw: bool = False


ACTION_CARD_SPECS: tuple[ActionCardSpec, ...] = (
    ActionCardSpec(
        ActionCard.TRAITOR, "Verräter", victory_points=TRAITOR_POINTS, switches_house=True
    ),
    ActionCardSpec(
        ActionCard.DIPLOMAT2,
        "Diplomat +2",
        conflict_points=DIPLOMAT_BONUS[ActionCard.DIPLOMAT2],
        cards_drawn=DIPLOMAT2_DRAW,
    ),
    ActionCardSpec(
        ActionCard.DIPLOMAT5, "Diplomat +5", conflict_points=DIPLOMAT_BONUS[ActionCard.DIPLOMAT5]
    ),
    ActionCardSpec(ActionCard.BUILDER, "Baumeister", builds=True),
    ActionCardSpec(
        ActionCard.STRATEGIST,
        "Stratege",
        victory_points=STRATEGIST_POINTS,
        takes_strategist=True,
    ),
    ActionCardSpec(ActionCard.FARMER, "Bauer", cards_drawn=FARMER_DRAW, replaces_estate_draw=True),
)
