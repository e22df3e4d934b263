"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/ruleset.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import cards_pb2 as verrater_dot_v1_dot_cards__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x19verrater/v1/ruleset.proto\x12\x0bverrater.v1\x1a\x17verrater/v1/cards.proto"4\n\rVictoryPoints\x12\x0e\n\x06points\x18\x01 \x01(\x05\x12\x13\n\x0bprovisional\x18\x02 \x01(\x08"\x95\x01\n\rLandscapeSpec\x12(\n\x04type\x18\x01 \x01(\x0e2\x1a.verrater.v1.LandscapeType\x12\x0e\n\x06german\x18\x02 \x01(\t\x12\n\n\x02cp\x18\x03 \x01(\x05\x12&\n\x02vp\x18\x04 \x03(\x0b2\x1a.verrater.v1.VictoryPoints\x12\x16\n\x0ecp_provisional\x18\x05 \x01(\x08"\xed\x01\n\x0eActionCardSpec\x12%\n\x04card\x18\x01 \x01(\x0e2\x17.verrater.v1.ActionCard\x12\x0e\n\x06german\x18\x02 \x01(\t\x12\x17\n\x0fconflict_points\x18\x03 \x01(\x05\x12\x16\n\x0evictory_points\x18\x04 \x01(\x05\x12\x13\n\x0bcards_drawn\x18\x05 \x01(\x05\x12\x16\n\x0eswitches_house\x18\x06 \x01(\x08\x12\x18\n\x10takes_strategist\x18\x07 \x01(\x08\x12\x0e\n\x06builds\x18\x08 \x01(\x08\x12\x1c\n\x14replaces_estate_draw\x18\t \x01(\x08"I\n\tCardTable\x12\x0c\n\x04name\x18\x01 \x01(\t\x12.\n\nlandscapes\x18\x02 \x03(\x0b2\x1a.verrater.v1.LandscapeSpec"\xa3\x01\n\x07Ruleset\x12\x0f\n\x07players\x18\x01 \x01(\x05\x12\x0e\n\x06rounds\x18\x02 \x01(\x05\x12\x18\n\x10builder_may_move\x18\x03 \x01(\x08\x12*\n\ncard_table\x18\x04 \x01(\x0b2\x16.verrater.v1.CardTable\x121\n\x0caction_cards\x18\x05 \x03(\x0b2\x1b.verrater.v1.ActionCardSpecb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.ruleset_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_VICTORYPOINTS']._serialized_start = 67
    _globals['_VICTORYPOINTS']._serialized_end = 119
    _globals['_LANDSCAPESPEC']._serialized_start = 122
    _globals['_LANDSCAPESPEC']._serialized_end = 271
    _globals['_ACTIONCARDSPEC']._serialized_start = 274
    _globals['_ACTIONCARDSPEC']._serialized_end = 511
    _globals['_CARDTABLE']._serialized_start = 513
    _globals['_CARDTABLE']._serialized_end = 586
    _globals['_RULESET']._serialized_start = 589
    _globals['_RULESET']._serialized_end = 752