"""What players hit (issue 37), each played in Debian's Chromium as a player would meet it.

1. the table id on screen joins the table; 2. the turn clock never shows more than the turn
allows; 3. a mandatory discard cannot be skipped; 4. the final scores are on screen at the end;
5. on a phone: the status line and clock stay in sight, the conflict explanation opens again,
every `*` says what it means where it appears, and the words read right on a touch screen.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import Served
from tests.web.play import (
    DESKTOP,
    PHONE,
    decide,
    decision,
    discard,
    new_game_against_bots,
    play_to_the_end,
    register,
    version,
    wait_for_my_turn_or_the_end,
    wait_for_the_answer,
)

ENGLISH = {"locale": "en-US"}


def test_the_table_id_on_screen_joins_the_table(browser: Any, served: Served) -> None:
    host = browser.new_context(viewport=DESKTOP, **ENGLISH).new_page()
    register(host, served, "Host")
    host.get_by_label("Players").select_option("3")
    host.get_by_role("button", name="Private table for friends").click()
    heading = host.get_by_role("heading", level=1)
    expect(heading).to_contain_text("Table")
    shown = re.fullmatch(r"Table (\S+)", heading.inner_text().strip())
    assert shown, heading.inner_text()
    code = host.get_by_test_id("invite-code").inner_text().strip()

    friend = browser.new_context(viewport=DESKTOP, **ENGLISH).new_page()
    register(friend, served, "Friend")
    friend.get_by_label("Table").fill(shown.group(1))
    friend.get_by_label("Invite code").fill(code)
    friend.get_by_role("button", name="Join", exact=True).click()
    expect(friend.locator(".seats")).to_contain_text("Friend")
    expect(host.locator(".seats")).to_contain_text("Friend")
    host.context.close()
    friend.context.close()


def _seconds(text: str) -> int:
    found = re.search(r"(\d+):(\d\d)", text)
    assert found, text
    return int(found.group(1)) * 60 + int(found.group(2))


def test_the_turn_clock_never_shows_more_than_the_turn_allows(browser: Any, served: Served) -> None:
    """A one-minute table, the browser's clock 5 s behind the server's (a phone's can be): the
    page counts from the server's clock (the batches' recorded_at_ms), never past the turn."""
    context = browser.new_context(viewport=DESKTOP, **ENGLISH)
    page = context.new_page()
    page.clock.install(time=datetime.datetime.now() - datetime.timedelta(seconds=5))
    register(page, served, "Timed")
    new_game_against_bots(page, players=3, clock="1 minute")
    shown: list[str] = []
    for _ in range(6):
        state = wait_for_my_turn_or_the_end(page)
        if state == "over":
            break
        if state == "pause":
            page.get_by_test_id("conflict-summary").get_by_role("button").last.click()
            continue
        clock = page.locator(".status .clock")
        expect(clock).to_be_visible()
        shown.append(clock.inner_text())
        decide(page, [])
    assert shown
    assert all(_seconds(text) <= 60 for text in shown), shown
    context.close()


def test_a_mandatory_discard_cannot_be_skipped(browser: Any, served: Served) -> None:
    """Keep the farmer and play no cards until the hand is over the limit: the discard button
    asks for the right number of cards and cannot send fewer."""
    context = browser.new_context(viewport=DESKTOP, **ENGLISH)
    page = context.new_page()
    register(page, served, "Hoarder")
    new_game_against_bots(page, players=3)
    for _ in range(200):
        state = wait_for_my_turn_or_the_end(page)
        assert state != "over", "the game ended before the hand went over the limit"
        if state == "pause":
            page.get_by_test_id("conflict-summary").get_by_role("button").last.click()
            continue
        if decision(page) == "discard":
            break
        decide(page, ["no illegal clicks"], ("FARMER", "DIPLOMAT2", "STRATEGIST"), False)
    button = page.get_by_test_id("discard")
    expect(button).to_be_disabled()
    assert not page.get_by_test_id("explanation").count()
    before = version(page)
    discard(page)
    wait_for_the_answer(page, before)
    assert not page.get_by_test_id("explanation").count()
    context.close()


def test_the_final_scores_are_on_screen_when_the_game_ends(browser: Any, served: Served) -> None:
    context = browser.new_context(viewport=DESKTOP, **ENGLISH)
    page = context.new_page()
    register(page, served, "Finisher")
    new_game_against_bots(page)
    play_to_the_end(page)
    final = page.get_by_test_id("final-scores")
    expect(final).to_be_in_viewport()
    expect(final.locator("table")).to_be_in_viewport()
    context.close()


SLIPS = (
    re.compile(r"\b1 (cards|buildings|trading posts|estates)\b"),
    re.compile(r"\bClick\b"),
    re.compile(r"[0-9a-z] The landscape"),
)


def test_on_a_phone_the_status_stays_and_the_words_read_right(browser: Any, served: Served) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, **ENGLISH)
    page = context.new_page()
    register(page, served, "Thumb")
    new_game_against_bots(page, clock="5 minutes")
    problems: list[str] = []
    clocks_seen: list[int] = []

    def slips(where: str, text: str) -> None:
        for slip in SLIPS:
            if found := slip.search(text):
                problems.append(f"{where}: {found.group(0)!r}")

    def on_turn(page: Any) -> None:
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        places = [("status line", page.get_by_test_id("status"))]
        # Every view says the deadline and the turn time, so every turn shows the clock (it
        # once waited for the Watch's first event, which a loaded machine could hold up for a
        # whole turn), and it stays in sight.
        clock = page.locator(".status .clock")
        try:
            expect(clock).to_be_visible()
        except AssertionError:
            problems.append("a turn of a timed table shows no clock")
        else:
            places.append(("clock", clock))
            clocks_seen.append(1)
        for what, where in places:
            box = where.bounding_box()
            if not box or box["y"] < 0 or box["y"] + box["height"] > PHONE["height"]:
                problems.append(f"the {what} scrolled out of sight")
        slips("game", page.locator("main").inner_text())
        starred = page.locator("main").inner_text().count("*")
        note = page.get_by_test_id("provisional-note")
        if starred and not (note.count() and note.first.is_visible()):
            problems.append("a `*` is shown without its meaning in sight")

    def on_pause(page: Any, pauses: int, text: str) -> None:
        summary = page.get_by_test_id("conflict-summary")
        slips("conflict summary", text)
        if pauses == 1:
            summary.get_by_role("button").last.click()
            again = page.get_by_test_id("last-conflict")
            if not again.count():
                problems.append("the conflict explanation cannot be opened again")
            else:
                again.click()
                expect(page.get_by_test_id("conflict-summary")).to_be_visible()

    play_to_the_end(page, on_turn=on_turn, on_pause=on_pause)
    assert not problems, sorted(set(problems))
    assert clocks_seen, "the turn clock was never shown on a table with a turn clock"
    context.close()
