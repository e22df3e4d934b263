"""The one table from refusals to gRPC statuses, used by every service the same way.

Every refusal leaves a service as a status code, a message for people, and in the status
details a `google.rpc.ErrorInfo` (domain ``verrater.v1``, a :class:`Reason`, metadata) plus,
for rule violations, the `verrater.v1.RuleViolationDetail`. What raised it decides the reason:
a :class:`ServiceError` names its own; the libraries' errors are classified here. Anything
else is a fault of ours: the client gets INTERNAL with an incident id, and only the log gets
the traceback and the internal text.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from typing import cast

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from services.api.verrater.v1 import errors_pb2
from services.codec import MalformedCommand, MalformedMessage, violation_to_proto
from services.engine import RuleViolation, ViolationCode
from services.errors import Reason, ServiceError
from services.eventstore import ReplicationUnconfirmed, StoreUnavailable

log = logging.getLogger("verrater.rpc")

#: The ErrorInfo domain of every reason.
DOMAIN = "verrater.v1"

_C = grpc.StatusCode
#: The status code of every reason: the table clients read in docs/CLIENTS.md.
STATUS_CODES: dict[Reason, grpc.StatusCode] = {
    Reason.MALFORMED_REQUEST: _C.INVALID_ARGUMENT,
    Reason.INVALID_ID: _C.INVALID_ARGUMENT,
    Reason.MISSING_FIELD: _C.INVALID_ARGUMENT,
    Reason.MALFORMED_COMMAND: _C.INVALID_ARGUMENT,
    Reason.INVALID_SETUP: _C.INVALID_ARGUMENT,
    Reason.INVALID_DISPLAY_NAME: _C.INVALID_ARGUMENT,
    Reason.INVALID_TABLE_OPTION: _C.INVALID_ARGUMENT,
    Reason.SPECTATOR_HAS_NO_TURNS: _C.INVALID_ARGUMENT,
    Reason.CHAT_TEXT_EMPTY: _C.INVALID_ARGUMENT,
    Reason.CHAT_TEXT_TOO_LONG: _C.INVALID_ARGUMENT,
    Reason.RULE_VIOLATION: _C.FAILED_PRECONDITION,
    Reason.GAME_NOT_FINISHED: _C.FAILED_PRECONDITION,
    Reason.NO_DECISION_PENDING: _C.FAILED_PRECONDITION,
    Reason.COMMAND_ID_REUSED: _C.FAILED_PRECONDITION,
    Reason.REQUEST_ID_REUSED: _C.FAILED_PRECONDITION,
    Reason.TABLE_FULL: _C.FAILED_PRECONDITION,
    Reason.TABLE_NOT_FULL: _C.FAILED_PRECONDITION,
    Reason.SEATS_FIXED: _C.FAILED_PRECONDITION,
    Reason.NOT_SEATED: _C.FAILED_PRECONDITION,
    Reason.GAME_NOT_STARTED: _C.FAILED_PRECONDITION,
    Reason.GAME_REFUSED: _C.FAILED_PRECONDITION,
    Reason.TURN_TIMER_RUNNING: _C.FAILED_PRECONDITION,
    Reason.CHAT_CLOSED: _C.FAILED_PRECONDITION,
    Reason.STALE_VERSION: _C.ABORTED,
    Reason.VERSION_AHEAD: _C.OUT_OF_RANGE,
    Reason.CURSOR_EXPIRED: _C.OUT_OF_RANGE,
    Reason.GAME_NOT_FOUND: _C.NOT_FOUND,
    Reason.TABLE_NOT_FOUND: _C.NOT_FOUND,
    Reason.PLAYER_NOT_FOUND: _C.NOT_FOUND,
    Reason.CHAT_MESSAGE_NOT_FOUND: _C.NOT_FOUND,
    Reason.GAME_EXISTS: _C.ALREADY_EXISTS,
    Reason.ALREADY_SEATED: _C.ALREADY_EXISTS,
    Reason.NOT_YOUR_SEAT: _C.PERMISSION_DENIED,
    Reason.SEAT_NOT_IN_GAME: _C.PERMISSION_DENIED,
    Reason.NOT_HOST: _C.PERMISSION_DENIED,
    Reason.WRONG_INVITE_CODE: _C.PERMISSION_DENIED,
    Reason.SERVICE_ONLY: _C.PERMISSION_DENIED,
    Reason.PLAYER_TOKEN_REQUIRED: _C.PERMISSION_DENIED,
    Reason.PERSONS_SEAT: _C.PERMISSION_DENIED,
    Reason.CHAT_NOT_ALLOWED: _C.PERMISSION_DENIED,
    Reason.BOTS_DO_NOT_CHAT: _C.PERMISSION_DENIED,
    Reason.TOKEN_MISSING: _C.UNAUTHENTICATED,
    Reason.TOKEN_INVALID: _C.UNAUTHENTICATED,
    Reason.TOKEN_EXPIRED: _C.UNAUTHENTICATED,
    Reason.CREDENTIAL_INVALID: _C.UNAUTHENTICATED,
    Reason.RATE_LIMITED: _C.RESOURCE_EXHAUSTED,
    Reason.TOO_MANY_TABLES: _C.RESOURCE_EXHAUSTED,
    Reason.SLOW_READER: _C.RESOURCE_EXHAUSTED,
    Reason.TOO_MANY_STREAMS: _C.RESOURCE_EXHAUSTED,
    Reason.TOO_MANY_MUTED: _C.RESOURCE_EXHAUSTED,
    Reason.STORE_UNAVAILABLE: _C.UNAVAILABLE,
    Reason.REPLICATION_UNCONFIRMED: _C.UNAVAILABLE,
    Reason.GAME_SERVICE_UNAVAILABLE: _C.UNAVAILABLE,
    Reason.BUSY: _C.UNAVAILABLE,
    Reason.INTERNAL: _C.INTERNAL,
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refusal as it leaves a service: what the status (or a Play stream's answer) carries."""

    code: grpc.StatusCode
    reason: Reason
    message: str
    metadata: dict[str, str] = field(default_factory=dict)
    violation: errors_pb2.RuleViolationDetail | None = None

    def error_info(self) -> error_details_pb2.ErrorInfo:
        return error_details_pb2.ErrorInfo(
            reason=self.reason.value, domain=DOMAIN, metadata=self.metadata
        )

    def details(self) -> list[Message]:
        """The status details, ErrorInfo first."""
        details: list[Message] = [self.error_info()]
        if self.violation is not None:
            details.append(self.violation)
        return details

    def status(self) -> grpc.Status:
        """The rich status (`google.rpc.Status` in the trailing metadata) for `context.abort`."""
        packed = []
        for detail in self.details():
            wrapper = any_pb2.Any()
            wrapper.Pack(detail)
            packed.append(wrapper)
        message = status_pb2.Status(
            code=getattr(code_pb2, self.code.name), message=self.message, details=packed
        )
        status: grpc.Status = rpc_status.to_status(message)
        return status


