"""`cut_off` ends a response stream whose handler is stuck sending to a client that does not
read: the handler ends at once (the server holds nothing more for the call), the refusal's
status follows what the client has not read yet, and neither the cut nor a server stop with
such a stream still open logs an error (gRPC's ExecuteBatchError)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc import aio

from services.errors import Reason, ServiceError
from services.rpc import Context, cut_off, send_headers

METHOD = "/verrater.test.Cut/Send"
#: A client whose receive window stays small, and a message far bigger than it: the server's
#: send of it does not end until the client reads.
SMALL_WINDOW = (("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024))
BIG = b"x" * 1_000_000
#: A guard against a hanging test (a handler that did not end), far beyond what a run takes.
HANG_GUARD_SECONDS = 60


class _Cut(grpc.GenericRpcHandler):
    def __init__(self) -> None:
        self.ended: list[asyncio.Event] = []

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        if handler_call_details.method != METHOD:
            return None
        return grpc.unary_stream_rpc_method_handler(self._send)

    async def _send(self, request: bytes, context: Context) -> AsyncIterator[bytes]:
        ended = asyncio.Event()
        self.ended.append(ended)
        handler = asyncio.current_task()
        assert handler is not None
        # Headers first, so that a status can follow a first message that is stuck.
        await send_headers(context)

        async def cut_when_stuck() -> None:
            # Runs once the handler is suspended in the send of BIG, which cannot end.
            error = ServiceError(Reason.SLOW_READER, "this client does not read")
            cut_off(context, error, METHOD, handler)

        cutting = asyncio.create_task(cut_when_stuck())
        try:
            yield BIG
            yield b"never sent"
        finally:
            ended.set()
            await cutting


async def test_a_stream_stuck_sending_ends_on_the_server_and_its_status_follows_the_unread(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    handlers = _Cut()
    server = aio.server()
    server.add_generic_rpc_handlers([handlers])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with (
            asyncio.timeout(HANG_GUARD_SECONDS),
            aio.insecure_channel(f"127.0.0.1:{port}", options=SMALL_WINDOW) as channel,
        ):
            send = channel.unary_stream(METHOD)
            call = send(b"go")
            while not handlers.ended:
                await asyncio.sleep(0.01)
            # The handler ended while its send was stuck, before this client read anything.
            await handlers.ended[0].wait()
            received = [message async for message in _messages(call)]
            assert received == [BIG]
            assert await call.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            # A second one, still open and unread while the server stops.
            unread = send(b"go")
            while len(handlers.ended) < 2:
                await asyncio.sleep(0.01)
            await handlers.ended[1].wait()
            await server.stop(0.1)
            unread.cancel()
    finally:
        await server.stop(None)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def _messages(call: Any) -> AsyncIterator[bytes]:
    try:
        async for message in call:
            yield message
    except grpc.aio.AioRpcError as ended:
        assert ended.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


class _Gone:
    """A call whose client has left: gRPC fails the batch that would send the headers."""

    async def send_initial_metadata(self, metadata: Any) -> None:
        raise RuntimeError("grpc's ExecuteBatchError, for this test")


async def test_headers_to_a_client_that_left_end_the_call_as_a_cancellation() -> None:
    # Not a fault of ours (the edge would log it as INTERNAL): the end gRPC gives a call its
    # client cancelled.
    with pytest.raises(asyncio.CancelledError):
        await send_headers(_Gone())  # type: ignore[arg-type]
