"""Client and server classes corresponding to protobuf-defined services."""
import grpc
import warnings
from ...verrater.v1 import game_pb2 as verrater_dot_v1_dot_game__pb2
GRPC_GENERATED_VERSION = '1.71.2'
GRPC_VERSION = grpc.__version__
_version_not_supported = False
try:
    from grpc._utilities import first_version_is_lower
    _version_not_supported = first_version_is_lower(GRPC_VERSION, GRPC_GENERATED_VERSION)
except ImportError:
    _version_not_supported = True
if _version_not_supported:
    raise RuntimeError(f'The grpc package installed is at version {GRPC_VERSION},' + f' but the generated code in verrater/v1/game_pb2_grpc.py depends on' + f' grpcio>={GRPC_GENERATED_VERSION}.' + f' Please upgrade your grpc module to grpcio>={GRPC_GENERATED_VERSION}' + f' or downgrade your generated code using grpcio-tools<={GRPC_VERSION}.')

class GameServiceStub(object):
    """Plays games. Any replica serves any game: the state lives in the game's event log.
    """

    def __init__(self, channel):
        """Constructor.

        Args:
            channel: A grpc.Channel.
        """
        self.GetView = channel.unary_unary('/verrater.v1.GameService/GetView', request_serializer=verrater_dot_v1_dot_game__pb2.GetViewRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.GetViewResponse.FromString, _registered_method=True)
        self.SubmitCommand = channel.unary_unary('/verrater.v1.GameService/SubmitCommand', request_serializer=verrater_dot_v1_dot_game__pb2.SubmitCommandRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.SubmitCommandResponse.FromString, _registered_method=True)
        self.SubmitCommands = channel.unary_unary('/verrater.v1.GameService/SubmitCommands', request_serializer=verrater_dot_v1_dot_game__pb2.SubmitCommandsRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.SubmitCommandsResponse.FromString, _registered_method=True)
        self.Watch = channel.unary_stream('/verrater.v1.GameService/Watch', request_serializer=verrater_dot_v1_dot_game__pb2.WatchRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.WatchResponse.FromString, _registered_method=True)
        self.Play = channel.stream_stream('/verrater.v1.GameService/Play', request_serializer=verrater_dot_v1_dot_game__pb2.PlayRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.PlayResponse.FromString, _registered_method=True)
        self.GetLog = channel.unary_unary('/verrater.v1.GameService/GetLog', request_serializer=verrater_dot_v1_dot_game__pb2.GetLogRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.GetLogResponse.FromString, _registered_method=True)
        self.GetRuleset = channel.unary_unary('/verrater.v1.GameService/GetRuleset', request_serializer=verrater_dot_v1_dot_game__pb2.GetRulesetRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.GetRulesetResponse.FromString, _registered_method=True)
        self.CreateGame = channel.unary_unary('/verrater.v1.GameService/CreateGame', request_serializer=verrater_dot_v1_dot_game__pb2.CreateGameRequest.SerializeToString, response_deserializer=verrater_dot_v1_dot_game__pb2.CreateGameResponse.FromString, _registered_method=True)

