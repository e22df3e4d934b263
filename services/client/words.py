"""The game in words: names of things, commands as options, the status line, and reading what
a person types back into a command.

Everything here is pure (protobuf messages in, strings or commands out), so it is tested without
a server.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.api.verrater.v1 import cards_pb2, commands_pb2, events_pb2, view_pb2

HOUSES: dict[int, str] = {cards_pb2.HOUSE_EAGLE: "Eagle", cards_pb2.HOUSE_ROSE: "Rose"}
LANDSCAPES: dict[int, str] = {
    cards_pb2.LANDSCAPE_TYPE_WASTELAND: "wasteland",
    cards_pb2.LANDSCAPE_TYPE_MEADOW: "meadow",
    cards_pb2.LANDSCAPE_TYPE_RIVER: "river",
    cards_pb2.LANDSCAPE_TYPE_FOREST: "forest",
    cards_pb2.LANDSCAPE_TYPE_VILLAGE: "village",
    cards_pb2.LANDSCAPE_TYPE_CITY: "city",
}
ACTIONS: dict[int, str] = {
    cards_pb2.ACTION_CARD_TRAITOR: "traitor",
    cards_pb2.ACTION_CARD_DIPLOMAT2: "diplomat 2",
    cards_pb2.ACTION_CARD_DIPLOMAT5: "diplomat 5",
    cards_pb2.ACTION_CARD_BUILDER: "builder",
    cards_pb2.ACTION_CARD_STRATEGIST: "strategist",
    cards_pb2.ACTION_CARD_FARMER: "farmer",
}
SIDES: dict[int, str] = {
    cards_pb2.BUILDING_SIDE_ESTATE: "estate",
    cards_pb2.BUILDING_SIDE_TRADING_POST: "trading post",
}
PHASES: dict[int, str] = {
    events_pb2.PHASE_SETUP: "setup",
    events_pb2.PHASE_FIRST_ESTATES: "setup: first estates",
    events_pb2.PHASE_CONFLICT: "phase 1: conflict",
    events_pb2.PHASE_DRAFT: "phase 2: draft",
    events_pb2.PHASE_SUPPLY: "phase 3: supply",
    events_pb2.PHASE_BUILD: "phase 7: build",
    events_pb2.PHASE_HAND_LIMIT: "phase 10: hand limit",
    events_pb2.PHASE_GAME_OVER: "game over",
}
#: What a seat asked for a decision must do, as the end of "X must ..." / "your turn: ...".
DECISIONS: dict[int, str] = {
    view_pb2.DECISION_KIND_PLACE_FIRST_ESTATE: "place a first estate",
    view_pb2.DECISION_KIND_CHOOSE_CONFLICT: "choose the conflict",
    view_pb2.DECISION_KIND_PICK_ACTION_CARD: "pick an action card",
    view_pb2.DECISION_KIND_PLAY_SUPPLY: "play 0 to 5 supply cards",
    view_pb2.DECISION_KIND_BUILD: "build, flip a building or pass",
    view_pb2.DECISION_KIND_DISCARD: "discard down to 5 cards",
}
#: The same, shorter: for a status line that must fit a narrow terminal.
SHORT_DECISIONS: dict[int, str] = {
    view_pb2.DECISION_KIND_PLACE_FIRST_ESTATE: "place an estate",
    view_pb2.DECISION_KIND_CHOOSE_CONFLICT: "choose the conflict",
    view_pb2.DECISION_KIND_PICK_ACTION_CARD: "pick a card",
    view_pb2.DECISION_KIND_PLAY_SUPPLY: "play supply",
    view_pb2.DECISION_KIND_BUILD: "build or pass",
    view_pb2.DECISION_KIND_DISCARD: "discard",
}
REASONS: dict[int, str] = {
    events_pb2.SCORE_REASON_CONQUEST: "conquest",
    events_pb2.SCORE_REASON_TRAITOR: "traitor",
    events_pb2.SCORE_REASON_STRATEGIST: "strategist",
    events_pb2.SCORE_REASON_TRADING_POSTS: "trading posts",
}


def house(value: int) -> str:
    return HOUSES.get(value, "?")


def other_house(value: int) -> int:
    return cards_pb2.HOUSE_ROSE if value == cards_pb2.HOUSE_EAGLE else cards_pb2.HOUSE_EAGLE


def cards(values: Sequence[int]) -> str:
    """Supply cards as people write them: "3+5"; "none" for no cards."""
    return "+".join(str(value) for value in values) if values else "none"


def landscape_at(kind: int, position: int) -> str:
    """A landscape and its ring position: "forest #3"."""
    return f"{LANDSCAPES.get(kind, '?')} #{position}"


def place(view: view_pb2.PlayerView, position: int) -> str:
    """The landscape at a ring position of the view: "forest #3"."""
    if 0 <= position < len(view.ring):
        return landscape_at(view.ring[position].type, position)
    return f"#{position}"


def place_and_house(view: view_pb2.PlayerView, position: int) -> str:
    """A ring position with its landscape and house: "forest #3 (Rose)"."""
    if 0 <= position < len(view.ring):
        return f"{place(view, position)} ({house(view.ring[position].house)})"
    return place(view, position)


def seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"Seat {seat + 1}"


def describe(command: commands_pb2.Command, view: view_pb2.PlayerView) -> str:
    """One command as an option in words, e.g. "Conflict: forest #3 vs city #4"."""
    kind = command.WhichOneof("command")
    if kind == "place_first_estate":
        position = command.place_first_estate.position
        return f"First estate under {place_and_house(view, position)}"
    if kind == "choose_conflict":
        chosen = command.choose_conflict
        return f"Conflict: {place(view, chosen.first)} vs {place(view, chosen.second)}"
    if kind == "pick_action_card":
        return f"Pick {ACTIONS.get(command.pick_action_card.card, '?')}"
    if kind == "play_supply":
        played = list(command.play_supply.cards)
        return f"Play supply {cards(played)}" if played else "Play no supply cards"
    if kind == "place_building":
        built = command.place_building
        return f"Build {SIDES.get(built.side, '?')} under {place_and_house(view, built.position)}"
    if kind == "flip_building":
        position = command.flip_building.position
        side = view.ring[position].building_side if 0 <= position < len(view.ring) else 0
        to = SIDES.get(other_side(side), "its other side")
        return f"Flip your {SIDES.get(side, 'building')} under {place(view, position)} to {to}"
    if kind == "move_building":
        moved = command.move_building
        return (
            f"Move your building from {place(view, moved.origin)} to "
            f"{place_and_house(view, moved.destination)} as {SIDES.get(moved.side, '?')}"
        )
    if kind == "pass_build":
        return "Pass: build nothing"
    if kind == "discard_cards":
        return f"Discard {cards(list(command.discard_cards.cards))}"
    return "(an option this client does not know)"


def option_label(
    command: commands_pb2.Command, view: view_pb2.PlayerView, short: bool = False
) -> str:
    """A command as a menu entry, under a status line that names the decision: "forest #3
    (Rose)" for a first estate, "trading post #3 forest (Rose)" for a building; `short` for
    narrow screens ("post #3 forest": the board shows whose it is)."""
    kind = command.WhichOneof("command")
    if kind == "place_first_estate":
        return place_and_house(view, command.place_first_estate.position)
    if kind == "choose_conflict":
        chosen = command.choose_conflict
        return f"{place(view, chosen.first)} vs {place(view, chosen.second)}"
    if kind == "pick_action_card":
        return ACTIONS.get(command.pick_action_card.card, "?")
    if kind == "place_building":
        built = command.place_building
        if not 0 <= built.position < len(view.ring):
            return describe(command, view)
        where = view.ring[built.position]
        land, owner = LANDSCAPES.get(where.type, "?"), house(where.house)
        name = SIDES.get(built.side, "?")
        if short:
            return f"{name.split()[-1]} #{built.position} {land}"
        return f"{name} #{built.position} {land} ({owner})"
    if kind == "flip_building":
        position = command.flip_building.position
        side = view.ring[position].building_side if 0 <= position < len(view.ring) else 0
        if short:
            return f"flip #{position} to {SIDES.get(other_side(side), 'other').split()[-1]}"
        return f"flip {place(view, position)} to {SIDES.get(other_side(side), 'its other side')}"
    if kind == "pass_build":
        return "pass" if short else "pass: build nothing"
    if kind == "discard_cards":
        return cards(list(command.discard_cards.cards))
    return describe(command, view)


def with_article(noun: str) -> str:
    """ "an estate", "a trading post"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def other_side(side: int) -> int:
    if side == cards_pb2.BUILDING_SIDE_ESTATE:
        return cards_pb2.BUILDING_SIDE_TRADING_POST
    return cards_pb2.BUILDING_SIDE_ESTATE


