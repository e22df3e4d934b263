from . import cards_pb2
from . import commands_pb2
from . import errors_pb2
from . import events_pb2
from . import game_pb2
from . import game_pb2_grpc
from . import ruleset_pb2
from . import view_pb2