_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def status_code(number: int) -> grpc.StatusCode:
    """The status code of its number, as a CommandRefused carries it (a number gRPC does not
    have reads as UNKNOWN)."""
    return _BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN)


def refusal(error: BaseException) -> Refusal:
    """The refusal an exception raised while serving a request stands for; a fault of ours
    (anything unclassified) is logged with its traceback and answered INTERNAL."""
    known = classified(error)
    return internal(error) if known is None else known


def classified(error: BaseException) -> Refusal | None:
    """The refusal of a known kind of error (without logging anything), None for a fault."""
    match error:
        case ServiceError():
            return Refusal(
                STATUS_CODES[error.reason], error.reason, error.message, dict(error.metadata)
            )
        case RuleViolation() if error.code is ViolationCode.INVALID_SETUP:
            return _refused(Reason.INVALID_SETUP, error.message, field=error.field)
        case RuleViolation():
            return Refusal(
                _C.FAILED_PRECONDITION,
                Reason.RULE_VIOLATION,
                f"{error.code}: {error.message}",
                {"code": str(error.code), **({"field": error.field} if error.field else {})},
                violation_to_proto(error),
            )
        case MalformedCommand():
            return _refused(Reason.MALFORMED_COMMAND, str(error), field=error.field)
        case MalformedMessage():
            return _refused(Reason.MALFORMED_REQUEST, str(error), field=error.field)
        case DecodeError():
            return _refused(
                Reason.MALFORMED_REQUEST, "the request bytes are not this method's request message"
            )
        case ReplicationUnconfirmed(written=True):
            return _refused(
                Reason.REPLICATION_UNCONFIRMED,
                f"the command was written as version {error.version} of game {error.game_id}, "
                f"but {error.acknowledged} of the {error.wanted} replicas it must reach "
                "confirmed it in time: a failover may still take it back. Read the game again "
                "before acting; retrying the same command id is safe",
                game_id=error.game_id,
                version=str(error.version),
            )
        case ReplicationUnconfirmed():
            return _refused(
                Reason.REPLICATION_UNCONFIRMED,
                f"the latest events of game {error.game_id} are written but not yet confirmed "
                "on the store's replicas: the game waits for them. Read it again shortly",
                game_id=error.game_id,
            )
        case StoreUnavailable():
            return _refused(Reason.STORE_UNAVAILABLE, "the event store is unavailable; retry")
        case _:
            return None


def _refused(reason: Reason, message: str, **metadata: str) -> Refusal:
    return Refusal(STATUS_CODES[reason], reason, message, {k: v for k, v in metadata.items() if v})


def internal(error: BaseException) -> Refusal:
    """INTERNAL with an incident id: the log gets the traceback, the client only the id."""
    incident = secrets.token_hex(6)
    log.error("internal error, incident %s", incident, exc_info=error)
    return _refused(
        Reason.INTERNAL,
        f"an internal error occurred; report incident {incident} to the operator",
        incident=incident,
    )


def refusal_of(error: grpc.aio.AioRpcError) -> tuple[Reason, dict[str, str]] | None:
    """The reason (and ErrorInfo metadata) a service of ours gave for refusing a call; None
    when the call carries none: it failed in transit, or the service is not ours."""
    # An AioRpcError carries what rpc_status reads off a call: code, details, trailers.
    status = rpc_status.from_call(cast(grpc.Call, error))
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Is(info.DESCRIPTOR) and detail.Unpack(info) and info.domain == DOMAIN:
            try:
                return Reason(info.reason), dict(info.metadata)
            except ValueError:
                return None
    return None


def relayed(error: grpc.aio.AioRpcError, unavailable: Reason) -> ServiceError:
    """Another service's refusal, passed on to our caller with its own reason (a service that
    calls the game service on a player's behalf refuses what the game service refused).
    Without a reason from the other side, the call failed in transit: `unavailable`."""
    refused = refusal_of(error)
    if refused is not None:
        reason, metadata = refused
        return ServiceError(reason, error.details() or reason.value, **metadata)
    return ServiceError(unavailable, f"the service behind this one failed: {error.details()}")
