"""The reason a command was refused, as the detail of its gRPC status.

Unlike the other enums, which travel as engine value + 1, a violation code is matched to the
proto's by name (`VIOLATION_CODE_` + the engine's name), and an unknown code is malformed.
"""

from __future__ import annotations

from services.api.verrater.v1 import errors_pb2
from services.engine import RuleViolation, ViolationCode

from .enums import MalformedMessage

_VIOLATION_PREFIX = "VIOLATION_CODE_"


def violation_to_proto(violation: RuleViolation) -> errors_pb2.RuleViolationDetail:
    """The detail a refused command's gRPC status carries (google.rpc.Status details)."""
    return errors_pb2.RuleViolationDetail(
        code=errors_pb2.ViolationCode.Value(_VIOLATION_PREFIX + violation.code.name),
        message=violation.message,
        field=violation.field,
    )


def violation_from_proto(message: errors_pb2.RuleViolationDetail) -> RuleViolation:
    """The engine's RuleViolation a client received; unknown codes are malformed."""
    try:
        name = errors_pb2.ViolationCode.Name(message.code).removeprefix(_VIOLATION_PREFIX)
        code = ViolationCode[name]
    except (ValueError, KeyError):
        raise MalformedMessage("code", f"{message.code} is not a known ViolationCode") from None
    return RuleViolation(code, message.message, message.field)
