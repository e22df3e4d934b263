"""The page in a real browser (Debian's Chromium, headless, driven by Playwright for Python).

A person's whole game against three bots, played by clicking what the page highlights; an
illegal click on the board, which the page sends and whose refusal it explains in the rules'
own words; a reload and a second tab in the middle of a game, which come back to the same seat.
Screenshots at 1280x800 and 375x667 are kept in test-artifacts/web/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.web.conftest import Served

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 667}
#: Decisions in a 4-player game of 8 rounds: about 40 for one seat; room for slow bots.
MAX_DECISIONS = 200
#: The draft: the strategist chooses conflicts on the board (a click that can be illegal).
PREFERRED_CARDS = ("Strategist", "Builder")


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
              || document.querySelector('.game[data-your-turn=true]')""",
        timeout=60_000,
    )
    if page.locator("[data-testid=final-scores]").count():
        return "over"
    if page.locator("[data-testid=conflict-summary]").count():
        return "pause"
    return "turn"


def version(page: Any) -> str:
    return str(page.locator(".game").get_attribute("data-version"))


UNNAMED_CONTROLS = """() => [...document.querySelectorAll('button, a, input, select')]
    .filter((element) => !(element.getAttribute('aria-label') || element.textContent.trim()
        || element.labels?.length))
    .map((element) => element.outerHTML)"""


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


def decide(page: Any, explained: list[str]) -> None:
    """Make the decision the page asks for, by clicking what it highlights."""
    decision = page.locator(".game").get_attribute("data-decision")
    before = version(page)
    legal_land = page.locator("button.land[data-legal=true]")
    if decision == "place a first estate":
        if not explained and (text := click_illegal_landscape(page)):
            explained.append(text)
        legal_land.first.click()
    elif decision == "choose the conflict":
        legal_land.first.click()
        page.locator("button.land.chosen").wait_for()
        if not explained and (text := click_illegal_landscape(page)):
            explained.append(text)
            if not page.locator("button.land.chosen").count():
                legal_land.first.click()
        legal_land.first.click()
    elif decision == "pick an action card":
        cards = page.locator(".action-card")
        for name in PREFERRED_CARDS:
            preferred = cards.filter(has_text=name)
            if preferred.count():
                preferred.first.click()
                break
        else:
            cards.first.click()
    elif decision == "play supply cards":
        hand = page.locator(".hand button.card")
        if hand.count():
            hand.first.click()
            assert "yours" in page.locator(".totals").inner_text()
        page.locator(".decide button").filter(has_text="Play").click()
    elif decision == "build":
        if not explained and (text := click_illegal_landscape(page, ":has(.building)")):
            explained.append(text)
        if legal_land.count():
            legal_land.first.click()
            choice = page.get_by_role("group", name="Build at")
            if choice.count():
                choice.get_by_role("button", name="Estate").click()
        else:
            page.get_by_role("button", name="Build nothing").click()
    elif decision == "discard down to 5 cards":
        hand = page.locator(".hand button.card")
        for index in range(hand.count() - 5):
            hand.nth(index).click()
        page.locator(".decide button").filter(has_text="Discard").click()
    else:
        raise AssertionError(f"an unknown decision: {decision!r}")
    page.wait_for_function(
        "([before]) => document.querySelector('.game')?.dataset.version !== before"
        " || document.querySelector('[data-testid=explanation]')",
        arg=[before],
        timeout=30_000,
    )


def test_a_whole_game_against_three_bots_by_clicking(
    browser: Any, served: Served, artifacts: Path
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    register(page, served, "Clicker")
    page.screenshot(path=artifacts / "lobby-1280x800.png")
    new_game_against_bots(page)
    page.screenshot(path=artifacts / "game-start-1280x800.png")
    assert page.evaluate(UNNAMED_CONTROLS) == [], "every control has a name screen readers read"
    assert page.get_by_role("status").count() == 1
    explained: list[str] = []
    pauses = 0
    for _ in range(MAX_DECISIONS):
        state = wait_for_my_turn_or_the_end(page)
        if state == "over":
            break
        if state == "pause":
            pauses += 1
            summary = page.get_by_test_id("conflict-summary")
            assert "Eagle" in summary.inner_text() and "Rose" in summary.inner_text()
            if pauses == 1:
                page.screenshot(path=artifacts / "conflict-summary-1280x800.png")
            summary.get_by_role("button", name="Continue").click()
            continue
        decide(page, explained)
    else:
        raise AssertionError("the game did not end")
    final = page.get_by_test_id("final-scores")
    assert "Trading-post bonus" in final.inner_text()
    assert "Game over" in page.get_by_test_id("status").inner_text()
    assert pauses >= 1, "the conflict summary paused the game at least once"
    assert explained, "an illegal click was tried and explained"
    # The rules' own words (services/engine), not a generic failure.
    assert re.search(r"building|neighbours|belong to|trading posts", explained[0]), explained
    page.screenshot(path=artifacts / "final-1280x800.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=artifacts / "final-375x667.png", full_page=True)
    assert not failures, failures
    context.close()


def test_a_reload_and_a_new_tab_resume_the_same_seat(
    browser: Any, served: Served, artifacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    register(page, served, "Reloader")
    page.screenshot(path=artifacts / "lobby-375x667.png", full_page=True)
    new_game_against_bots(page, players=3, clock="1 minute")
    assert wait_for_my_turn_or_the_end(page) == "turn"
    clock = page.locator(".status .clock")
    assert re.fullmatch(r"[01]:\d\d left", clock.inner_text()), "the turn clock counts down"
    if page.locator(".game").get_attribute("data-decision") == "place a first estate":
        # By keyboard: on a focused legal landscape, Enter places the estate.
        before = version(page)
        legal = page.locator("button.land[data-legal=true]").first
        legal.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "([before]) => document.querySelector('.game').dataset.version !== before",
            arg=[before],
        )
    else:
        decide(page, [])
    assert wait_for_my_turn_or_the_end(page) in ("turn", "pause")
    page.screenshot(path=artifacts / "game-375x667.png")
    address = page.url
    me = page.locator(".player", has_text="(you)").inner_text()
    hand = page.locator(".hand .cards").inner_text()
    at = version(page)

    page.reload()
    page.locator(".game").wait_for()
    page.wait_for_function(
        "([at]) => BigInt(document.querySelector('.game').dataset.version) >= BigInt(at)", arg=[at]
    )
    assert page.url == address
    assert (
        page.locator(".player", has_text="(you)").inner_text().split("\n")[0] == me.split("\n")[0]
    )
    if version(page) == at:
        assert page.locator(".hand .cards").inner_text() == hand

    tab = context.new_page()  # the same browser storage: the same guest
    tab.goto(address.split("#")[0])
    resume = tab.get_by_role("link", name="Resume")
    resume.wait_for()
    resume.first.click()
    tab.locator(".game").wait_for()
    assert tab.locator(".player", has_text="(you)").inner_text().split("\n")[0] == me.split("\n")[0]
    tab.screenshot(path=artifacts / "second-tab-375x667.png")
    context.close()
