"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/view.proto')
_sym_db = _symbol_database.Default()
from google.protobuf import timestamp_pb2 as google_dot_protobuf_dot_timestamp__pb2
from ...verrater.v1 import cards_pb2 as verrater_dot_v1_dot_cards__pb2
from ...verrater.v1 import commands_pb2 as verrater_dot_v1_dot_commands__pb2
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x16verrater/v1/view.proto\x12\x0bverrater.v1\x1a\x1fgoogle/protobuf/timestamp.proto\x1a\x17verrater/v1/cards.proto\x1a\x1averrater/v1/commands.proto\x1a\x18verrater/v1/events.proto"\xe7\x01\n\rLandscapeView\x12\x10\n\x08position\x18\x01 \x01(\x05\x12(\n\x04type\x18\x02 \x01(\x0e2\x1a.verrater.v1.LandscapeType\x12!\n\x05house\x18\x03 \x01(\x0e2\x12.verrater.v1.House\x12\x1b\n\x0ebuilding_owner\x18\x04 \x01(\x05H\x00\x88\x01\x01\x125\n\rbuilding_side\x18\x05 \x01(\x0e2\x19.verrater.v1.BuildingSideH\x01\x88\x01\x01B\x11\n\x0f_building_ownerB\x10\n\x0e_building_side"\xcb\x02\n\x08SeatView\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12!\n\x05house\x18\x02 \x01(\x0e2\x12.verrater.v1.House\x12\n\n\x02vp\x18\x03 \x01(\x05\x12\x12\n\nhand_count\x18\x04 \x01(\x05\x12\x1a\n\x12unplaced_buildings\x18\x05 \x01(\x05\x12\x15\n\rtrading_posts\x18\x06 \x01(\x05\x12\x12\n\nhas_picked\x18\x07 \x01(\x08\x12(\n\x06played\x18\x08 \x01(\x0b2\x18.verrater.v1.SupplyCards\x123\n\rrevealed_pick\x18\t \x01(\x0e2\x17.verrater.v1.ActionCardH\x00\x88\x01\x01\x12\x0c\n\x04name\x18\n \x01(\t\x12(\n\tbot_level\x18\x0b \x01(\x0e2\x15.verrater.v1.BotLevelB\x10\n\x0e_revealed_pick"\xa5\x01\n\x04Turn\x12!\n\x05phase\x18\x01 \x01(\x0e2\x12.verrater.v1.Phase\x120\n\x08decision\x18\x02 \x01(\x0e2\x19.verrater.v1.DecisionKindH\x00\x88\x01\x01\x12\r\n\x05seats\x18\x03 \x03(\x05\x12,\n\x08deadline\x18\x04 \x01(\x0b2\x1a.google.protobuf.TimestampB\x0b\n\t_decision"-\n\x0cConflictPair\x12\r\n\x05first\x18\x01 \x01(\x05\x12\x0e\n\x06second\x18\x02 \x01(\x05"3\n\x08SeatPlay\x12\'\n\x05cards\x18\x01 \x01(\x0b2\x18.verrater.v1.SupplyCards"/\n\x10SeatContribution\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05cards\x18\x02 \x01(\x05"\x84\x01\n\rHouseStrength\x12\x10\n\x08position\x18\x01 \x01(\x05\x12\x11\n\tlandscape\x18\x02 \x01(\x05\x12,\n\x05seats\x18\x03 \x03(\x0b2\x1d.verrater.v1.SeatContribution\x12\x11\n\tdiplomats\x18\x04 \x01(\x05\x12\r\n\x05total\x18\x05 \x01(\x05"\xa1\x03\n\x0fConflictSummary\x12\r\n\x05round\x18\x01 \x01(\x05\x12\r\n\x05first\x18\x02 \x01(\x05\x12\x0e\n\x06second\x18\x03 \x01(\x05\x12$\n\x05picks\x18\x04 \x03(\x0b2\x15.verrater.v1.SeatPick\x12%\n\x06played\x18\x05 \x03(\x0b2\x15.verrater.v1.SeatPlay\x12\x14\n\x07traitor\x18\x06 \x01(\x05H\x00\x88\x01\x01\x12\x16\n\x0eeagle_strength\x18\x07 \x01(\x05\x12\x15\n\rrose_strength\x18\x08 \x01(\x05\x12\'\n\x06winner\x18\t \x01(\x0e2\x12.verrater.v1.HouseH\x01\x88\x01\x01\x12\x17\n\x0fconquest_points\x18\n \x03(\x05\x12\x14\n\x07flipped\x18\x0b \x01(\x05H\x02\x88\x01\x01\x12)\n\x05eagle\x18\x0c \x01(\x0b2\x1a.verrater.v1.HouseStrength\x12(\n\x04rose\x18\r \x01(\x0b2\x1a.verrater.v1.HouseStrengthB\n\n\x08_traitorB\t\n\x07_winnerB\n\n\x08_flipped"\xb7\x05\n\nPlayerView\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12\x11\n\x04seat\x18\x03 \x01(\x05H\x00\x88\x01\x01\x12!\n\x05phase\x18\x04 \x01(\x0e2\x12.verrater.v1.Phase\x12\r\n\x05round\x18\x05 \x01(\x05\x12\x0e\n\x06rounds\x18\x06 \x01(\x05\x12\x14\n\x0cstart_player\x18\x07 \x01(\x05\x12\x12\n\nstrategist\x18\x08 \x01(\x05\x12(\n\x04ring\x18\t \x03(\x0b2\x1a.verrater.v1.LandscapeView\x12$\n\x05seats\x18\n \x03(\x0b2\x15.verrater.v1.SeatView\x12\x12\n\ndeck_count\x18\x0b \x01(\x05\x12\x0f\n\x07discard\x18\x0c \x03(\x05\x12+\n\x08conflict\x18\r \x01(\x0b2\x19.verrater.v1.ConflictPair\x12\x1f\n\x04turn\x18\x0e \x01(\x0b2\x11.verrater.v1.Turn\x123\n\rlast_conflict\x18\x0f \x01(\x0b2\x1c.verrater.v1.ConflictSummary\x12\x17\n\x0fseed_commitment\x18\x10 \x01(\t\x12&\n\x04hand\x18\x11 \x01(\x0b2\x18.verrater.v1.SupplyCards\x12*\n\x04pick\x18\x12 \x01(\x0e2\x17.verrater.v1.ActionCardH\x01\x88\x01\x01\x12)\n\x07offered\x18\x13 \x01(\x0b2\x18.verrater.v1.ActionCards\x12#\n\x05legal\x18\x14 \x03(\x0b2\x14.verrater.v1.Command\x12\x0f\n\x07winners\x18\x15 \x03(\x05\x12\x11\n\x04seed\x18\x16 \x01(\x0cH\x02\x88\x01\x01\x12\x14\n\x0cturn_seconds\x18\x17 \x01(\x05B\x07\n\x05_seatB\x07\n\x05_pickB\x07\n\x05_seed*\xed\x01\n\x0cDecisionKind\x12\x1d\n\x19DECISION_KIND_UNSPECIFIED\x10\x00\x12$\n DECISION_KIND_PLACE_FIRST_ESTATE\x10\x01\x12!\n\x1dDECISION_KIND_CHOOSE_CONFLICT\x10\x02\x12"\n\x1eDECISION_KIND_PICK_ACTION_CARD\x10\x03\x12\x1d\n\x19DECISION_KIND_PLAY_SUPPLY\x10\x04\x12\x17\n\x13DECISION_KIND_BUILD\x10\x05\x12\x19\n\x15DECISION_KIND_DISCARD\x10\x06b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.view_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_DECISIONKIND']._serialized_start = 2290
    _globals['_DECISIONKIND']._serialized_end = 2527
    _globals['_LANDSCAPEVIEW']._serialized_start = 152
    _globals['_LANDSCAPEVIEW']._serialized_end = 383
    _globals['_SEATVIEW']._serialized_start = 386
    _globals['_SEATVIEW']._serialized_end = 717
    _globals['_TURN']._serialized_start = 720
    _globals['_TURN']._serialized_end = 885
    _globals['_CONFLICTPAIR']._serialized_start = 887
    _globals['_CONFLICTPAIR']._serialized_end = 932
    _globals['_SEATPLAY']._serialized_start = 934
    _globals['_SEATPLAY']._serialized_end = 985
    _globals['_SEATCONTRIBUTION']._serialized_start = 987
    _globals['_SEATCONTRIBUTION']._serialized_end = 1034
    _globals['_HOUSESTRENGTH']._serialized_start = 1037
    _globals['_HOUSESTRENGTH']._serialized_end = 1169
    _globals['_CONFLICTSUMMARY']._serialized_start = 1172
    _globals['_CONFLICTSUMMARY']._serialized_end = 1589
    _globals['_PLAYERVIEW']._serialized_start = 1592
    _globals['_PLAYERVIEW']._serialized_end = 2287