def same_command(a: commands_pb2.Command, b: commands_pb2.Command) -> bool:
    """Equal commands, card lists compared as multisets (3+5 is 5+3)."""
    return _normal(a) == _normal(b)


def _normal(command: commands_pb2.Command) -> bytes:
    copy = commands_pb2.Command()
    copy.CopyFrom(command)
    kind = copy.WhichOneof("command")
    if kind in ("play_supply", "discard_cards"):
        values = getattr(copy, kind).cards
        ordered = sorted(values)
        del values[:]
        values.extend(ordered)
    return copy.SerializeToString(deterministic=True)


def option_index(command: commands_pb2.Command, legal: Sequence[commands_pb2.Command]) -> int:
    """The 0-based option that is `command`, or -1."""
    for index, option in enumerate(legal):
        if same_command(command, option):
            return index
    return -1


def mark(seat: int) -> str:
    """A seat's mark on the screen, where a name does not fit: "P2" for seat 2, as the lobby
    numbers seats (from 1)."""
    return f"P{seat + 1}"


def to_act(
    view: view_pb2.PlayerView, names: Sequence[str], *, short: bool = False, marks: bool = False
) -> str:
    """Who must act and what, e.g. "Bot 2 (normal) must pick an action card"; `short` says the
    decision in fewer words, `marks` names seats by their marks ("P2")."""
    if view.phase == events_pb2.PHASE_GAME_OVER:
        return "the game is over"
    seats = list(view.turn.seats)
    if not seats:
        return "nobody must act"
    what = (SHORT_DECISIONS if short else DECISIONS).get(view.turn.decision, "decide")
    mine = view.HasField("seat") and view.seat in seats
    others = [
        mark(seat) if marks else seat_name(names, seat)
        for seat in seats
        if not (mine and seat == view.seat)
    ]
    if mine and not others:
        return f"your turn: {what}"
    if mine:
        return f"your turn (and {', '.join(others)}): {what}"
    listed = ", ".join(others[:-1]) + f" and {others[-1]}" if len(others) > 1 else others[0]
    return f"{listed} must {what}"


