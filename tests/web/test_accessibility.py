"""Automated accessibility checks (axe-core from npm, in Debian's Chromium): no serious or
critical violation on the lobby, the game, the conflict dialog, the end of a game and a replay,
in English and in German, on a desktop and on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import Served
from tests.web.play import (
    DESKTOP,
    PHONE,
    decide,
    dismiss_summary,
    wait_for_my_turn_or_the_end,
)

SERIOUS = """async () => {
    const found = await axe.run(document, { resultTypes: ["violations"] });
    return found.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}"""


def violations(page: Any, axe: str, screen: str) -> list[str]:
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(content=axe)
    return [f"{screen}: {found}" for found in page.evaluate(SERIOUS)]


@pytest.mark.parametrize(
    ("viewport", "locale"), [(DESKTOP, "en-US"), (PHONE, "de-DE")], ids=["desktop-en", "phone-de"]
)
def test_no_serious_accessibility_violations_on_any_screen(
    browser: Any, served: Served, axe: str, viewport: dict[str, int], locale: str
) -> None:
    # Without motion: a card caught halfway through turning over, or a building fading in, would
    # be measured at a passing contrast.
    context = browser.new_context(
        viewport=viewport, locale=locale, bypass_csp=True, reduced_motion="reduce"
    )
    page = context.new_page()
    page.goto(served.url + "/")
    found = violations(page, axe, "registration")
    register_name = {"en-US": ("Your name", "Start playing"), "de-DE": ("Dein Name", "Losspielen")}
    label, button = register_name[locale]
    page.get_by_label(label).fill("Checker")
    page.get_by_role("button", name=button).click()
    page.locator("#new-title").wait_for()
    found += violations(page, axe, "lobby")
    page.locator("select").nth(2).select_option("1")  # easy bots, whatever the language
    page.locator(".home .actions button").first.click()
    page.locator(".game").wait_for(timeout=30_000)
    seen = set()
    for _ in range(200):
        state = wait_for_my_turn_or_the_end(page)
        if state == "over":
            break
        if state == "pause":
            if "dialog" not in seen:
                seen.add("dialog")
                found += violations(page, axe, "conflict dialog")
            dismiss_summary(page)
            continue
        kind = str(page.locator(".game").get_attribute("data-decision"))
        if kind not in seen:
            seen.add(kind)
            found += violations(page, axe, f"game ({kind})")
        decide(page, ["no illegal clicks"])
    page.get_by_test_id("verified").wait_for()
    found += violations(page, axe, "end")
    page.locator("a[href^='#replay/']").first.click()
    page.locator(".replay").wait_for()
    page.get_by_test_id("verified").wait_for()
    found += violations(page, axe, "replay")
    replay = page.locator(".replay")
    for step in range(40):
        if page.get_by_test_id("conflict-panel").count():
            break
        page.keyboard.press("ArrowRight")
        expect(replay).to_have_attribute("data-step", str(step + 1))
    found += violations(page, axe, "replay conflict")
    assert not found, "\n".join(found)
    context.close()
