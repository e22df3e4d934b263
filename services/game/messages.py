"""The Game API's messages in the application's terms, and back: what a request asks of
`GameApplication` (a `Submission`, a watch mode, a version), and what it answers as messages.

Translation only: whatever is wrong with a request is raised, or carried as a submission's
refusal, with its reason; the servicer (server.py) calls the application with the result.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

from services.api.verrater.v1 import game_pb2
from services.codec import command_from_proto, event_to_proto, view_to_proto
from services.errors import Reason, ServiceError
from services.observability import COMMAND_SECONDS, COMMANDS
from services.rpc import Identity, Role, classified, refusal

from .errors import NotYourSeat
from .play import Answer, Submission
from .values import Update, WatchMode

MAX_COMMAND_ID = 128
COMMAND_ID = re.compile(rf"[A-Za-z0-9_.:-]{{1,{MAX_COMMAND_ID}}}")
WATCH_MODES = {
    game_pb2.WATCH_MODE_EVENTS: WatchMode.EVENTS,
    game_pb2.WATCH_MODE_VIEWS: WatchMode.VIEWS,
    game_pb2.WATCH_MODE_TURNS: WatchMode.TURNS,
}


def seat_of(identity: Identity, game_id: str) -> int:
    seat = identity.seat_in(game_id)
    if seat is None:
        raise NotYourSeat(game_id)
    return seat


def from_version(value: int) -> int:
    if value < 0:
        raise ServiceError(
            Reason.MALFORMED_REQUEST, "from_version cannot be negative", field="from_version"
        )
    return value


def submission(request: game_pb2.SubmitCommandRequest, identity: Identity, seat: int) -> Submission:
    """The decision a request carries; what is wrong with it becomes the refusal."""
    kind = request.command.WhichOneof("command") or "none"
    try:
        if request.turn_timer_expired and identity.role is not Role.SERVICE:
            raise ServiceError(
                Reason.SERVICE_ONLY,
                "only the AI service decides for a seat whose turn timer ran out",
            )
        if not request.command_id:
            raise ServiceError(
                Reason.MISSING_FIELD,
                "command_id is required: an id of your choice for this command, so a retry "
                "applies it once",
                field="command_id",
            )
        if COMMAND_ID.fullmatch(request.command_id) is None:
            raise ServiceError(
                Reason.INVALID_ID,
                f"command_id must be 1-{MAX_COMMAND_ID} letters, digits or '-_.:'",
                field="command_id",
            )
        if request.expected_version <= 0:
            raise ServiceError(
                Reason.MISSING_FIELD if request.expected_version == 0 else Reason.MALFORMED_REQUEST,
                "expected_version is required: the version of the view the command was chosen from",
                field="expected_version",
            )
        command = command_from_proto(request.command, seat)
    except Exception as error:
        return Submission(request.command_id, None, None, refusal=error, kind=kind)
    return Submission(
        request.command_id,
        request.expected_version,
        command,
        request.turn_timer_expired,
        kind=kind,
        by_service=identity.role is Role.SERVICE,
    )


def outcome(error: Exception | None) -> str:
    if error is None:
        return "applied"
    refused = classified(error)
    return "internal" if refused is None else refused.code.name.lower()


def count_command(kind: str, outcome: str, started: float) -> None:
    COMMANDS.labels(kind, outcome).inc()
    COMMAND_SECONDS.observe(time.perf_counter() - started)


def update_message(update: Update, game_id: str) -> game_pb2.GameUpdate:
    message = game_pb2.GameUpdate(version=update.version)
    if update.event is not None:
        message.event.CopyFrom(event_to_proto(update.event))
        message.event.turn_timer_expired = update.turn_timer_expired
        message.event.command_id = update.command_id
        message.event.recorded_at_ms = update.recorded_at_ms
    if update.view is not None:
        message.view.CopyFrom(view_to_proto(update.view, game_id, update.deadline_ms))
    return message


async def decisions(
    requests: AsyncIterator[game_pb2.PlayRequest], identity: Identity, game_id: str, seat: int
) -> AsyncIterator[Submission]:
    """The stream's decisions; a second open (or an empty message) ends the stream."""
    async for request in requests:
        kind = request.WhichOneof("request")
        if kind != "command":
            raise ServiceError(
                Reason.MALFORMED_REQUEST,
                "a Play stream is opened once: send only `command` messages after the first"
                if kind == "open"
                else "a PlayRequest must carry `open` or `command`",
                field="request",
            )
        command = request.command
        if command.game_id and command.game_id != game_id:
            mismatch = ServiceError(
                Reason.MALFORMED_REQUEST,
                f"this Play stream plays game {game_id}: leave game_id empty, or open "
                f"another stream for {command.game_id}",
                field="game_id",
            )
            yield Submission(command.command_id, None, None, refusal=mismatch, kind="none")
        else:
            yield submission(command, identity, seat)
        del request, command


def command_result(answer: Answer) -> game_pb2.CommandResult:
    submission = answer.submission
    message = game_pb2.CommandResult(command_id=submission.command_id)
    if answer.result is not None:
        outcome = "replayed" if answer.result.replayed else "applied"
        message.applied.version = answer.result.version
        message.applied.event_count = len(answer.result.events)
    else:
        assert answer.refusal is not None
        refused = refusal(answer.refusal)
        outcome = refused.code.name.lower()
        message.refused.code = refused.code.value[0]
        message.refused.message = refused.message
        message.refused.reason = refused.reason.value
        message.refused.metadata.update(refused.metadata)
        if refused.violation is not None:
            message.refused.violation.CopyFrom(refused.violation)
    COMMANDS.labels(submission.kind, outcome).inc()
    COMMAND_SECONDS.observe(answer.seconds)
    return message
