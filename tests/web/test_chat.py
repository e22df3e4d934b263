"""The table chat on the page, in a real browser: beside the board on a desktop, folded on a
phone with the count of what came meanwhile, a message sent from one tab reaching another (the
text as the server normalised it), a refusal worded from its reason, and its words in German
as in English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from services.lobby.model import game_id_of
from tests.web.conftest import Served
from tests.web.play import DESKTOP, PHONE, new_game_against_bots, register


def test_the_chat_beside_the_board_and_folded_on_a_phone_with_an_unread_count(
    browser: Any, served: Served, artifacts: Path
) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    desk = context.new_page()
    register(desk, served, "Talker")
    new_game_against_bots(desk, players=3)
    chat = desk.get_by_test_id("chat")
    expect(chat).to_be_visible()
    board = desk.locator(".board").bounding_box()
    beside = chat.bounding_box()
    assert board is not None and beside is not None
    assert beside["x"] >= board["x"] + board["width"] - 1, "the chat stands beside the board"
    expect(chat.get_by_text("Nothing said yet.")).to_be_visible()

    phone = context.new_page()  # the same guest, at the same table, on a phone's screen
    phone.set_viewport_size(PHONE)
    phone.goto(desk.url)
    phone.locator(".game").wait_for(timeout=30_000)
    folded = phone.get_by_test_id("chat")
    toggle = folded.get_by_role("button", name="Table chat")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(folded.get_by_label("Your message")).to_have_count(0)

    desk.get_by_label("Your message").fill("  good luck\u202e all  ")
    desk.get_by_role("button", name="Send").click()
    expect(chat.locator("li")).to_have_text(["Talker: good luck all"])
    expect(folded.get_by_test_id("chat-unread")).to_have_text("1 new")
    phone.screenshot(path=artifacts / "chat-folded-390x844.png")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(folded.locator("li")).to_have_text(["Talker: good luck all"])
    expect(folded.get_by_test_id("chat-unread")).to_have_count(0)
    phone.screenshot(path=artifacts / "chat-open-390x844.png")

    # Nothing but a direction override: empty once normalised, refused, worded from its reason.
    field = desk.get_by_label("Your message")
    field.fill("\u202e\u202e")
    desk.get_by_role("button", name="Send").click()
    expect(chat.get_by_test_id("chat-problem")).to_have_text("Write something first.")
    expect(chat.locator("li")).to_have_count(1)
    desk.screenshot(path=artifacts / "chat-1280x800.png")
    context.close()


def test_the_chat_speaks_german(browser: Any, served: Served) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="de-DE")
    page = context.new_page()
    page.goto(served.url + "/")
    page.get_by_label("Dein Name").fill("Plauderer")
    page.get_by_role("button", name="Losspielen").click()
    page.get_by_label("Bots").select_option(label="leichter Bot")
    page.get_by_role("button", name="Gegen Bots spielen").click()
    page.locator(".game").wait_for(timeout=30_000)
    chat = page.get_by_test_id("chat")
    expect(chat.get_by_role("button", name="Tisch-Chat")).to_be_visible()
    expect(chat.get_by_text("Noch hat niemand etwas gesagt.")).to_be_visible()
    page.get_by_label("Deine Nachricht").fill("Viel Glück!")
    page.get_by_role("button", name="Senden").click()
    expect(chat.locator("li")).to_have_text(["Plauderer: Viel Glück!"])
    context.close()


def test_a_spectator_by_a_link_to_the_game_reads_the_table_and_talks_in_the_stands(
    browser: Any, served: Served
) -> None:
    """`#watch/<game>` names the game only: the page asks for the chat by the game's id. The
    spectator reads the table's channel and writes to the stands, which the seated player does
    not see while the game runs."""
    player = browser.new_context(viewport=DESKTOP, locale="en-US")
    desk = player.new_page()
    register(desk, served, "Seated")
    new_game_against_bots(desk, players=3)
    table_id = desk.url.rsplit("#play/", 1)[1]
    desk.get_by_label("Your message").fill("hello, stands")
    desk.get_by_role("button", name="Send").click()
    seated_chat = desk.get_by_test_id("chat")
    expect(seated_chat.locator("li")).to_have_text(["Seated: hello, stands"])

    fan = browser.new_context(viewport=DESKTOP, locale="en-US")
    stands = fan.new_page()
    register(stands, served, "Fan")
    stands.goto(f"{served.url}/#watch/{game_id_of(table_id)}")
    stands.locator(".game").wait_for(timeout=30_000)
    chat = stands.get_by_test_id("chat")
    expect(chat.locator("li")).to_have_text(["Seated: hello, stands"])
    stands.get_by_label("Your message").fill("go, Seated!")
    stands.get_by_role("button", name="Send").click()
    expect(chat.locator("li")).to_have_count(2)
    expect(chat.locator("li").last).to_contain_text("Fan: go, Seated!")
    expect(chat.locator("li .stands")).to_have_count(1)
    # The seated player's chat follows the table's stream in order: a message written after
    # the spectator's arrives with nothing from the stands before it.
    desk.get_by_label("Your message").fill("thanks")
    desk.get_by_role("button", name="Send").click()
    expect(seated_chat.locator("li")).to_have_text(["Seated: hello, stands", "Seated: thanks"])
    fan.close()
    player.close()