class GameServiceServicer(object):
    """Plays games. Any replica serves any game: the state lives in the game's event log.
    """

    def GetView(self, request, context):
        """The game as the caller's seat sees it now. A token without a seat in this game (a player
        token, or a seat token of another game) gets the spectator's view: the public part only.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def SubmitCommand(self, request, context):
        """Apply one command for the caller's seat. A rule violation fails with FAILED_PRECONDITION
        and a RuleViolationDetail in the status details; a stale expected_version with ABORTED; a
        malformed command with INVALID_ARGUMENT. A retried command_id is applied once.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def SubmitCommands(self, request, context):
        """Apply several decisions in one call, each for the seat its own token names: for a client
        that plays many seats, of one game or many (the AI service's workers send each bot-turn
        message's moves with it). The commands are taken one after another, in the order sent,
        each exactly as SubmitCommand would take it with that token (version_only implied), and
        each is answered by a CommandResult, in the same order; a refused command changes nothing
        and does not stop the others. The call itself fails only when the request as a whole is
        wrong: INVALID_ARGUMENT with no commands or more than 64; UNAUTHENTICATED without a valid
        token in the call's metadata (any valid token: each command's seat comes from its own).
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Watch(self, request, context):
        """The game live from from_version, as the caller may see it. What is sent depends on the
        mode: every event (redacted for the caller), or only views. A client that reconnects in
        WATCH_MODE_EVENTS resumes from the last version it received. In the views-only modes only
        the current state is ever sent, never a backlog, and only when it is after from_version:
        a turn received but not answered is not sent again from its own version, so resume from
        0 (or from the last version answered). The stream ends after the game's last event.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def Play(self, request_iterator, context):
        """Play one seat over one stream: the cheapest way for a player or a bot to play. The first
        message opens the game; the server then sends the caller's view whenever its seat must
        decide, and the final view (as Watch in WATCH_MODE_TURNS), and answers every command sent
        on the stream, in order, with a CommandResult: applied (as SubmitCommand answers) or
        refused (with the status code SubmitCommand would have failed with; the stream stays open).
        A decision costs one message each way instead of a call. The stream ends after the final
        view, once the command being decided (if any) is answered; commands the server has not
        taken by then are not answered (the game is over). It fails with INVALID_ARGUMENT when the
        first message is not an open, or a later one is; PERMISSION_DENIED (NOT_YOUR_SEAT) when
        the token is not a seat token of this game (the lobby hands out seat tokens of existing
        games only, so a mistyped game id gets this); NOT_FOUND when the token's game no longer
        exists; UNAUTHENTICATED when the token expires.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetLog(self, request, context):
        """The complete, unredacted log of a finished game with its hash chain, for audit and replay.
        Public once the game is over, like a replay: any valid token may read it (a player's, a
        seat's of any game). FAILED_PRECONDITION (GAME_NOT_FINISHED) while the game is running.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def GetRuleset(self, request, context):
        """The standard ruleset (card table and action cards included) for a player count and
        variant, or a game's own; no token needed.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

    def CreateGame(self, request, context):
        """Start a game: used by the lobby, and by sandbox tools with a fixed seed or setup.
        """
        context.set_code(grpc.StatusCode.UNIMPLEMENTED)
        context.set_details('Method not implemented!')
        raise NotImplementedError('Method not implemented!')

def add_GameServiceServicer_to_server(servicer, server):
    rpc_method_handlers = {'GetView': grpc.unary_unary_rpc_method_handler(servicer.GetView, request_deserializer=verrater_dot_v1_dot_game__pb2.GetViewRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.GetViewResponse.SerializeToString), 'SubmitCommand': grpc.unary_unary_rpc_method_handler(servicer.SubmitCommand, request_deserializer=verrater_dot_v1_dot_game__pb2.SubmitCommandRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.SubmitCommandResponse.SerializeToString), 'SubmitCommands': grpc.unary_unary_rpc_method_handler(servicer.SubmitCommands, request_deserializer=verrater_dot_v1_dot_game__pb2.SubmitCommandsRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.SubmitCommandsResponse.SerializeToString), 'Watch': grpc.unary_stream_rpc_method_handler(servicer.Watch, request_deserializer=verrater_dot_v1_dot_game__pb2.WatchRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.WatchResponse.SerializeToString), 'Play': grpc.stream_stream_rpc_method_handler(servicer.Play, request_deserializer=verrater_dot_v1_dot_game__pb2.PlayRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.PlayResponse.SerializeToString), 'GetLog': grpc.unary_unary_rpc_method_handler(servicer.GetLog, request_deserializer=verrater_dot_v1_dot_game__pb2.GetLogRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.GetLogResponse.SerializeToString), 'GetRuleset': grpc.unary_unary_rpc_method_handler(servicer.GetRuleset, request_deserializer=verrater_dot_v1_dot_game__pb2.GetRulesetRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.GetRulesetResponse.SerializeToString), 'CreateGame': grpc.unary_unary_rpc_method_handler(servicer.CreateGame, request_deserializer=verrater_dot_v1_dot_game__pb2.CreateGameRequest.FromString, response_serializer=verrater_dot_v1_dot_game__pb2.CreateGameResponse.SerializeToString)}
    generic_handler = grpc.method_handlers_generic_handler('verrater.v1.GameService', rpc_method_handlers)
    server.add_generic_rpc_handlers((generic_handler,))
    server.add_registered_method_handlers('verrater.v1.GameService', rpc_method_handlers)

class GameService(object):
    """Plays games. Any replica serves any game: the state lives in the game's event log.
    """

    @staticmethod
    def GetView(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/GetView', verrater_dot_v1_dot_game__pb2.GetViewRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.GetViewResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def SubmitCommand(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/SubmitCommand', verrater_dot_v1_dot_game__pb2.SubmitCommandRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.SubmitCommandResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def SubmitCommands(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/SubmitCommands', verrater_dot_v1_dot_game__pb2.SubmitCommandsRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.SubmitCommandsResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Watch(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_stream(request, target, '/verrater.v1.GameService/Watch', verrater_dot_v1_dot_game__pb2.WatchRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.WatchResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def Play(request_iterator, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.stream_stream(request_iterator, target, '/verrater.v1.GameService/Play', verrater_dot_v1_dot_game__pb2.PlayRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.PlayResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetLog(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/GetLog', verrater_dot_v1_dot_game__pb2.GetLogRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.GetLogResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def GetRuleset(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/GetRuleset', verrater_dot_v1_dot_game__pb2.GetRulesetRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.GetRulesetResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)

    @staticmethod
    def CreateGame(request, target, options=(), channel_credentials=None, call_credentials=None, insecure=False, compression=None, wait_for_ready=None, timeout=None, metadata=None):
        return grpc.experimental.unary_unary(request, target, '/verrater.v1.GameService/CreateGame', verrater_dot_v1_dot_game__pb2.CreateGameRequest.SerializeToString, verrater_dot_v1_dot_game__pb2.CreateGameResponse.FromString, options, channel_credentials, insecure, call_credentials, compression, wait_for_ready, timeout, metadata, _registered_method=True)