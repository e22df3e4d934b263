"""A hostile call made, and what came back: the responses, how the call ended, and each refusal
with its ErrorInfo (a Play stream's refused decisions too), for the fuzz suite (tests/hostile)
and `verrater bench abuse` to judge.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc import aio
from grpc_status import rpc_status

from services.api.verrater.v1 import game_pb2
from services.rpc import DOMAIN, status_code

from .hostile import HostileCall


@dataclass(frozen=True, slots=True)
class Refused:
    """How a call, or one decision on a Play stream, was refused."""

    code: grpc.StatusCode
    #: The ErrorInfo's reason ("" when the status carried none), and its domain.
    reason: str
    domain: str
    message: str


@dataclass(slots=True)
class Answer:
    """What came back: the responses, and the refusals (the call's own status when it ended
    with one, and each refused decision of a Play stream or a SubmitCommands call)."""

    responses: list[bytes] = field(default_factory=list)
    #: The call's status; None when it was still open after the wait (and was cancelled), or
    #: when it ended while a request was being written (`write_cut`).
    status: grpc.StatusCode | None = None
    refusal: Refused | None = None
    decisions_refused: list[Refused] = field(default_factory=list)
    #: Play streams and SubmitCommands: decisions applied (an accepted request may change the
    #: game).
    decisions_applied: int = 0
    #: The server ended the stream while this client was writing to it. gRPC's Python client
    #: then replaces the server's status with its own INTERNAL ("Internal error from Core"),
    #: so what the server answered is unknown (`send` leaves a pause after each write, which
    #: makes this rare).
    write_cut: bool = False

    def refusals(self) -> list[Refused]:
        return ([self.refusal] if self.refusal is not None else []) + self.decisions_refused


def _refused_from(error: grpc.aio.AioRpcError) -> Refused:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return Refused(error.code(), info.reason, info.domain, error.details() or "")
    return Refused(error.code(), "", "", error.details() or "")


def _identity(data: bytes) -> bytes:
    return data


async def send(
    channel: aio.Channel,
    call: HostileCall,
    *,
    first_wait_s: float = 0.3,
    quiet_s: float = 0.05,
    max_responses: int = 300,
) -> Answer:
    """Make the call and read what comes back. A stream is read until it has been quiet for
    `quiet_s` (`first_wait_s` for its first message, and after each request written to it),
    then cancelled if it is still open."""
    method = call.method
    answer = Answer()
    if not method.server_streaming:
        if method.client_streaming:
            raise NotImplementedError(f"{method.path}: a request stream with one answer")
        unary = channel.unary_unary(
            method.path, request_serializer=_identity, response_deserializer=_identity
        )
        try:
            answer.responses.append(
                await unary(call.requests[0], metadata=call.metadata, timeout=30)
            )
            answer.status = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as error:
            answer.status = error.code()
            answer.refusal = _refused_from(error)
        if method.path == SUBMIT_COMMANDS_PATH:
            for raw in answer.responses:
                for result in game_pb2.SubmitCommandsResponse.FromString(raw).results:
                    _count_result(answer, result)
        return answer
    stream: Any
    if method.client_streaming:
        stream = channel.stream_stream(
            method.path, request_serializer=_identity, response_deserializer=_identity
        )(metadata=call.metadata)
    else:
        stream = channel.unary_stream(
            method.path, request_serializer=_identity, response_deserializer=_identity
        )(call.requests[0], metadata=call.metadata)
    # One read at a time, never cancelled by a timeout (that would cancel the call).
    reader = asyncio.create_task(_read_all(stream, answer, max_responses))
    try:
        for request in call.requests if method.client_streaming else ():
            if reader.done():
                break
            try:
                await stream.write(request)
            except asyncio.InvalidStateError:  # it ended before: the reader has its status
                break
            except grpc.aio.AioRpcError:
                answer.write_cut = True
                break
            # A pause before the next request, so that a refusal of this one ends the call
            # before another write races it.
            await _until_quiet(reader, answer, quiet_s, quiet_s)
        await _until_quiet(reader, answer, first_wait_s, quiet_s)
    finally:
        stream.cancel()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    if answer.write_cut:  # the status read is the client's, not the server's
        answer.status, answer.refusal = None, None
    if method.path == PLAY_PATH:
        _read_play(answer)
    return answer


async def _read_all(stream: Any, answer: Answer, most: int) -> None:
    """The stream's messages into `answer`, then how it ended."""
    try:
        while len(answer.responses) < most:
            response = await stream.read()
            if response is aio.EOF:
                answer.status = grpc.StatusCode.OK
                return
            answer.responses.append(response)
    except grpc.aio.AioRpcError as error:
        answer.status = error.code()
        answer.refusal = _refused_from(error)


async def _until_quiet(
    reader: asyncio.Task[None], answer: Answer, first_s: float, quiet_s: float
) -> None:
    """Until the stream ends, or nothing came for a while (`first_s` at first, then `quiet_s`)."""
    wait = first_s
    while not reader.done():
        seen = len(answer.responses)
        await asyncio.wait({reader}, timeout=wait)
        if len(answer.responses) == seen:
            return
        wait = quiet_s


_GAME_SERVICE = "/" + game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
PLAY_PATH = _GAME_SERVICE + "/Play"
SUBMIT_COMMANDS_PATH = _GAME_SERVICE + "/SubmitCommands"


def _read_play(answer: Answer) -> None:
    for raw in answer.responses:
        response = game_pb2.PlayResponse.FromString(raw)
        if response.HasField("result"):
            _count_result(answer, response.result)


def _count_result(answer: Answer, result: game_pb2.CommandResult) -> None:
    """One decision's answer (on a Play stream, or in a SubmitCommands response)."""
    if result.HasField("applied"):
        answer.decisions_applied += 1
        return
    refused = result.refused
    answer.decisions_refused.append(
        Refused(status_code(refused.code), refused.reason, DOMAIN, refused.message)
    )
