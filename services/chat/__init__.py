"""Table chat: the people at a table and the spectators of its game talk, within limits.

`ChatApplication` decides (channels, text, limits, mutes, reports); `ChatStore` keeps each
table's chat stream beside the game's log (in memory, or on Redis); `ChatServicer` is the gRPC
entry point (served by `add_to_server`); `GameEndings` closes a table's chat some time after its
game ends (a handler of the game's announcements). The lobby's tables reach chat through the
`Tables` port, wired in services/bootstrap.py. Other packages import only from here.
"""

from .limits import MAX_MUTED, PER_PLAYER, PER_TABLE, ChatLimits
from .memory import InMemoryChat
from .model import (
    KEEP_PER_TABLE,
    KEEP_SECONDS,
    OPEN_AFTER_GAME_SECONDS,
    Channel,
    ChatMessage,
    Report,
    TableFacts,
)
from .redis_store import RedisChat
from .server import ChatServicer, add_to_server, message_to_proto
from .service import MAX_BACKLOG, MAX_WATCHERS_PER_TABLE, ChatApplication, GameEndings, Tables
from .store import ChatStore, Rate
from .text import MAX_CHARACTERS

__all__ = [
    "KEEP_PER_TABLE",
    "KEEP_SECONDS",
    "MAX_BACKLOG",
    "MAX_CHARACTERS",
    "MAX_MUTED",
    "MAX_WATCHERS_PER_TABLE",
    "OPEN_AFTER_GAME_SECONDS",
    "PER_PLAYER",
    "PER_TABLE",
    "Channel",
    "ChatApplication",
    "ChatLimits",
    "ChatMessage",
    "ChatServicer",
    "ChatStore",
    "GameEndings",
    "InMemoryChat",
    "Rate",
    "RedisChat",
    "Report",
    "TableFacts",
    "Tables",
    "add_to_server",
    "message_to_proto",
]
