"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/commands.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import cards_pb2 as verrater_dot_v1_dot_cards__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x1averrater/v1/commands.proto\x12\x0bverrater.v1\x1a\x17verrater/v1/cards.proto"$\n\x10PlaceFirstEstate\x12\x10\n\x08position\x18\x01 \x01(\x05"/\n\x0eChooseConflict\x12\r\n\x05first\x18\x01 \x01(\x05\x12\x0e\n\x06second\x18\x02 \x01(\x05"7\n\x0ePickActionCard\x12%\n\x04card\x18\x01 \x01(\x0e2\x17.verrater.v1.ActionCard"\x1b\n\nPlaySupply\x12\r\n\x05cards\x18\x01 \x03(\x05"J\n\rPlaceBuilding\x12\x10\n\x08position\x18\x01 \x01(\x05\x12\'\n\x04side\x18\x02 \x01(\x0e2\x19.verrater.v1.BuildingSide" \n\x0cFlipBuilding\x12\x10\n\x08position\x18\x01 \x01(\x05"\\\n\x0cMoveBuilding\x12\x0e\n\x06origin\x18\x01 \x01(\x05\x12\x13\n\x0bdestination\x18\x02 \x01(\x05\x12\'\n\x04side\x18\x03 \x01(\x0e2\x19.verrater.v1.BuildingSide"\x0b\n\tPassBuild"\x1d\n\x0cDiscardCards\x12\r\n\x05cards\x18\x01 \x03(\x05"\xf2\x03\n\x07Command\x12;\n\x12place_first_estate\x18\x01 \x01(\x0b2\x1d.verrater.v1.PlaceFirstEstateH\x00\x126\n\x0fchoose_conflict\x18\x02 \x01(\x0b2\x1b.verrater.v1.ChooseConflictH\x00\x127\n\x10pick_action_card\x18\x03 \x01(\x0b2\x1b.verrater.v1.PickActionCardH\x00\x12.\n\x0bplay_supply\x18\x04 \x01(\x0b2\x17.verrater.v1.PlaySupplyH\x00\x124\n\x0eplace_building\x18\x05 \x01(\x0b2\x1a.verrater.v1.PlaceBuildingH\x00\x122\n\rflip_building\x18\x06 \x01(\x0b2\x19.verrater.v1.FlipBuildingH\x00\x122\n\rmove_building\x18\x07 \x01(\x0b2\x19.verrater.v1.MoveBuildingH\x00\x12,\n\npass_build\x18\x08 \x01(\x0b2\x16.verrater.v1.PassBuildH\x00\x122\n\rdiscard_cards\x18\t \x01(\x0b2\x19.verrater.v1.DiscardCardsH\x00B\t\n\x07commandb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.commands_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_PLACEFIRSTESTATE']._serialized_start = 68
    _globals['_PLACEFIRSTESTATE']._serialized_end = 104
    _globals['_CHOOSECONFLICT']._serialized_start = 106
    _globals['_CHOOSECONFLICT']._serialized_end = 153
    _globals['_PICKACTIONCARD']._serialized_start = 155
    _globals['_PICKACTIONCARD']._serialized_end = 210
    _globals['_PLAYSUPPLY']._serialized_start = 212
    _globals['_PLAYSUPPLY']._serialized_end = 239
    _globals['_PLACEBUILDING']._serialized_start = 241
    _globals['_PLACEBUILDING']._serialized_end = 315
    _globals['_FLIPBUILDING']._serialized_start = 317
    _globals['_FLIPBUILDING']._serialized_end = 349
    _globals['_MOVEBUILDING']._serialized_start = 351
    _globals['_MOVEBUILDING']._serialized_end = 443
    _globals['_PASSBUILD']._serialized_start = 445
    _globals['_PASSBUILD']._serialized_end = 456
    _globals['_DISCARDCARDS']._serialized_start = 458
    _globals['_DISCARDCARDS']._serialized_end = 487
    _globals['_COMMAND']._serialized_start = 490
    _globals['_COMMAND']._serialized_end = 988