"""`verrater chat-reports` lists what players reported, from the deployment's Redis."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from services.chat import Channel, RedisChat
from services.chat.model import NewMessage
from services.chat.store import Rate
from services.cli import main
from services.lobby.model import game_id_of

TABLE = "0123456789ab"


async def _reported(url: str) -> list[str]:
    """Two reports of one message, the second reporter's with a note; their ids."""
    chat = RedisChat(url, tag_of=game_id_of)
    try:
        now = int(time.time() * 1000)
        message = await chat.append(
            NewMessage(TABLE, Channel.SPECTATORS, "p-rude", "Rude One", "you all play badly"),
            Rate(10, 10),
            now,
        )
        first = await chat.add_report("p-ada", "", message, now + 1)
        second = await chat.add_report("p-bea", "insults", message, now + 2)
        return [first.report_id, second.report_id]
    finally:
        await chat.close()


def test_the_operators_list_the_reports_with_the_message_and_who_reported_it(
    fresh_redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = asyncio.run(_reported(fresh_redis_url))
    assert main(["chat-reports", "--redis-url", fresh_redis_url, "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [report["report_id"] for report in listed] == ids
    assert listed[1] == {
        **listed[1],
        "reporter_id": "p-bea",
        "note": "insults",
        "table_id": TABLE,
        "channel": "spectators",
        "sender_id": "p-rude",
        "display_name": "Rude One",
        "text": "you all play badly",
    }
    assert main(["chat-reports", "--redis-url", fresh_redis_url, "--after", ids[0]]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(ids[1]) and '"you all play badly"' in line and "p-bea" in line


def test_without_a_redis_it_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main(["chat-reports"]) == 2
    assert "REDIS_URL" in capsys.readouterr().err