def status_line(
    view: view_pb2.PlayerView, names: Sequence[str], *, short: bool = False, marks: bool = False
) -> str:
    """Round, phase, who must act and what: the line the old online client showed top left
    (`short` and `marks` as for `to_act`)."""
    if view.phase == events_pb2.PHASE_GAME_OVER:
        return f"Game over after round {view.round} of {view.rounds}"
    when = f"Round {view.round} of {view.rounds}" if view.round else "Before round 1"
    acting = to_act(view, names, short=short, marks=marks)
    return f"{when} · {PHASES.get(view.phase, '?')} · {acting}"


def status_lines(view: view_pb2.PlayerView, names: Sequence[str]) -> list[str]:
    """The status line from the fullest to the shortest: a screen shows the first that fits.
    Round and phase are said the same way in each."""
    return [
        status_line(view, names),
        status_line(view, names, short=True),
        status_line(view, names, short=True, marks=True),
    ]


# --- reading what people type -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chosen:
    """A command to send; `index` is its option number (0-based), or None when the command is
    not among the listed options (the server will say why it is refused)."""

    command: commands_pb2.Command
    index: int | None


@dataclass(frozen=True, slots=True)
class WantsHint:
    """`?`: ask the AI for a suggestion."""


@dataclass(frozen=True, slots=True)
class Unclear:
    """Input that names no command; `reason` says what to type instead."""

    reason: str


Reading = Chosen | WantsHint | Unclear

_NUMBERS = re.compile(r"^\s*(?:discard)?\s*(\d+(?:\s*[+, ]\s*\d+)*)\s*$", re.I)
_TOKEN = re.compile(r"[^\W\d_]+|\d+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


_SUPPLY = re.compile(r"^\s*(?:play\s+)?(\d+(?:\s*[+, ]\s*\d+)*)\s*$", re.I)
_NO_SUPPLY = {"none", "nothing", "no", "no cards", "0", "-", "pass", "play none", "play nothing"}
#: What the supply prompt says to type.
SUPPLY_HOW = "type the values of the cards you play (e.g. 6 5), or none"


def read_supply(text: str, view: view_pb2.PlayerView) -> Reading:
    """What a person typed at the supply decision: card values ("6 6 5", "6+5"), "none", or
    `?`. Cards the hand does not hold are refused here, with the hand shown."""
    text = text.strip()
    if text == "?":
        return WantsHint()
    if not text:
        return Unclear(SUPPLY_HOW)
    if text.lower() in _NO_SUPPLY:
        values: list[int] = []
    else:
        match = _SUPPLY.match(text)
        if match is None:
            return Unclear(f"{text!r} names no cards: {SUPPLY_HOW}")
        values = [int(value) for value in re.findall(r"\d+", match.group(1))]
    hand = list(view.hand.cards)
    for value in set(values):
        if values.count(value) > hand.count(value):
            held = " ".join(str(card) for card in sorted(hand)) or "empty"
            times = "" if values.count(value) == 1 else f" {values.count(value)} times"
            return Unclear(f"your hand ({held}) does not hold {value}{times}")
    command = commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=values))
    index = option_index(command, view.legal)
    return Chosen(command, index if index >= 0 else None)


