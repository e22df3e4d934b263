"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ...verrater.v1 import stats_pb2 as verrater_dot_v1_dot_stats__pb2
GRPC_GENERATED_VERSION = '1.71.2'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + f' but the generated code in verrater/v1/stats_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class StatsServiceStub(object):
    """Missing associated documentation comment in .proto file."""

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.ListFinishedGames = channel.unary_unary('/verrater.v1.StatsService/ListFinishedGames', request_serializer=verrater_dot_v1_dot_stats__pb2.ListFinishedGamesRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_stats__pb2.ListFinishedGamesResponse.FromString, _registered_method=True)
        self.GetRating = channel.unary_unary('/verrater.v1.StatsService/GetRating', request_serializer=verrater_dot_v1_dot_stats__pb2.GetRatingRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_stats__pb2.GetRatingResponse.FromString, _registered_method=True)
        self.Leaderboard = channel.unary_unary('/verrater.v1.StatsService/Leaderboard', request_serializer=verrater_dot_v1_dot_stats__pb2.LeaderboardRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_stats__pb2.LeaderboardResponse.FromString, _registered_method=True)

class StatsServiceServicer(object):
    """Missing associated documentation comment in .proto file."""

    def ListFinishedGames(self, request, context):
        """A player's finished games, newest first, a page at a time.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetRating(self, request, context):
        """A player's rating (the starting rating if they have not finished a ranked game yet).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Leaderboard(self, request, context):
        """The best rated players, best first.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_StatsServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'ListFinishedGames': grpc.unary_unary_rpc_method_handler(servicer.ListFinishedGames, request_deserializer=verrater_dot_v1_dot_stats__pb2.ListFinishedGamesRequest.FromString, response_serializer=verrater_dot_v1_dot_stats__pb2.ListFinishedGamesResponse.SerializeToString), 'GetRating': grpc.unary_unary_rpc_method_handler(servicer.GetRating, request_deserializer=verrater_dot_v1_dot_stats__pb2.GetRatingRequest.FromString, response_serializer=verrater_dot_v1_dot_stats__pb2.GetRatingResponse.SerializeToString), 'Leaderboard': grpc.unary_unary_rpc_method_handler(servicer.Leaderboard, request_deserializer=verrater_dot_v1_dot_stats__pb2.LeaderboardRequest.FromString, response_serializer=verrater_dot_v1_dot_stats__pb2.LeaderboardResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.StatsService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.StatsService', rpc_method_handlers)

class StatsService(object):
    """Missing associated documentation comment in .proto file."""

    @staticmethod
    def ListFinishedGames(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.StatsService/ListFinishedGames', verrater_dot_v1_dot_stats__pb2.ListFinishedGamesRequest.SerializeToString, verrater_dot_v1_dot_stats__pb2.ListFinishedGamesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetRating(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.StatsService/GetRating', verrater_dot_v1_dot_stats__pb2.GetRatingRequest.SerializeToString, verrater_dot_v1_dot_stats__pb2.GetRatingResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Leaderboard(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.StatsService/Leaderboard', verrater_dot_v1_dot_stats__pb2.LeaderboardRequest.SerializeToString, verrater_dot_v1_dot_stats__pb2.LeaderboardResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)