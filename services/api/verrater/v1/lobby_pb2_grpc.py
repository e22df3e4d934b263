"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ...verrater.v1 import lobby_pb2 as verrater_dot_v1_dot_lobby__pb2
GRPC_GENERATED_VERSION = '1.71.2'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + f' but the generated code in verrater/v1/lobby_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class LobbyStub(object):
    """Missing associated documentation comment in .proto file."""

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.RegisterGuest = channel.unary_unary('/verrater.v1.Lobby/RegisterGuest', request_serializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Session.FromString, _registered_method=True)
        self.RefreshToken = channel.unary_unary('/verrater.v1.Lobby/RefreshToken', request_serializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Session.FromString, _registered_method=True)
        self.CreateTable = channel.unary_unary('/verrater.v1.Lobby/CreateTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.JoinTable = channel.unary_unary('/verrater.v1.Lobby/JoinTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.LeaveTable = channel.unary_unary('/verrater.v1.Lobby/LeaveTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.AddBot = channel.unary_unary('/verrater.v1.Lobby/AddBot', request_serializer=verrater_dot_v1_dot_lobby__pb2.AddBotRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.ListTables = channel.unary_unary('/verrater.v1.Lobby/ListTables', request_serializer=verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.FromString, _registered_method=True)
        self.QuickMatch = channel.unary_unary('/verrater.v1.Lobby/QuickMatch', request_serializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.StartGame = channel.unary_unary('/verrater.v1.Lobby/StartGame', request_serializer=verrater_dot_v1_dot_lobby__pb2.StartGameRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.GetSeatToken = channel.unary_unary('/verrater.v1.Lobby/GetSeatToken', request_serializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.SeatToken.FromString, _registered_method=True)
        self.GetTable = channel.unary_unary('/verrater.v1.Lobby/GetTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.GetTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)
        self.WatchTable = channel.unary_stream('/verrater.v1.Lobby/WatchTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.Table.FromString, _registered_method=True)

class LobbyServicer(object):
    """Missing associated documentation comment in .proto file."""

    def RegisterGuest(self, request, context):
        """Create a guest player; the token identifies the player in every later call.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def RefreshToken(self, request, context):
        """A fresh token for the caller (before the current one expires).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CreateTable(self, request, context):
        """Open a table with the caller in seat 0 as host.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def JoinTable(self, request, context):
        """Take a free seat (a private table needs its invite code).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def LeaveTable(self, request, context):
        """Give up a seat before the game starts; a host who leaves hands the table on (or closes it
        when nobody else is seated).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def AddBot(self, request, context):
        """The host seats a bot of a level in a free seat.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListTables(self, request, context):
        """Open public tables, oldest first.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def QuickMatch(self, request, context):
        """Join the oldest open public table that fits, else open one; optionally fill the remaining
        seats with bots after a wait the caller chooses.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def StartGame(self, request, context):
        """Start the game of a full table (the host only). Starting twice creates one game.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetSeatToken(self, request, context):
        """The caller's seat token for the started game of a table they sit at.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetTable(self, request, context):
        """One table, as the caller may see it.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchTable(self, request, context):
        """The table now and at every change, until its game has started (then the stream ends).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_LobbyServicer_to_server(servicer, server):
    rpc_method_handlers = {'RegisterGuest': grpc.unary_unary_rpc_method_handler(servicer.RegisterGuest, request_deserializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Session.SerializeToString), 'RefreshToken': grpc.unary_unary_rpc_method_handler(servicer.RefreshToken, request_deserializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Session.SerializeToString), 'CreateTable': grpc.unary_unary_rpc_method_handler(servicer.CreateTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'JoinTable': grpc.unary_unary_rpc_method_handler(servicer.JoinTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'LeaveTable': grpc.unary_unary_rpc_method_handler(servicer.LeaveTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'AddBot': grpc.unary_unary_rpc_method_handler(servicer.AddBot, request_deserializer=verrater_dot_v1_dot_lobby__pb2.AddBotRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'ListTables': grpc.unary_unary_rpc_method_handler(servicer.ListTables, request_deserializer=verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.SerializeToString), 'QuickMatch': grpc.unary_unary_rpc_method_handler(servicer.QuickMatch, request_deserializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'StartGame': grpc.unary_unary_rpc_method_handler(servicer.StartGame, request_deserializer=verrater_dot_v1_dot_lobby__pb2.StartGameRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'GetSeatToken': grpc.unary_unary_rpc_method_handler(servicer.GetSeatToken, request_deserializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.SeatToken.SerializeToString), 'GetTable': grpc.unary_unary_rpc_method_handler(servicer.GetTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.GetTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString), 'WatchTable': grpc.unary_stream_rpc_method_handler(servicer.WatchTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.Table.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.Lobby', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.Lobby', rpc_method_handlers)

class Lobby(object):
    """Missing associated documentation comment in .proto file."""

    @staticmethod
    def RegisterGuest(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/RegisterGuest', verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Session.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def RefreshToken(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/RefreshToken', verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Session.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CreateTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/CreateTable', verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def JoinTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/JoinTable', verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def LeaveTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/LeaveTable', verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AddBot(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/AddBot', verrater_dot_v1_dot_lobby__pb2.AddBotRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListTables(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/ListTables', verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def QuickMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/QuickMatch', verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def StartGame(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/StartGame', verrater_dot_v1_dot_lobby__pb2.StartGameRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetSeatToken(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/GetSeatToken', verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.SeatToken.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.Lobby/GetTable', verrater_dot_v1_dot_lobby__pb2.GetTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/verrater.v1.Lobby/WatchTable', verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.Table.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)