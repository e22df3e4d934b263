"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/stats.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17verrater/v1/stats.proto\x12\x0bverrater.v1\x1a\x18verrater/v1/events.proto"L\n\x18ListFinishedGamesRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\r\n\x05limit\x18\x02 \x01(\x05\x12\x0e\n\x06before\x18\x03 \x01(\x03"\xfe\x01\n\x0cFinishedSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x11\n\tplayer_id\x18\x02 \x01(\t\x12\x0c\n\x04name\x18\x03 \x01(\t\x12(\n\tbot_level\x18\x04 \x01(\x0e2\x15.verrater.v1.BotLevel\x12\x10\n\x08final_vp\x18\x05 \x01(\x05\x12\x0c\n\x04rank\x18\x06 \x01(\x05\x12\x17\n\x0freplaced_by_bot\x18\x07 \x01(\x08\x12\x1b\n\x0eordinal_before\x18\x08 \x01(\x01H\x00\x88\x01\x01\x12\x1a\n\rordinal_after\x18\t \x01(\x01H\x01\x88\x01\x01B\x11\n\x0f_ordinal_beforeB\x10\n\x0e_ordinal_after"\xda\x01\n\x0cFinishedGame\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x11\n\tend_order\x18\x02 \x01(\x03\x12\x16\n\x0efinished_at_ms\x18\x03 \x01(\x03\x12(\n\x05seats\x18\x04 \x03(\x0b2\x19.verrater.v1.FinishedSeat\x12\x0f\n\x07winners\x18\x05 \x03(\x05\x12\x0e\n\x06ranked\x18\x06 \x01(\x08\x124\n\x0funranked_reason\x18\x07 \x01(\x0e2\x1b.verrater.v1.UnrankedReason\x12\r\n\x05early\x18\x08 \x01(\x08"Z\n\x19ListFinishedGamesResponse\x12(\n\x05games\x18\x01 \x03(\x0b2\x19.verrater.v1.FinishedGame\x12\x13\n\x0bnext_before\x18\x02 \x01(\x03"%\n\x10GetRatingRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t"8\n\x11GetRatingResponse\x12#\n\x06rating\x18\x01 \x01(\x0b2\x13.verrater.v1.Rating"|\n\x06Rating\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x0c\n\x04name\x18\x02 \x01(\t\x12\n\n\x02mu\x18\x03 \x01(\x01\x12\r\n\x05sigma\x18\x04 \x01(\x01\x12\x0f\n\x07ordinal\x18\x05 \x01(\x01\x12\x13\n\x0brated_games\x18\x06 \x01(\x05\x12\x10\n\x08position\x18\x07 \x01(\x05"#\n\x12LeaderboardRequest\x12\r\n\x05limit\x18\x01 \x01(\x05";\n\x13LeaderboardResponse\x12$\n\x07ratings\x18\x01 \x03(\x0b2\x13.verrater.v1.Rating*\xbd\x01\n\x0eUnrankedReason\x12\x1f\n\x1bUNRANKED_REASON_UNSPECIFIED\x10\x00\x12\x1b\n\x17UNRANKED_REASON_SANDBOX\x10\x01\x12\x18\n\x14UNRANKED_REASON_BOTS\x10\x02\x12\x19\n\x15UNRANKED_REASON_TABLE\x10\x03\x12\x1e\n\x1aUNRANKED_REASON_TURN_TIMER\x10\x04\x12\x18\n\x14UNRANKED_REASON_NONE\x10\x052\x90\x02\n\x0cStatsService\x12b\n\x11ListFinishedGames\x12%.verrater.v1.ListFinishedGamesRequest\x1a&.verrater.v1.ListFinishedGamesResponse\x12J\n\tGetRating\x12\x1d.verrater.v1.GetRatingRequest\x1a\x1e.verrater.v1.GetRatingResponse\x12P\n\x0bLeaderboard\x12\x1f.verrater.v1.LeaderboardRequest\x1a .verrater.v1.LeaderboardResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.stats_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_UNRANKEDREASON']._serialized_start = 1036
    _globals['_UNRANKEDREASON']._serialized_end = 1225
    _globals['_LISTFINISHEDGAMESREQUEST']._serialized_start = 66
    _globals['_LISTFINISHEDGAMESREQUEST']._serialized_end = 142
    _globals['_FINISHEDSEAT']._serialized_start = 145
    _globals['_FINISHEDSEAT']._serialized_end = 399
    _globals['_FINISHEDGAME']._serialized_start = 402
    _globals['_FINISHEDGAME']._serialized_end = 620
    _globals['_LISTFINISHEDGAMESRESPONSE']._serialized_start = 622
    _globals['_LISTFINISHEDGAMESRESPONSE']._serialized_end = 712
    _globals['_GETRATINGREQUEST']._serialized_start = 714
    _globals['_GETRATINGREQUEST']._serialized_end = 751
    _globals['_GETRATINGRESPONSE']._serialized_start = 753
    _globals['_GETRATINGRESPONSE']._serialized_end = 809
    _globals['_RATING']._serialized_start = 811
    _globals['_RATING']._serialized_end = 935
    _globals['_LEADERBOARDREQUEST']._serialized_start = 937
    _globals['_LEADERBOARDREQUEST']._serialized_end = 972
    _globals['_LEADERBOARDRESPONSE']._serialized_start = 974
    _globals['_LEADERBOARDRESPONSE']._serialized_end = 1033
    _globals['_STATSSERVICE']._serialized_start = 1228
    _globals['_STATSSERVICE']._serialized_end = 1500