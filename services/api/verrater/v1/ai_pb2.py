"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/ai.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import commands_pb2 as verrater_dot_v1_dot_commands__pb2
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x14verrater/v1/ai.proto\x12\x0bverrater.v1\x1a\x1averrater/v1/commands.proto\x1a\x18verrater/v1/events.proto"K\n\x12SuggestMoveRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12$\n\x05level\x18\x02 \x01(\x0e2\x15.verrater.v1.BotLevel"]\n\x13SuggestMoveResponse\x12%\n\x07command\x18\x01 \x01(\x0b2\x14.verrater.v1.Command\x12\x0e\n\x06reason\x18\x02 \x01(\t\x12\x0f\n\x07version\x18\x03 \x01(\x032]\n\tAiService\x12P\n\x0bSuggestMove\x12\x1f.verrater.v1.SuggestMoveRequest\x1a .verrater.v1.SuggestMoveResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.ai_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_SUGGESTMOVEREQUEST']._serialized_start = 91
    _globals['_SUGGESTMOVEREQUEST']._serialized_end = 166
    _globals['_SUGGESTMOVERESPONSE']._serialized_start = 168
    _globals['_SUGGESTMOVERESPONSE']._serialized_end = 261
    _globals['_AISERVICE']._serialized_start = 263
    _globals['_AISERVICE']._serialized_end = 356