"""The Chat gRPC service: a thin entry point over `ChatApplication`.

Each handler decodes its request, calls the application and encodes what it answers; refusals
leave through the rpc edge's one table (services/rpc/status.py): INVALID_ARGUMENT (empty or too
long text, ids, cursors), NOT_FOUND (table, player, message), PERMISSION_DENIED (a channel not
the caller's, bots, a seat token of another game), FAILED_PRECONDITION (a closed channel),
OUT_OF_RANGE (an expired cursor), RESOURCE_EXHAUSTED (rates, streams, slow readers, mutes),
UNAVAILABLE (the store).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from typing import Any, cast

import grpc
from grpc import aio

from services.api.verrater.v1 import chat_pb2, chat_pb2_grpc
from services.errors import Reason, ServiceError
from services.rpc import Context, authenticated, checked_id, cutting_off, send_headers

from .model import Channel, ChatMessage
from .service import ChatApplication

_CHANNELS = {
    Channel.TABLE: chat_pb2.CHAT_CHANNEL_TABLE,
    Channel.SPECTATORS: chat_pb2.CHAT_CHANNEL_SPECTATORS,
}
_FROM_WIRE = {wire: channel for channel, wire in _CHANNELS.items()}
SERVICE = chat_pb2.DESCRIPTOR.services_by_name["ChatService"].full_name


def channel_from_proto(wire: int) -> Channel | None:
    """A requested channel; None for unspecified (the caller's own)."""
    if wire == chat_pb2.CHAT_CHANNEL_UNSPECIFIED:
        return None
    channel = _FROM_WIRE.get(chat_pb2.ChatChannel.ValueType(wire))
    if channel is None:
        raise ServiceError(
            Reason.MALFORMED_REQUEST, f"unknown chat channel {wire}", field="channel"
        )
    return channel


def message_to_proto(message: ChatMessage) -> chat_pb2.ChatMessage:
    wire = chat_pb2.ChatMessage(
        cursor=message.cursor,
        table_id=message.table_id,
        channel=_CHANNELS[message.channel],
        sender_id=message.sender_id,
        display_name=message.display_name,
        text=message.text,
    )
    wire.sent_at.FromMilliseconds(message.sent_at_ms)
    return wire


#: Messages whose WatchChat response stays encoded (the newest): one encoding for every
#: stream of a table, however many watch it.
ENCODED_KEPT = 1024


@functools.lru_cache(maxsize=ENCODED_KEPT)
def encoded(message: ChatMessage) -> bytes:
    """The WatchChat response carrying `message`, as sent on the wire."""
    return chat_pb2.WatchChatResponse(message=message_to_proto(message)).SerializeToString()


def _as_sent(response: bytes | chat_pb2.WatchChatResponse) -> bytes:
    return response if isinstance(response, bytes) else response.SerializeToString()


class _Registered:
    """Stands in for a server while the generated code registers the service's handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass  # built again from `handlers` below

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self.handlers = dict(handlers)


def add_to_server(servicer: ChatServicer, server: aio.Server) -> None:
    """Serve ChatService on `server` as the generated code would, but for WatchChat's responses,
    which the servicer hands over already encoded (`encoded`: once per message for all its
    watchers)."""
    registered = _Registered()
    chat_pb2_grpc.add_ChatServiceServicer_to_server(servicer, cast(aio.Server, registered))
    handlers = registered.handlers
    watch = handlers["WatchChat"]
    assert watch.unary_stream is not None
    handlers["WatchChat"] = grpc.unary_stream_rpc_method_handler(
        watch.unary_stream, watch.request_deserializer, _as_sent
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_registered_method_handlers(SERVICE, handlers)


def _table_id(value: str) -> str:
    return checked_id(value, "table_id")


class ChatServicer(chat_pb2_grpc.ChatServiceServicer):
    """The Chat service's RPCs."""

    def __init__(self, app: ChatApplication) -> None:
        self.app = app

    def add_to(self, server: aio.Server) -> None:
        """Serve this on `server` (see `add_to_server`)."""
        add_to_server(self, server)

    async def SendChatMessage(
        self, request: chat_pb2.SendChatMessageRequest, context: Context
    ) -> chat_pb2.SendChatMessageResponse:
        """Write one message to a channel of a table."""
        message = await self.app.send(
            authenticated(),
            self.app.table_named(request.table_id, request.game_id),
            channel_from_proto(request.channel),
            request.text,
            request.request_id,
        )
        return chat_pb2.SendChatMessageResponse(message=message_to_proto(message))

    async def WatchChat(  # type: ignore[override]  # bytes: see add_to_server
        self, request: chat_pb2.WatchChatRequest, context: Context
    ) -> AsyncIterator[bytes]:
        """The table's messages the caller may read, after a cursor, then live (each response
        encoded once for every stream: see `add_to_server`)."""
        messages = await self.app.watch(
            authenticated(),
            self.app.table_named(request.table_id, request.game_id),
            request.cursor,
            request.backlog,
            on_cut=cutting_off(context),
        )
        try:
            # Once "now" is fixed (a client that saw the headers misses nothing written
            # after), and so that a cut can end the stream (`cut_off`).
            await send_headers(context)
            async for message in messages:
                yield encoded(message)
        finally:
            await messages.aclose()

    async def MuteChatPlayer(
        self, request: chat_pb2.MuteChatPlayerRequest, context: Context
    ) -> chat_pb2.MuteChatPlayerResponse:
        """Mute or unmute another player for the caller."""
        mutes = await self.app.mute(authenticated(), request.player_id, request.muted)
        return chat_pb2.MuteChatPlayerResponse(muted_player_ids=sorted(mutes))

    async def ReportChatMessage(
        self, request: chat_pb2.ReportChatMessageRequest, context: Context
    ) -> chat_pb2.ReportChatMessageResponse:
        """Report a message to the operators."""
        report = await self.app.report(
            authenticated(), _table_id(request.table_id), request.cursor, request.note
        )
        return chat_pb2.ReportChatMessageResponse(report_id=report.report_id)