def read_choice(text: str, view: view_pb2.PlayerView) -> Reading:
    """What a person typed at a decision: an option number, `?`, a card list such as "3+5",
    positions such as "#3 #4", or words that fit one option ("traitor", "trading #7"). The
    supply is chosen by card values (`read_supply`), not by number."""
    if view.turn.decision == view_pb2.DECISION_KIND_PLAY_SUPPLY:
        return read_supply(text, view)
    legal = list(view.legal)
    text = text.strip()
    numbers = f"1-{len(legal)}" if len(legal) > 1 else "1"
    if not text:
        return Unclear(f"type the number of an option ({numbers}), or ? for a suggestion")
    if text == "?":
        return WantsHint()
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return Chosen(legal[number - 1], number - 1)
        return Unclear(f"there is no option {number}: choose {numbers}")
    explicit = _explicit_command(text, view)
    if explicit is not None:
        index = option_index(explicit, legal)
        return Chosen(explicit, index if index >= 0 else None)
    wanted = _tokens(text)
    if not wanted:
        return Unclear(f"{text!r} is none of the options: type a number {numbers}")
    fits = [i for i, option in enumerate(legal) if _fits(wanted, _tokens(describe(option, view)))]
    if len(fits) == 1:
        return Chosen(legal[fits[0]], fits[0])
    if len(fits) > 1:
        listed = ", ".join(str(i + 1) for i in fits[:8]) + (" ..." if len(fits) > 8 else "")
        return Unclear(f"{text!r} fits options {listed}: type one number")
    return Unclear(
        f"{text!r} is none of the options: type a number {numbers} (or ? for a suggestion)"
    )


def _fits(wanted: list[str], words: list[str]) -> bool:
    """Every typed word starts a word of the option (numbers must be equal)."""
    return all(
        any(word == typed if typed.isdigit() else word.startswith(typed) for word in words)
        for typed in wanted
    )


def _explicit_command(text: str, view: view_pb2.PlayerView) -> commands_pb2.Command | None:
    """A command written out in full (cards or positions), whether legal or not."""
    decision = view.turn.decision
    lowered = text.lower().strip()
    if decision == view_pb2.DECISION_KIND_DISCARD:
        match = _NUMBERS.match(text)
        if match is None or text.strip().isdigit():
            return None
        values = [int(v) for v in re.findall(r"\d+", match.group(1))]
        return commands_pb2.Command(discard_cards=commands_pb2.DiscardCards(cards=values))
    positions = [int(p) for p in re.findall(r"#\s*(\d+)", text)]
    if decision == view_pb2.DECISION_KIND_PLACE_FIRST_ESTATE and len(positions) == 1:
        return commands_pb2.Command(
            place_first_estate=commands_pb2.PlaceFirstEstate(position=positions[0])
        )
    if decision == view_pb2.DECISION_KIND_CHOOSE_CONFLICT:
        pair = re.fullmatch(r"#?\s*(\d+)\s*(?:-|vs|\s)\s*#?\s*(\d+)", lowered)
        if pair is not None:
            positions = [int(pair.group(1)), int(pair.group(2))]
        if len(positions) == 2:
            return commands_pb2.Command(
                choose_conflict=commands_pb2.ChooseConflict(first=positions[0], second=positions[1])
            )
    if decision == view_pb2.DECISION_KIND_PICK_ACTION_CARD:
        wanted = " ".join(_tokens(lowered.removeprefix("pick ")))
        for card, name in ACTIONS.items():
            if wanted == " ".join(_tokens(name)):
                chosen = cards_pb2.ActionCard.ValueType(card)
                return commands_pb2.Command(
                    pick_action_card=commands_pb2.PickActionCard(card=chosen)
                )
    if decision == view_pb2.DECISION_KIND_BUILD and len(positions) == 1:
        words = set(_tokens(lowered))
        if "flip" in words:
            return commands_pb2.Command(
                flip_building=commands_pb2.FlipBuilding(position=positions[0])
            )
        for side, name in SIDES.items():
            if set(_tokens(name)) <= words:
                return commands_pb2.Command(
                    place_building=commands_pb2.PlaceBuilding(
                        position=positions[0], side=cards_pb2.BuildingSide.ValueType(side)
                    )
                )
    return None
