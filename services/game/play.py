"""One seat's game over one stream, as an application object: turns out, decisions in, each
decision answered in order.

The gRPC `Play` method only decodes the client's messages into :class:`Submission`s and encodes
what :meth:`PlaySession.run` yields; everything a Play stream does (when a turn is sent, in what
order answers come, when the stream ends, how much may wait for a slow reader) lives here and is
tested without a server.

Two tasks feed one outbox, the seat's turns and the answers to its decisions, and `run` yields
what they put in it. The session ends after the final view, once the decision in hand (if any)
is answered. The outbox is bounded: a client that sends but does not read is cut off once
`max_pending` messages wait for it, so it cannot make the server hold what it never reads.

The cut reaches the stream through the outbox, as the `SlowReader` that `run` raises, when the
stream is waiting for its next message. When it is not, it is away sending the last one, and to
a client that does not read (its HTTP/2 window full) that send never ends: `on_cut_while_sending`
is then called with the `SlowReader`, for the server to end the stream itself.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from services.engine import PlayerCommand
from services.errors import Reason, ServiceError

from .service import GameApplication
from .values import CommandResult, Update, WatchMode

#: Messages that may wait for a Play client before it is cut off (it is not reading).
DEFAULT_MAX_PENDING = 32


@dataclass(frozen=True, slots=True)
class Submission:
    """One decision sent on the stream, decoded; `refusal` is what decoding it raised (the
    decision is then answered with it, in its turn, and nothing is applied)."""

    command_id: str
    expected_version: int | None
    command: PlayerCommand | None
    turn_timer_expired: bool = False
    refusal: Exception | None = None
    #: Sent with a service's token (the AI's workers): the game checks the seat is theirs to play.
    by_service: bool = False
    #: What kind of decision it is, for metrics and logs (the command's name on the wire).
    kind: str = ""


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer to one submission: `result` when applied, `refusal` when not, and how long
    deciding it took."""

    submission: Submission
    result: CommandResult | None
    refusal: Exception | None
    seconds: float


class SlowReader(ServiceError):
    def __init__(self, pending: int) -> None:
        super().__init__(
            Reason.SLOW_READER,
            f"{pending} messages waited for this stream's client, which does not read them: "
            "read every message, then open the stream again from the version you last saw",
            max_pending=str(pending),
        )


_End = None


class PlaySession:
    """A seat's Play stream over `app` (see the module docstring).

    `admit()` is asked before each decision and raises the refusal that answers it instead
    (the per-player rate limit, in the server). `on_cut_while_sending(cut)` is called when the
    client is cut off while the stream is away sending (the server ends the stream then).
    """

    def __init__(
        self,
        app: GameApplication,
        game_id: str,
        seat: int,
        *,
        from_version: int = 0,
        admit: Callable[[], None] | None = None,
        max_pending: int = DEFAULT_MAX_PENDING,
        on_cut_while_sending: Callable[[SlowReader], None] | None = None,
    ) -> None:
        self._app = app
        self._game_id = game_id
        self._seat = seat
        self._from_version = from_version
        self._admit = admit
        self._max_pending = max_pending
        self._outbox: asyncio.Queue[Update | Answer | BaseException | None] = asyncio.Queue()
        # Set once the client was cut off: nothing more is taken or answered.
        self._cut = False
        # Held while a decision is being decided: the end waits for its answer.
        self._deciding = asyncio.Lock()
        self._on_cut_while_sending = on_cut_while_sending
        # True while `run` waits for the outbox (False while its last message is being sent).
        self._waiting = False

    async def run(self, submissions: AsyncIterator[Submission]) -> AsyncIterator[Update | Answer]:
        """The stream's messages: turns (`Update`) and answers (`Answer`), in order; raises
        what ends the stream abnormally (an unknown game, a failed store, a slow reader)."""
        turns = asyncio.create_task(self._follow_turns())
        decisions = asyncio.create_task(self._take(submissions))
        try:
            while True:
                self._waiting = True
                try:
                    item = await self._outbox.get()
                finally:
                    self._waiting = False
                if item is _End:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
                del item  # not held while the next is awaited
        finally:
            turns.cancel()
            decisions.cancel()
            await asyncio.gather(turns, decisions, return_exceptions=True)

    def _put(self, item: Update | Answer | BaseException | None) -> None:
        if self._cut:
            return
        outbox = self._outbox
        if isinstance(item, (Update, Answer)) and outbox.qsize() >= self._max_pending:
            # Drop what waits (its memory goes now) and end the stream with the reason.
            while not outbox.empty():
                outbox.get_nowait()
            cut = SlowReader(self._max_pending)
            self._cut = True
            outbox.put_nowait(cut)
            if not self._waiting and self._on_cut_while_sending is not None:
                self._on_cut_while_sending(cut)  # `run` is in a send that may never end
            return
        outbox.put_nowait(item)

    async def _follow_turns(self) -> None:
        """The seat's turns into the outbox; at the end, stop taking decisions."""
        try:
            updates = self._app.updates(
                self._game_id, self._seat, self._from_version, WatchMode.TURNS
            )
            async for update in updates:
                self._put(update)
                del update
        except Exception as error:  # handed to the stream, which ends with it
            self._put(error)
            return
        async with self._deciding:  # a decision in hand is answered before the stream ends
            self._put(_End)

    async def _take(self, submissions: AsyncIterator[Submission]) -> None:
        """The stream's decisions, decided one at a time, their answers into the outbox."""
        try:
            async for submission in submissions:
                if self._cut:
                    return
                async with self._deciding:
                    self._put(await self._decide(submission))
                del submission
        except Exception as error:  # handed to the stream, which ends with it
            self._put(error)

    async def _decide(self, submission: Submission) -> Answer:
        return await decide(self._app, self._game_id, self._seat, submission, self._admit)


async def apply(
    app: GameApplication,
    game_id: str,
    seat: int,
    submission: Submission,
    admit: Callable[[], None] | None = None,
) -> CommandResult:
    """Apply one decoded decision for `seat` (SubmitCommand's, a Play stream's, or one of a
    SubmitCommands call's); raises its refusal, `admit()`'s included."""
    if submission.refusal is not None:
        raise submission.refusal
    if submission.command is None:
        raise ServiceError(Reason.MISSING_FIELD, "the decision carries no command", field="command")
    if admit is not None:
        admit()
    return await app.submit(
        game_id,
        seat,
        submission.command,
        expected_version=submission.expected_version,
        command_id=submission.command_id,
        turn_timer_expired=submission.turn_timer_expired,
        by_service=submission.by_service,
    )


async def decide(
    app: GameApplication,
    game_id: str,
    seat: int,
    submission: Submission,
    admit: Callable[[], None] | None = None,
) -> Answer:
    """`apply`, where every refusal answers the decision instead of being raised (a Play
    stream's decisions, and each of a SubmitCommands call's)."""
    started = time.perf_counter()
    try:
        result = await apply(app, game_id, seat, submission, admit)
    except Exception as refusal:  # every refusal answers this decision; the others go on
        return Answer(submission, None, refusal, time.perf_counter() - started)
    return Answer(submission, result, None, time.perf_counter() - started)
