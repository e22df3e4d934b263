"""What a refused call's status says to a client: its `ErrorInfo` reason (docs/CLIENTS.md)."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.ai.turns import CommandRefused


def reason_of(error: grpc.aio.AioRpcError | CommandRefused) -> str:
    """The reason (`ErrorInfo`, domain `verrater.v1`) a call, or one command of a
    SubmitCommands call, was refused with."""
    if isinstance(error, CommandRefused):
        return error.reason
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.domain == "verrater.v1"
    return str(info.reason)


def metadata_of(error: grpc.aio.AioRpcError) -> dict[str, str]:
    """The `ErrorInfo` metadata a refused call carries."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return dict(info.metadata)
