"""How the browser tests play the page: register, open a game against bots, and make each
decision the page asks for, by pointer or by keyboard alone.

The page marks what the tests read with language-independent hooks: `.game[data-decision]` is
the kind of decision asked of the player's seat (`place-first-estate`, `choose-conflict`,
`pick-action-card`, `play-supply`, `build`, `discard`), `data-card` an action card's enum name,
`data-testid` the regions (status, explanation, conflict-summary, final-scores, ...).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.web.conftest import Served

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: Decisions in a 4-player game of 8 rounds: about 40 for one seat; room for slow bots.
MAX_DECISIONS = 200
#: Action cards the tests keep when offered, first found first: the strategist chooses
#: conflicts on the board (a click that can be illegal), the builder builds.
PREFERRED_CARDS = ("STRATEGIST", "BUILDER")


def register(page: Any, served: Served, name: str) -> None:
    page.goto(served.url + "/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start playing").click()
    page.get_by_role("heading", name="New game").wait_for()


def new_game_against_bots(page: Any, players: int = 4, clock: str = "none") -> None:
    page.get_by_label("Players").select_option(str(players))
    page.get_by_label("Bots").select_option(label="easy bot")
    page.get_by_label("Turn clock").select_option(label=clock)
    page.get_by_role("button", name="Play against bots").click()
    page.locator(".game").wait_for(timeout=30_000)


def wait_for_my_turn_or_the_end(page: Any) -> str:
    """'turn', 'pause' (a conflict summary to dismiss) or 'over'."""
    page.wait_for_function(
        """() => document.querySelector('[data-testid=final-scores]')
              || document.querySelector('[data-testid=conflict-summary]')
              || document.querySelector('.game[data-your-turn=true]:not([data-decision=""])')""",
        timeout=60_000,
    )
    if page.locator("[data-testid=final-scores]").count():
        return "over"
    if page.locator("[data-testid=conflict-summary]").count():
        return "pause"
    return "turn"


def dismiss_summary(page: Any) -> None:
    """Close the conflict summary with its button, if it is still up. The game may end while
    it is: the page then takes it down for the final scores, and a click would wait for a
    button that never comes back. So a click that does not land in 5 s is left to the next look
    at the page (`wait_for_my_turn_or_the_end`)."""
    summary = page.get_by_test_id("conflict-summary")
    if summary.count():
        with contextlib.suppress(PlaywrightTimeoutError):
            summary.get_by_role("button", name=re.compile("Continue|Weiter")).click(timeout=5_000)


def summary_text(page: Any) -> str | None:
    """The conflict summary's text, read once; None when the game's end took it down before
    it could be read (the page replaces it with the final scores, and a read would wait 30 s
    for it)."""
    try:
        text: str = page.get_by_test_id("conflict-summary").inner_text(timeout=5_000)
    except PlaywrightTimeoutError:
        return None
    return text


def version(page: Any) -> str:
    return str(page.locator(".game").get_attribute("data-version"))


def decision(page: Any) -> str:
    return str(page.locator(".game").get_attribute("data-decision"))


def wait_for_the_answer(page: Any, before: str) -> None:
    """Until the game moved past `before` or the page explains a refusal."""
    page.wait_for_function(
        "([before]) => document.querySelector('.game')?.dataset.version !== before"
        " || document.querySelector('[data-testid=explanation]')",
        arg=[before],
        timeout=30_000,
    )


def click_illegal_landscape(page: Any, which: str = "") -> str | None:
    """Click a landscape the view does not allow (`which` narrows the CSS selector); the
    explanation shown, or None if there is no such landscape."""
    illegal = page.locator(f"button.land[data-legal=false]:not(.chosen){which}")
    if not illegal.count():
        return None
    illegal.first.click()
    explanation = page.get_by_test_id("explanation")
    explanation.wait_for(timeout=10_000)
    return str(explanation.inner_text())


def pick_card(page: Any, preferred: tuple[str, ...]) -> None:
    cards = page.locator(".action-card")
    for name in preferred:
        card = page.locator(f".action-card[data-card={name}]")
        if card.count():
            card.first.click()
            return
    cards.first.click()


def decide(
    page: Any,
    explained: list[str],
    preferred: tuple[str, ...] = PREFERRED_CARDS,
    play_cards: bool = True,
) -> None:
    """Make the decision the page asks for, by clicking what it highlights (and once, an
    illegal landscape, whose refusal the page explains: collected in `explained`)."""
    asked = decision(page)
    before = version(page)
    if not asked:
        # The game moved on between seeing the turn and reading it (the page draws each new
        # version as it comes): nothing to decide now; the caller waits for the next turn.
        return
    legal_land = page.locator("button.land[data-legal=true]")
    if asked == "place-first-estate":
        if not explained and (text := click_illegal_landscape(page)):
            explained.append(text)
        legal_land.first.click()
    elif asked == "choose-conflict":
        legal_land.first.click()
        page.locator("button.land.chosen").wait_for()
        if not explained and (text := click_illegal_landscape(page)):
            explained.append(text)
            if not page.locator("button.land.chosen").count():
                legal_land.first.click()
        legal_land.first.click()
    elif asked == "pick-action-card":
        pick_card(page, preferred)
    elif asked == "play-supply":
        hand = page.locator(".hand button.card")
        if play_cards and hand.count():
            hand.first.click()
        page.get_by_test_id("play-supply").click()
    elif asked == "build":
        if not explained and (text := click_illegal_landscape(page, ":has(.building)")):
            explained.append(text)
        if legal_land.count():
            legal_land.first.click()
            choice = page.get_by_test_id("build-choice")
            if choice.count():
                choice.locator("button").first.click()
        else:
            page.get_by_test_id("pass-build").click()
    elif asked == "discard":
        discard(page)
    else:
        raise AssertionError(f"an unknown decision: {asked!r}")
    wait_for_the_answer(page, before)


def discard(page: Any) -> None:
    hand = page.locator(".hand button.card")
    for index in range(hand.count() - 5):
        hand.nth(index).click()
    page.get_by_test_id("discard").click()


def play_to_the_end(
    page: Any,
    *,
    on_turn: Callable[[Any], None] | None = None,
    on_pause: Callable[[Any, int, str], None] | None = None,
    preferred: tuple[str, ...] = PREFERRED_CARDS,
    play_cards: bool = True,
    explained: list[str] | None = None,
) -> int:
    """Play the page's seat until the game is over; the number of conflict summaries seen.
    `on_turn` looks at each turn before the decision, `on_pause` at each summary before it is
    dismissed, given its text as it was read (`summary_text`)."""
    explained = [] if explained is None else explained
    pauses = 0
    for _ in range(MAX_DECISIONS):
        state = wait_for_my_turn_or_the_end(page)
        if state == "over":
            return pauses
        if state == "pause":
            text = summary_text(page)
            if text is not None:
                pauses += 1
                if on_pause:
                    on_pause(page, pauses, text)
            dismiss_summary(page)
            continue
        if on_turn:
            on_turn(page)
        decide(page, explained, preferred, play_cards)
    raise AssertionError("the game did not end")
