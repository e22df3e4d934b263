"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ...verrater.v1 import chat_pb2 as verrater_dot_v1_dot_chat__pb2
GRPC_GENERATED_VERSION = '1.71.2'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + f' but the generated code in verrater/v1/chat_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class ChatServiceStub(object):
    """Missing associated documentation comment in .proto file."""

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.SendChatMessage = channel.unary_unary('/verrater.v1.ChatService/SendChatMessage', request_serializer=verrater_dot_v1_dot_chat__pb2.SendChatMessageRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_chat__pb2.SendChatMessageResponse.FromString, _registered_method=True)
        self.WatchChat = channel.unary_stream('/verrater.v1.ChatService/WatchChat', request_serializer=verrater_dot_v1_dot_chat__pb2.WatchChatRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_chat__pb2.WatchChatResponse.FromString, _registered_method=True)
        self.MuteChatPlayer = channel.unary_unary('/verrater.v1.ChatService/MuteChatPlayer', request_serializer=verrater_dot_v1_dot_chat__pb2.MuteChatPlayerRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_chat__pb2.MuteChatPlayerResponse.FromString, _registered_method=True)
        self.ReportChatMessage = channel.unary_unary('/verrater.v1.ChatService/ReportChatMessage', request_serializer=verrater_dot_v1_dot_chat__pb2.ReportChatMessageRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_chat__pb2.ReportChatMessageResponse.FromString, _registered_method=True)

class ChatServiceServicer(object):
    """Missing associated documentation comment in .proto file."""

    def SendChatMessage(self, request, context):
        """Write one message to a channel of a table. The text is normalised first (Unicode NFC; control
        characters and bidirectional overrides removed; surrounding white space trimmed): empty
        after that is INVALID_ARGUMENT (CHAT_TEXT_EMPTY), more than 280 characters after that
        INVALID_ARGUMENT (CHAT_TEXT_TOO_LONG). Too many messages are RESOURCE_EXHAUSTED
        (RATE_LIMITED, with `retry_after_ms` and `scope` "player" or "table" in the ErrorInfo).
        A channel the caller may not write is PERMISSION_DENIED (CHAT_NOT_ALLOWED); a channel closed
        (30 minutes after the game ended, or a closed table) FAILED_PRECONDITION (CHAT_CLOSED).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchChat(self, request, context):
        """The table's messages the caller may read, from a cursor: the stream first sends what came
        after the cursor, then each message as it is written. Keep the cursor of the last message
        handled and pass it when reconnecting: nothing is missed, nothing repeated. Messages of a
        player the caller muted are left out. A cursor too old to resume from (chat is kept 500
        messages and 2 days per table) answers OUT_OF_RANGE (CURSOR_EXPIRED): watch again without a
        cursor.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def MuteChatPlayer(self, request, context):
        """Mute (or unmute) another player for the caller only: their messages no longer reach the
        caller's WatchChat streams, at any table. Others still see them.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ReportChatMessage(self, request, context):
        """Report a message the caller can read to the operators (`verrater chat-reports` lists the
        reports). Reporting the same message twice keeps one report.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_ChatServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'SendChatMessage': grpc.unary_unary_rpc_method_handler(servicer.SendChatMessage, request_deserializer=verrater_dot_v1_dot_chat__pb2.SendChatMessageRequest.FromString, response_serializer=verrater_dot_v1_dot_chat__pb2.SendChatMessageResponse.SerializeToString), 'WatchChat': grpc.unary_stream_rpc_method_handler(servicer.WatchChat, request_deserializer=verrater_dot_v1_dot_chat__pb2.WatchChatRequest.FromString, response_serializer=verrater_dot_v1_dot_chat__pb2.WatchChatResponse.SerializeToString), 'MuteChatPlayer': grpc.unary_unary_rpc_method_handler(servicer.MuteChatPlayer, request_deserializer=verrater_dot_v1_dot_chat__pb2.MuteChatPlayerRequest.FromString, response_serializer=verrater_dot_v1_dot_chat__pb2.MuteChatPlayerResponse.SerializeToString), 'ReportChatMessage': grpc.unary_unary_rpc_method_handler(servicer.ReportChatMessage, request_deserializer=verrater_dot_v1_dot_chat__pb2.ReportChatMessageRequest.FromString, response_serializer=verrater_dot_v1_dot_chat__pb2.ReportChatMessageResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.ChatService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.ChatService', rpc_method_handlers)

class ChatService(object):
    """Missing associated documentation comment in .proto file."""

    @staticmethod
    def SendChatMessage(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.ChatService/SendChatMessage', verrater_dot_v1_dot_chat__pb2.SendChatMessageRequest.SerializeToString, verrater_dot_v1_dot_chat__pb2.SendChatMessageResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchChat(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/verrater.v1.ChatService/WatchChat', verrater_dot_v1_dot_chat__pb2.WatchChatRequest.SerializeToString, verrater_dot_v1_dot_chat__pb2.WatchChatResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def MuteChatPlayer(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.ChatService/MuteChatPlayer', verrater_dot_v1_dot_chat__pb2.MuteChatPlayerRequest.SerializeToString, verrater_dot_v1_dot_chat__pb2.MuteChatPlayerResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ReportChatMessage(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.ChatService/ReportChatMessage', verrater_dot_v1_dot_chat__pb2.ReportChatMessageRequest.SerializeToString, verrater_dot_v1_dot_chat__pb2.ReportChatMessageResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)