"""The codec between the engine's values and the protobuf contract (proto/verrater/v1/).

Events go both ways exactly: `decode_record(encode_record(r)) == r` for every record, whose
event may be full or redacted (a hidden field left None travels as an absent field).
`encode_record` is the stored format of the log, so it serializes deterministically. Enums travel
as engine value + 1, with 0 (`*_UNSPECIFIED`) never valid; rule violation codes travel by name.

Whatever arrives from outside is checked for shape only: a message that cannot describe an engine
value (no command set, an unspecified or unknown enum number, an absurdly long card list) raises
`MalformedMessage`, or `MalformedCommand` for a player's command. Everything else, however wrong
(a negative position, a card not in hand), reaches the rules, whose violations say what is wrong.

One module per kind of message: `enums` (numbers, card lists, malformed messages), `ruleset`
(ruleset, card table, setup), `events`, `commands`, `views`, `violations`, and `records` (the
stored form of events). Other services import the codec only from here.
"""

from .commands import MAX_COMMAND_CARDS, command_from_proto, command_to_proto
from .enums import (
    MalformedCommand,
    MalformedMessage,
    bot_level_from_proto,
    bot_level_to_proto,
)
from .events import event_from_proto, event_to_proto
from .records import Record, decode_record, encode_record
from .ruleset import ruleset_from_proto, ruleset_to_proto, setup_from_proto, setup_to_proto
from .views import view_from_proto, view_to_proto
from .violations import violation_from_proto, violation_to_proto

__all__ = [
    "MAX_COMMAND_CARDS",
    "MalformedCommand",
    "MalformedMessage",
    "Record",
    "bot_level_from_proto",
    "bot_level_to_proto",
    "command_from_proto",
    "command_to_proto",
    "decode_record",
    "encode_record",
    "event_from_proto",
    "event_to_proto",
    "ruleset_from_proto",
    "ruleset_to_proto",
    "setup_from_proto",
    "setup_to_proto",
    "view_from_proto",
    "view_to_proto",
    "violation_from_proto",
    "violation_to_proto",
]
