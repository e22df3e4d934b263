"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/errors.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x18verrater/v1/errors.proto\x12\x0bverrater.v1"_\n\x13RuleViolationDetail\x12(\n\x04code\x18\x01 \x01(\x0e2\x1a.verrater.v1.ViolationCode\x12\x0f\n\x07message\x18\x02 \x01(\t\x12\r\n\x05field\x18\x03 \x01(\t*\xd8\x05\n\rViolationCode\x12\x1e\n\x1aVIOLATION_CODE_UNSPECIFIED\x10\x00\x12#\n\x1fVIOLATION_CODE_GAME_NOT_STARTED\x10\x01\x12\'\n#VIOLATION_CODE_GAME_ALREADY_STARTED\x10\x02\x12\x1c\n\x18VIOLATION_CODE_GAME_OVER\x10\x03\x12\x1e\n\x1aVIOLATION_CODE_WRONG_PHASE\x10\x04\x12 \n\x1cVIOLATION_CODE_NOT_YOUR_TURN\x10\x05\x12\x1f\n\x1bVIOLATION_CODE_INVALID_SEAT\x10\x06\x12#\n\x1fVIOLATION_CODE_INVALID_POSITION\x10\x07\x12\x1f\n\x1bVIOLATION_CODE_NOT_ADJACENT\x10\x08\x12\x1d\n\x19VIOLATION_CODE_SAME_HOUSE\x10\t\x12#\n\x1fVIOLATION_CODE_CARD_NOT_OFFERED\x10\n\x12#\n\x1fVIOLATION_CODE_CARD_NOT_IN_HAND\x10\x0b\x12!\n\x1dVIOLATION_CODE_TOO_MANY_CARDS\x10\x0c\x12&\n"VIOLATION_CODE_WRONG_DISCARD_COUNT\x10\r\x12%\n!VIOLATION_CODE_LANDSCAPE_OCCUPIED\x10\x0e\x12#\n\x1fVIOLATION_CODE_NO_BUILDING_LEFT\x10\x0f\x12$\n VIOLATION_CODE_NOT_YOUR_BUILDING\x10\x10\x12%\n!VIOLATION_CODE_TRADING_POST_LIMIT\x10\x11\x12#\n\x1fVIOLATION_CODE_VARIANT_DISABLED\x10\x12\x12 \n\x1cVIOLATION_CODE_INVALID_SETUP\x10\x13b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.errors_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_VIOLATIONCODE']._serialized_start = 139
    _globals['_VIOLATIONCODE']._serialized_end = 867
    _globals['_RULEVIOLATIONDETAIL']._serialized_start = 41
    _globals['_RULEVIOLATIONDETAIL']._serialized_end = 136