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

class LobbyServiceStub(object):
    """Missing associated documentation comment in .proto file."""

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.RegisterGuest = channel.unary_unary('/verrater.v1.LobbyService/RegisterGuest', request_serializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestResponse.FromString, _registered_method=True)
        self.SignIn = channel.unary_unary('/verrater.v1.LobbyService/SignIn', request_serializer=verrater_dot_v1_dot_lobby__pb2.SignInRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.SignInResponse.FromString, _registered_method=True)
        self.RefreshToken = channel.unary_unary('/verrater.v1.LobbyService/RefreshToken', request_serializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenResponse.FromString, _registered_method=True)
        self.RotateCredential = channel.unary_unary('/verrater.v1.LobbyService/RotateCredential', request_serializer=verrater_dot_v1_dot_lobby__pb2.RotateCredentialRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.RotateCredentialResponse.FromString, _registered_method=True)
        self.CreateTable = channel.unary_unary('/verrater.v1.LobbyService/CreateTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.CreateTableResponse.FromString, _registered_method=True)
        self.JoinTable = channel.unary_unary('/verrater.v1.LobbyService/JoinTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.JoinTableResponse.FromString, _registered_method=True)
        self.LeaveTable = channel.unary_unary('/verrater.v1.LobbyService/LeaveTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableResponse.FromString, _registered_method=True)
        self.AddBot = channel.unary_unary('/verrater.v1.LobbyService/AddBot', request_serializer=verrater_dot_v1_dot_lobby__pb2.AddBotRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.AddBotResponse.FromString, _registered_method=True)
        self.ListTables = channel.unary_unary('/verrater.v1.LobbyService/ListTables', request_serializer=verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.FromString, _registered_method=True)
        self.QuickMatch = channel.unary_unary('/verrater.v1.LobbyService/QuickMatch', request_serializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchResponse.FromString, _registered_method=True)
        self.StartGame = channel.unary_unary('/verrater.v1.LobbyService/StartGame', request_serializer=verrater_dot_v1_dot_lobby__pb2.StartGameRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.StartGameResponse.FromString, _registered_method=True)
        self.GetSeatToken = channel.unary_unary('/verrater.v1.LobbyService/GetSeatToken', request_serializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenResponse.FromString, _registered_method=True)
        self.GetTable = channel.unary_unary('/verrater.v1.LobbyService/GetTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.GetTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.GetTableResponse.FromString, _registered_method=True)
        self.WatchTable = channel.unary_stream('/verrater.v1.LobbyService/WatchTable', request_serializer=verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.WatchTableResponse.FromString, _registered_method=True)
        self.ListMyGames = channel.unary_unary('/verrater.v1.LobbyService/ListMyGames', request_serializer=verrater_dot_v1_dot_lobby__pb2.ListMyGamesRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.ListMyGamesResponse.FromString, _registered_method=True)
        self.WatchNotifications = channel.unary_stream('/verrater.v1.LobbyService/WatchNotifications', request_serializer=verrater_dot_v1_dot_lobby__pb2.WatchNotificationsRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_lobby__pb2.WatchNotificationsResponse.FromString, _registered_method=True)

class LobbyServiceServicer(object):
    """Missing associated documentation comment in .proto file."""

    def RegisterGuest(self, request, context):
        """Create a guest player: a token for the calls that follow and the credential to sign in with
        later (returned here and by RotateCredential only).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def SignIn(self, request, context):
        """A fresh token for a player who holds their credential (no token needed). A wrong or revoked
        credential is UNAUTHENTICATED (CREDENTIAL_INVALID); attempts are rate-limited per player and
        per network peer.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def RefreshToken(self, request, context):
        """A fresh token for the caller (before the current one expires). A token issued under a
        credential rotated away since is refused UNAUTHENTICATED (CREDENTIAL_INVALID).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def RotateCredential(self, request, context):
        """Replace the caller's credential (a lost phone): the old one stops working at once, and the
        tokens issued under it can no longer be refreshed or rotate it (CREDENTIAL_INVALID); they
        still work elsewhere until they expire.
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
        """Give up a seat before the game starts; a host who leaves (also one who sits out) hands the
        table on to the next person seated, or closes it when no other person is seated (bots do
        not count).
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
        seats with bots after a wait the caller chooses. Quick-match tables have a turn timer.
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
        """The caller's seat token for the started game of a table they sit at: PERMISSION_DENIED
        (NOT_YOUR_SEAT) when they do not sit at it, FAILED_PRECONDITION (GAME_NOT_STARTED) before
        its game started.
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
        """The table now and as it stands after each change, until its game has started (then the
        stream ends). Changes made together come as the last of them: an auto_start table whose
        last seat fills goes from OPEN to STARTING without a FULL message.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def ListMyGames(self, request, context):
        """The caller's open tables and their running and recently finished games, newest first:
        where to go back to after a restart. Where each game stands comes from a summary written
        just after each decision is stored (milliseconds behind the game; GetView is the game).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def WatchNotifications(self, request, context):
        """Everything that concerns the caller across all their tables and games, from a cursor: the
        stream first sends what came after the cursor, then each notification as it happens. Keep
        the cursor of the last notification handled and pass it when reconnecting: nothing is
        missed, nothing repeated.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_LobbyServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'RegisterGuest': grpc.unary_unary_rpc_method_handler(servicer.RegisterGuest, request_deserializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.RegisterGuestResponse.SerializeToString), 'SignIn': grpc.unary_unary_rpc_method_handler(servicer.SignIn, request_deserializer=verrater_dot_v1_dot_lobby__pb2.SignInRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.SignInResponse.SerializeToString), 'RefreshToken': grpc.unary_unary_rpc_method_handler(servicer.RefreshToken, request_deserializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.RefreshTokenResponse.SerializeToString), 'RotateCredential': grpc.unary_unary_rpc_method_handler(servicer.RotateCredential, request_deserializer=verrater_dot_v1_dot_lobby__pb2.RotateCredentialRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.RotateCredentialResponse.SerializeToString), 'CreateTable': grpc.unary_unary_rpc_method_handler(servicer.CreateTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.CreateTableResponse.SerializeToString), 'JoinTable': grpc.unary_unary_rpc_method_handler(servicer.JoinTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.JoinTableResponse.SerializeToString), 'LeaveTable': grpc.unary_unary_rpc_method_handler(servicer.LeaveTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.LeaveTableResponse.SerializeToString), 'AddBot': grpc.unary_unary_rpc_method_handler(servicer.AddBot, request_deserializer=verrater_dot_v1_dot_lobby__pb2.AddBotRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.AddBotResponse.SerializeToString), 'ListTables': grpc.unary_unary_rpc_method_handler(servicer.ListTables, request_deserializer=verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.SerializeToString), 'QuickMatch': grpc.unary_unary_rpc_method_handler(servicer.QuickMatch, request_deserializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.QuickMatchResponse.SerializeToString), 'StartGame': grpc.unary_unary_rpc_method_handler(servicer.StartGame, request_deserializer=verrater_dot_v1_dot_lobby__pb2.StartGameRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.StartGameResponse.SerializeToString), 'GetSeatToken': grpc.unary_unary_rpc_method_handler(servicer.GetSeatToken, request_deserializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.GetSeatTokenResponse.SerializeToString), 'GetTable': grpc.unary_unary_rpc_method_handler(servicer.GetTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.GetTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.GetTableResponse.SerializeToString), 'WatchTable': grpc.unary_stream_rpc_method_handler(servicer.WatchTable, request_deserializer=verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.WatchTableResponse.SerializeToString), 'ListMyGames': grpc.unary_unary_rpc_method_handler(servicer.ListMyGames, request_deserializer=verrater_dot_v1_dot_lobby__pb2.ListMyGamesRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.ListMyGamesResponse.SerializeToString), 'WatchNotifications': grpc.unary_stream_rpc_method_handler(servicer.WatchNotifications, request_deserializer=verrater_dot_v1_dot_lobby__pb2.WatchNotificationsRequest.FromString, response_serializer=verrater_dot_v1_dot_lobby__pb2.WatchNotificationsResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.LobbyService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.LobbyService', rpc_method_handlers)

class LobbyService(object):
    """Missing associated documentation comment in .proto file."""

    @staticmethod
    def RegisterGuest(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/RegisterGuest', verrater_dot_v1_dot_lobby__pb2.RegisterGuestRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.RegisterGuestResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def SignIn(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/SignIn', verrater_dot_v1_dot_lobby__pb2.SignInRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.SignInResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def RefreshToken(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/RefreshToken', verrater_dot_v1_dot_lobby__pb2.RefreshTokenRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.RefreshTokenResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def RotateCredential(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/RotateCredential', verrater_dot_v1_dot_lobby__pb2.RotateCredentialRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.RotateCredentialResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CreateTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/CreateTable', verrater_dot_v1_dot_lobby__pb2.CreateTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.CreateTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def JoinTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/JoinTable', verrater_dot_v1_dot_lobby__pb2.JoinTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.JoinTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def LeaveTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/LeaveTable', verrater_dot_v1_dot_lobby__pb2.LeaveTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.LeaveTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def AddBot(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/AddBot', verrater_dot_v1_dot_lobby__pb2.AddBotRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.AddBotResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListTables(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/ListTables', verrater_dot_v1_dot_lobby__pb2.ListTablesRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.ListTablesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def QuickMatch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/QuickMatch', verrater_dot_v1_dot_lobby__pb2.QuickMatchRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.QuickMatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def StartGame(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/StartGame', verrater_dot_v1_dot_lobby__pb2.StartGameRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.StartGameResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetSeatToken(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/GetSeatToken', verrater_dot_v1_dot_lobby__pb2.GetSeatTokenRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.GetSeatTokenResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/GetTable', verrater_dot_v1_dot_lobby__pb2.GetTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.GetTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchTable(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/verrater.v1.LobbyService/WatchTable', verrater_dot_v1_dot_lobby__pb2.WatchTableRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.WatchTableResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def ListMyGames(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.LobbyService/ListMyGames', verrater_dot_v1_dot_lobby__pb2.ListMyGamesRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.ListMyGamesResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def WatchNotifications(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/verrater.v1.LobbyService/WatchNotifications', verrater_dot_v1_dot_lobby__pb2.WatchNotificationsRequest.SerializeToString, verrater_dot_v1_dot_lobby__pb2.WatchNotificationsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)