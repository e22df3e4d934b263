"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/cards.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17verrater/v1/cards.proto\x12\x0bverrater.v1"\x1c\n\x0bSupplyCards\x12\r\n\x05cards\x18\x01 \x03(\x05"5\n\x0bActionCards\x12&\n\x05cards\x18\x01 \x03(\x0e2\x17.verrater.v1.ActionCard"?\n\x08SeatPick\x12*\n\x04card\x18\x01 \x01(\x0e2\x17.verrater.v1.ActionCardH\x00\x88\x01\x01B\x07\n\x05_card*?\n\x05House\x12\x15\n\x11HOUSE_UNSPECIFIED\x10\x00\x12\x0f\n\x0bHOUSE_EAGLE\x10\x01\x12\x0e\n\nHOUSE_ROSE\x10\x02*\xd2\x01\n\rLandscapeType\x12\x1e\n\x1aLANDSCAPE_TYPE_UNSPECIFIED\x10\x00\x12\x1c\n\x18LANDSCAPE_TYPE_WASTELAND\x10\x01\x12\x19\n\x15LANDSCAPE_TYPE_MEADOW\x10\x02\x12\x18\n\x14LANDSCAPE_TYPE_RIVER\x10\x03\x12\x19\n\x15LANDSCAPE_TYPE_FOREST\x10\x04\x12\x1a\n\x16LANDSCAPE_TYPE_VILLAGE\x10\x05\x12\x17\n\x13LANDSCAPE_TYPE_CITY\x10\x06*\xc5\x01\n\nActionCard\x12\x1b\n\x17ACTION_CARD_UNSPECIFIED\x10\x00\x12\x17\n\x13ACTION_CARD_TRAITOR\x10\x01\x12\x19\n\x15ACTION_CARD_DIPLOMAT2\x10\x02\x12\x19\n\x15ACTION_CARD_DIPLOMAT5\x10\x03\x12\x17\n\x13ACTION_CARD_BUILDER\x10\x04\x12\x1a\n\x16ACTION_CARD_STRATEGIST\x10\x05\x12\x16\n\x12ACTION_CARD_FARMER\x10\x06*g\n\x0cBuildingSide\x12\x1d\n\x19BUILDING_SIDE_UNSPECIFIED\x10\x00\x12\x18\n\x14BUILDING_SIDE_ESTATE\x10\x01\x12\x1e\n\x1aBUILDING_SIDE_TRADING_POST\x10\x02b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.cards_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_HOUSE']._serialized_start = 190
    _globals['_HOUSE']._serialized_end = 253
    _globals['_LANDSCAPETYPE']._serialized_start = 256
    _globals['_LANDSCAPETYPE']._serialized_end = 466
    _globals['_ACTIONCARD']._serialized_start = 469
    _globals['_ACTIONCARD']._serialized_end = 666
    _globals['_BUILDINGSIDE']._serialized_start = 668
    _globals['_BUILDINGSIDE']._serialized_end = 771
    _globals['_SUPPLYCARDS']._serialized_start = 40
    _globals['_SUPPLYCARDS']._serialized_end = 68
    _globals['_ACTIONCARDS']._serialized_start = 70
    _globals['_ACTIONCARDS']._serialized_end = 123
    _globals['_SEATPICK']._serialized_start = 125
    _globals['_SEATPICK']._serialized_end = 188