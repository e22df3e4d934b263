"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ...verrater.v1 import ai_pb2 as verrater_dot_v1_dot_ai__pb2
GRPC_GENERATED_VERSION = '1.71.2'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + f' but the generated code in verrater/v1/ai_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class AiServiceStub(object):
    """Missing associated documentation comment in .proto file."""

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.SuggestMove = channel.unary_unary('/verrater.v1.AiService/SuggestMove', request_serializer=verrater_dot_v1_dot_ai__pb2.SuggestMoveRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_ai__pb2.SuggestMoveResponse.FromString, _registered_method=True)

class AiServiceServicer(object):
    """Missing associated documentation comment in .proto file."""

    def SuggestMove(self, request, context):
        """A suggested move for the caller's own seat (a seat token is required). The AI reads the
        caller's view through the game API with the caller's own token, so it can never use
        information the caller could not see.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_AiServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'SuggestMove': grpc.unary_unary_rpc_method_handler(servicer.SuggestMove, request_deserializer=verrater_dot_v1_dot_ai__pb2.SuggestMoveRequest.FromString, response_serializer=verrater_dot_v1_dot_ai__pb2.SuggestMoveResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.AiService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.AiService', rpc_method_handlers)

class AiService(object):
    """Missing associated documentation comment in .proto file."""

    @staticmethod
    def SuggestMove(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.AiService/SuggestMove', verrater_dot_v1_dot_ai__pb2.SuggestMoveRequest.SerializeToString, verrater_dot_v1_dot_ai__pb2.SuggestMoveResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)