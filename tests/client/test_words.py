"""Reading what a person types at a decision, and the game in words."""

from __future__ import annotations

from services.api.verrater.v1 import cards_pb2, commands_pb2, view_pb2
from services.client import words
from services.client.words import Chosen, Unclear, WantsHint, read_choice

RING = (
    cards_pb2.LANDSCAPE_TYPE_CITY,
    cards_pb2.LANDSCAPE_TYPE_FOREST,
    cards_pb2.LANDSCAPE_TYPE_RIVER,
    cards_pb2.LANDSCAPE_TYPE_MEADOW,
    cards_pb2.LANDSCAPE_TYPE_VILLAGE,
    cards_pb2.LANDSCAPE_TYPE_WASTELAND,
) * 2


def a_view(decision: int, legal: list[commands_pb2.Command]) -> view_pb2.PlayerView:
    view = view_pb2.PlayerView(version=7, seat=0, legal=legal)
    for position, kind in enumerate(RING):
        house = cards_pb2.HOUSE_EAGLE if position < 6 else cards_pb2.HOUSE_ROSE
        view.ring.add(position=position, type=kind, house=house)
    view.turn.decision = decision  # type: ignore[assignment]
    view.turn.seats.append(0)
    return view


def supply(*cards: int) -> commands_pb2.Command:
    return commands_pb2.Command(play_supply=commands_pb2.PlaySupply(cards=list(cards)))


def pick(card: int) -> commands_pb2.Command:
    return commands_pb2.Command(
        pick_action_card=commands_pb2.PickActionCard(card=card)  # type: ignore[arg-type]
    )


SUPPLY = a_view(view_pb2.DECISION_KIND_PLAY_SUPPLY, [supply(), supply(3), supply(3, 5), supply(5)])
SUPPLY.hand.cards.extend([3, 5])
DRAFT = a_view(
    view_pb2.DECISION_KIND_PICK_ACTION_CARD,
    [pick(cards_pb2.ACTION_CARD_TRAITOR), pick(cards_pb2.ACTION_CARD_DIPLOMAT5)],
)
CONFLICT = a_view(
    view_pb2.DECISION_KIND_CHOOSE_CONFLICT,
    [
        commands_pb2.Command(choose_conflict=commands_pb2.ChooseConflict(first=5, second=6)),
        commands_pb2.Command(choose_conflict=commands_pb2.ChooseConflict(first=11, second=0)),
    ],
)
BUILD = a_view(
    view_pb2.DECISION_KIND_BUILD,
    [
        commands_pb2.Command(
            place_building=commands_pb2.PlaceBuilding(
                position=7, side=cards_pb2.BUILDING_SIDE_TRADING_POST
            )
        ),
        commands_pb2.Command(
            place_building=commands_pb2.PlaceBuilding(
                position=7, side=cards_pb2.BUILDING_SIDE_ESTATE
            )
        ),
        commands_pb2.Command(pass_build=commands_pb2.PassBuild()),
    ],
)


def test_options_read_like_the_game() -> None:
    assert [words.describe(c, SUPPLY) for c in SUPPLY.legal] == [
        "Play no supply cards",
        "Play supply 3",
        "Play supply 3+5",
        "Play supply 5",
    ]
    assert words.describe(DRAFT.legal[0], DRAFT) == "Pick traitor"
    assert words.describe(CONFLICT.legal[0], CONFLICT) == "Conflict: wasteland #5 vs city #6"
    assert words.describe(BUILD.legal[0], BUILD) == "Build trading post under forest #7 (Rose)"
    assert words.describe(BUILD.legal[2], BUILD) == "Pass: build nothing"


def test_a_number_chooses_that_option() -> None:
    assert read_choice("3", BUILD) == Chosen(BUILD.legal[2], 2)
    assert read_choice(" 1 ", DRAFT) == Chosen(DRAFT.legal[0], 0)


def test_a_number_without_an_option_says_which_numbers_there_are() -> None:
    reading = read_choice("99", BUILD)
    assert isinstance(reading, Unclear)
    assert reading.reason == "there is no option 99: choose 1-3"


def test_gibberish_is_unclear_and_says_what_to_type() -> None:
    reading = read_choice("xyz", BUILD)
    assert isinstance(reading, Unclear)
    assert "type a number 1-3" in reading.reason
    assert isinstance(read_choice("", BUILD), Unclear)


