"""A Play stream as an application object, without gRPC: turns out, decisions in, each answered
in order; the end after the final view; a client that does not read is cut off."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from services.engine import PlayerCommand, legal_commands, to_act
from services.errors import Reason, ServiceError
from services.eventstore import InMemoryEventStore
from services.game.play import Answer, PlaySession, SlowReader, Submission
from services.game.service import GameApplication
from services.game.values import NewGame, Update


async def _new_game() -> tuple[GameApplication, str]:
    app = GameApplication(InMemoryEventStore())
    game_id, _ = await app.start_game(NewGame(players=4, game_id="session"))
    return app, game_id


async def _feed(queue: asyncio.Queue[Submission | None]) -> AsyncIterator[Submission]:
    while (item := await queue.get()) is not None:
        yield item


async def test_each_decision_is_answered_in_order_and_a_refusal_keeps_the_session_open() -> None:
    app, game_id = await _new_game()
    state = await app.state(game_id)
    seat = to_act(state)[0]
    legal: PlayerCommand = legal_commands(state, seat)[0]
    inbox: asyncio.Queue[Submission | None] = asyncio.Queue()
    session = PlaySession(app, game_id, seat).run(_feed(inbox))
    turn = await anext(session)
    assert isinstance(turn, Update) and turn.version == state.version
    stale = Submission("stale", state.version - 1, legal)
    malformed = Submission("junk", None, None, refusal=ServiceError(Reason.MALFORMED_COMMAND, "x"))
    good = Submission("good", state.version, legal)
    for submission in (stale, malformed, good):
        inbox.put_nowait(submission)
    answers = [await anext(session) for _ in range(3)]
    assert [a.submission.command_id for a in answers if isinstance(a, Answer)] == [
        "stale",
        "junk",
        "good",
    ]
    first, second, third = answers
    assert isinstance(first, Answer) and isinstance(first.refusal, ServiceError)
    assert first.refusal.reason is Reason.STALE_VERSION
    assert isinstance(second, Answer) and second.refusal is malformed.refusal
    assert isinstance(third, Answer) and third.result is not None
    assert (await app.state(game_id)).version == third.result.version
    await session.aclose()


async def test_the_session_ends_after_the_final_view() -> None:
    app, game_id = await _new_game()
    rng = random.Random(3)
    # Every other seat plays from outside the session; seat 0 plays on it.
    inbox: asyncio.Queue[Submission | None] = asyncio.Queue()
    seen: list[Update | Answer] = []

    async def others() -> None:
        while True:
            state = await app.state(game_id)
            if not to_act(state):
                return
            seat = to_act(state)[0]
            if seat != 0:
                command = rng.choice(legal_commands(state, seat))
                await app.submit(
                    game_id,
                    seat,
                    command,
                    expected_version=state.version,
                    command_id=f"o{state.version}",
                )
            else:
                await asyncio.sleep(0.001)  # seat 0 decides on the session

    helper = asyncio.create_task(others())
    async for item in PlaySession(app, game_id, 0).run(_feed(inbox)):
        seen.append(item)
        if isinstance(item, Update) and item.view is not None and item.view.legal:
            command = rng.choice(list(item.view.legal))
            inbox.put_nowait(Submission(f"s{item.version}", item.version, command))
    await helper
    final = seen[-1]
    assert isinstance(final, Update) and final.view is not None and final.view.winners


async def test_a_client_that_sends_but_never_reads_is_cut_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, game_id = await _new_game()
    state = await app.state(game_id)
    # A seat that is not to act: no turn is sent to it, so every message is an answer.
    seat = next(seat for seat in range(4) if seat not in to_act(state))
    legal = legal_commands(state, to_act(state)[0])[0]
    inbox: asyncio.Queue[Submission | None] = asyncio.Queue()
    for n in range(100):  # stale ones: each is refused, and each refusal is an answer to send
        inbox.put_nowait(Submission(f"c{n}", state.version + 1000, legal))
    answered = 0
    submit = app.submit

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal answered
        answered += 1
        return await submit(*args, **kwargs)

    monkeypatch.setattr(app, "submit", counted)
    # The answers are made faster than this client takes them: once 8 wait, the session ends.
    cuts: list[SlowReader] = []
    session = PlaySession(app, game_id, seat, max_pending=8, on_cut_while_sending=cuts.append).run(
        _feed(inbox)
    )
    received: list[Update | Answer] = []
    with pytest.raises(SlowReader) as cut:
        async for item in session:
            received.append(item)
    assert all(isinstance(item, Answer) for item in received)
    # The answer that found 8 others waiting unread ended the stream, not one before or after.
    assert answered == len(received) + 8 + 1
    assert cut.value.reason is Reason.SLOW_READER
    assert inbox.qsize() > 0, "the session stopped taking decisions once it cut the client off"
    assert (await app.state(game_id)).version == state.version
    assert cuts == [], "the stream was waiting for its next message: the cut reached it in-band"


async def test_a_client_cut_off_while_the_stream_is_sending_is_handed_to_the_server() -> None:
    """The stream is away sending its last message when the cut comes (to a client whose window
    is full, that send never ends), so the SlowReader in the outbox would never be seen: the
    session hands it to `on_cut_while_sending`, once, for the server to end the stream."""
    app, game_id = await _new_game()
    state = await app.state(game_id)
    seat = to_act(state)[0]
    legal = legal_commands(state, seat)[0]
    inbox: asyncio.Queue[Submission | None] = asyncio.Queue()
    cuts: list[SlowReader] = []
    cut = asyncio.Event()

    def cut_while_sending(error: SlowReader) -> None:
        cuts.append(error)
        cut.set()

    session = PlaySession(
        app, game_id, seat, max_pending=8, on_cut_while_sending=cut_while_sending
    ).run(_feed(inbox))
    turn = await anext(session)  # "sent" from here on, and never done: the stream is stuck
    assert isinstance(turn, Update)
    for n in range(100):
        inbox.put_nowait(Submission(f"c{n}", state.version + 1000, legal))
    await cut.wait()
    # Closed, its tasks have ended: what they still decided was dropped, not handed over again.
    await session.aclose()
    assert len(cuts) == 1 and cuts[0].reason is Reason.SLOW_READER
    assert inbox.qsize() > 0, "the session stopped taking decisions once it cut the client off"
