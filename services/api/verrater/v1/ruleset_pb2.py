"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/ruleset.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import cards_pb2 as verrater_dot_v1_dot_cards__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x19verrater/v1/ruleset.proto\x12\x0bverrater.v1\x1a\x17verrater/v1/cards.proto"4\n\rVictoryPoints\x12\x0e\n\x06points\x18\x01 \x01(\x05\x12\x13\n\x0bprovisional\x18\x02 \x01(\x08"}\n\rLandscapeSpec\x12(\n\x04type\x18\x01 \x01(\x0e2\x1a.verrater.v1.LandscapeType\x12\x0e\n\x06german\x18\x02 \x01(\t\x12\n\n\x02cp\x18\x03 \x01(\x05\x12&\n\x02vp\x18\x04 \x03(\x0b2\x1a.verrater.v1.VictoryPoints"I\n\tCardTable\x12\x0c\n\x04name\x18\x01 \x01(\t\x12.\n\nlandscapes\x18\x02 \x03(\x0b2\x1a.verrater.v1.LandscapeSpec"p\n\x07Ruleset\x12\x0f\n\x07players\x18\x01 \x01(\x05\x12\x0e\n\x06rounds\x18\x02 \x01(\x05\x12\x18\n\x10builder_may_move\x18\x03 \x01(\x08\x12*\n\ncard_table\x18\x04 \x01(\x0b2\x16.verrater.v1.CardTableb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.ruleset_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_VICTORYPOINTS']._serialized_start = 67
    _globals['_VICTORYPOINTS']._serialized_end = 119
    _globals['_LANDSCAPESPEC']._serialized_start = 121
    _globals['_LANDSCAPESPEC']._serialized_end = 246
    _globals['_CARDTABLE']._serialized_start = 248
    _globals['_CARDTABLE']._serialized_end = 321
    _globals['_RULESET']._serialized_start = 323
    _globals['_RULESET']._serialized_end = 435