def test_a_question_mark_asks_for_a_hint() -> None:
    assert read_choice("?", SUPPLY) == WantsHint()
    assert read_choice("?", BUILD) == WantsHint()


def test_the_supply_is_chosen_by_card_values_in_any_order() -> None:
    assert read_choice("3", SUPPLY) == Chosen(supply(3), 1)  # the card 3, not option 3
    assert read_choice("5+3", SUPPLY) == Chosen(supply(5, 3), 2)
    assert read_choice("play 3 5", SUPPLY) == Chosen(supply(3, 5), 2)
    assert read_choice("5, 3", SUPPLY) == Chosen(supply(5, 3), 2)
    assert read_choice("none", SUPPLY) == Chosen(supply(), 0)
    assert read_choice("nothing", SUPPLY) == Chosen(supply(), 0)


def test_supply_cards_the_hand_does_not_hold_are_refused_with_the_hand_shown() -> None:
    reading = read_choice("8+8", SUPPLY)
    assert isinstance(reading, Unclear)
    assert reading.reason == "your hand (3 5) does not hold 8 2 times"
    reading = read_choice("3 3", SUPPLY)
    assert isinstance(reading, Unclear)
    assert reading.reason == "your hand (3 5) does not hold 3 2 times"


def test_supply_words_that_name_no_cards_say_what_to_type() -> None:
    reading = read_choice("xyz", SUPPLY)
    assert isinstance(reading, Unclear)
    assert reading.reason.endswith(words.SUPPLY_HOW)
    assert read_choice("", SUPPLY) == Unclear(words.SUPPLY_HOW)


def test_short_menu_entries_name_the_landscape() -> None:
    assert words.option_label(BUILD.legal[0], BUILD) == "trading post #7 forest (Rose)"
    assert words.option_label(BUILD.legal[0], BUILD, short=True) == "post #7 forest"
    assert words.option_label(CONFLICT.legal[0], CONFLICT) == "wasteland #5 vs city #6"
    assert words.with_article("estate") == "an estate"
    assert words.with_article("trading post") == "a trading post"


def test_an_action_card_by_its_name() -> None:
    assert read_choice("traitor", DRAFT) == Chosen(DRAFT.legal[0], 0)
    assert read_choice("diplomat5", DRAFT) == Chosen(DRAFT.legal[1], 1)
    assert read_choice("Pick farmer", DRAFT) == Chosen(pick(cards_pb2.ACTION_CARD_FARMER), None)


def test_a_conflict_by_its_positions_or_landscapes() -> None:
    assert read_choice("#11 #0", CONFLICT) == Chosen(CONFLICT.legal[1], 1)
    assert read_choice("5-6", CONFLICT) == Chosen(CONFLICT.legal[0], 0)
    assert read_choice("wasteland #5", CONFLICT) == Chosen(CONFLICT.legal[0], 0)
    assert isinstance(read_choice("wasteland", CONFLICT), Unclear)  # #5 and #11


def test_words_that_fit_several_options_ask_for_one_number() -> None:
    reading = read_choice("#7", BUILD)
    assert isinstance(reading, Unclear)
    assert "fits options 1, 2" in reading.reason
    assert read_choice("trading #7", BUILD) == Chosen(BUILD.legal[0], 0)
    assert read_choice("pass", BUILD) == Chosen(BUILD.legal[2], 2)


def test_a_suggested_command_is_found_among_the_options_whatever_its_card_order() -> None:
    assert words.option_index(supply(5, 3), SUPPLY.legal) == 2
    assert words.option_index(supply(8), SUPPLY.legal) == -1


def test_the_status_line_says_round_phase_and_who_must_act_and_what() -> None:
    view = a_view(view_pb2.DECISION_KIND_PLAY_SUPPLY, [])
    view.round, view.rounds = 3, 8
    view.phase = 5  # type: ignore[assignment]  # PHASE_SUPPLY
    view.turn.seats[:] = [2]
    names = ["Anna", "Bert", "Cleo", "Dora"]
    assert words.status_line(view, names) == (
        "Round 3 of 8 · phase 3: supply · Cleo must play 0 to 5 supply cards"
    )
    view.turn.seats[:] = [0]
    assert words.status_line(view, names).endswith("your turn: play 0 to 5 supply cards")
