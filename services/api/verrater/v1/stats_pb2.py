"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/stats.proto')
_sym_db = _symbol_database.Default()
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17verrater/v1/stats.proto\x12\x0bverrater.v1"L\n\x18ListFinishedGamesRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\r\n\x05limit\x18\x02 \x01(\x05\x12\x0e\n\x06before\x18\x03 \x01(\x03"\xe7\x01\n\x0cFinishedSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x11\n\tplayer_id\x18\x02 \x01(\t\x12\x0c\n\x04name\x18\x03 \x01(\t\x12\x11\n\tbot_level\x18\x04 \x01(\t\x12\x10\n\x08final_vp\x18\x05 \x01(\x05\x12\x0c\n\x04rank\x18\x06 \x01(\x05\x12\x17\n\x0freplaced_by_bot\x18\x07 \x01(\x08\x12\x1b\n\x0eordinal_before\x18\x08 \x01(\x01H\x00\x88\x01\x01\x12\x1a\n\rordinal_after\x18\t \x01(\x01H\x01\x88\x01\x01B\x11\n\x0f_ordinal_beforeB\x10\n\x0e_ordinal_after"\xda\x01\n\x0cFinishedGame\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x11\n\tend_order\x18\x02 \x01(\x03\x12\x16\n\x0efinished_at_ms\x18\x03 \x01(\x03\x12(\n\x05seats\x18\x04 \x03(\x0b2\x19.verrater.v1.FinishedSeat\x12\x0f\n\x07winners\x18\x05 \x03(\x05\x12\x0e\n\x06ranked\x18\x06 \x01(\x08\x124\n\x0funranked_reason\x18\x07 \x01(\x0e2\x1b.verrater.v1.UnrankedReason\x12\r\n\x05early\x18\x08 \x01(\x08"N\n\rFinishedGames\x12(\n\x05games\x18\x01 \x03(\x0b2\x19.verrater.v1.FinishedGame\x12\x13\n\x0bnext_before\x18\x02 \x01(\x03"%\n\x10GetRatingRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t"|\n\x06Rating\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x0c\n\x04name\x18\x02 \x01(\t\x12\n\n\x02mu\x18\x03 \x01(\x01\x12\r\n\x05sigma\x18\x04 \x01(\x01\x12\x0f\n\x07ordinal\x18\x05 \x01(\x01\x12\x13\n\x0brated_games\x18\x06 \x01(\x05\x12\x10\n\x08position\x18\x07 \x01(\x05"#\n\x12LeaderboardRequest\x12\r\n\x05limit\x18\x01 \x01(\x05";\n\x13LeaderboardResponse\x12$\n\x07ratings\x18\x01 \x03(\x0b2\x13.verrater.v1.Rating*\xa3\x01\n\x0eUnrankedReason\x12\x1f\n\x1bUNRANKED_REASON_UNSPECIFIED\x10\x00\x12\x1b\n\x17UNRANKED_REASON_SANDBOX\x10\x01\x12\x18\n\x14UNRANKED_REASON_BOTS\x10\x02\x12\x19\n\x15UNRANKED_REASON_TABLE\x10\x03\x12\x1e\n\x1aUNRANKED_REASON_TURN_TIMER\x10\x042\xf2\x01\n\x05Stats\x12V\n\x11ListFinishedGames\x12%.verrater.v1.ListFinishedGamesRequest\x1a\x1a.verrater.v1.FinishedGames\x12?\n\tGetRating\x12\x1d.verrater.v1.GetRatingRequest\x1a\x13.verrater.v1.Rating\x12P\n\x0bLeaderboard\x12\x1f.verrater.v1.LeaderboardRequest\x1a .verrater.v1.LeaderboardResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.stats_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_UNRANKEDREASON']._serialized_start = 917
    _globals['_UNRANKEDREASON']._serialized_end = 1080
    _globals['_LISTFINISHEDGAMESREQUEST']._serialized_start = 40
    _globals['_LISTFINISHEDGAMESREQUEST']._serialized_end = 116
    _globals['_FINISHEDSEAT']._serialized_start = 119
    _globals['_FINISHEDSEAT']._serialized_end = 350
    _globals['_FINISHEDGAME']._serialized_start = 353
    _globals['_FINISHEDGAME']._serialized_end = 571
    _globals['_FINISHEDGAMES']._serialized_start = 573
    _globals['_FINISHEDGAMES']._serialized_end = 651
    _globals['_GETRATINGREQUEST']._serialized_start = 653
    _globals['_GETRATINGREQUEST']._serialized_end = 690
    _globals['_RATING']._serialized_start = 692
    _globals['_RATING']._serialized_end = 816
    _globals['_LEADERBOARDREQUEST']._serialized_start = 818
    _globals['_LEADERBOARDREQUEST']._serialized_end = 853
    _globals['_LEADERBOARDRESPONSE']._serialized_start = 855
    _globals['_LEADERBOARDRESPONSE']._serialized_end = 914
    _globals['_STATS']._serialized_start = 1083
    _globals['_STATS']._serialized_end = 1325