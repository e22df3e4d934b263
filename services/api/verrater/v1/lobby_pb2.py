"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/lobby.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17verrater/v1/lobby.proto\x12\x0bverrater.v1\x1a\x18verrater/v1/events.proto",\n\x14RegisterGuestRequest\x12\x14\n\x0cdisplay_name\x18\x01 \x01(\t"\x15\n\x13RefreshTokenRequest"U\n\x07Session\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x14\n\x0cdisplay_name\x18\x02 \x01(\t\x12\r\n\x05token\x18\x03 \x01(\t\x12\x12\n\nexpires_at\x18\x04 \x01(\x03"l\n\tTableSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x11\n\tplayer_id\x18\x02 \x01(\t\x12\x14\n\x0cdisplay_name\x18\x03 \x01(\t\x12(\n\tbot_level\x18\x04 \x01(\x0e2\x15.verrater.v1.BotLevel"\xc3\x02\n\x05Table\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x16\n\x0ehost_player_id\x18\x02 \x01(\t\x12\x0c\n\x04size\x18\x03 \x01(\x05\x12%\n\x05seats\x18\x04 \x03(\x0b2\x16.verrater.v1.TableSeat\x12\x0f\n\x07private\x18\x05 \x01(\x08\x12\x13\n\x0binvite_code\x18\x06 \x01(\t\x12\x18\n\x10builder_may_move\x18\x07 \x01(\x08\x12\x12\n\nauto_start\x18\x08 \x01(\x08\x12(\n\x06status\x18\t \x01(\x0e2\x18.verrater.v1.TableStatus\x12\x0f\n\x07game_id\x18\n \x01(\t\x12\x0e\n\x06ranked\x18\x0b \x01(\x08\x12\x0f\n\x07version\x18\x0c \x01(\x03\x12\x15\n\rcreated_at_ms\x18\r \x01(\x03\x12\x14\n\x0cturn_seconds\x18\x0e \x01(\x05"\xb9\x01\n\x12CreateTableRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12\x0f\n\x07private\x18\x02 \x01(\x08\x12\x18\n\x10builder_may_move\x18\x03 \x01(\x08\x12\x12\n\nauto_start\x18\x04 \x01(\x08\x12)\n\x05setup\x18\x05 \x01(\x0b2\x1a.verrater.v1.ExplicitSetup\x12\x14\n\x0cturn_seconds\x18\x06 \x01(\x05\x12\x15\n\rhost_sits_out\x18\x07 \x01(\x08"9\n\x10JoinTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x13\n\x0binvite_code\x18\x02 \x01(\t"%\n\x11LeaveTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"G\n\rAddBotRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12$\n\x05level\x18\x02 \x01(\x0e2\x15.verrater.v1.BotLevel"0\n\x11ListTablesRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12\r\n\x05limit\x18\x02 \x01(\x05"8\n\x12ListTablesResponse\x12"\n\x06tables\x18\x01 \x03(\x0b2\x12.verrater.v1.Table"q\n\x11QuickMatchRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12$\n\x1cfill_with_bots_after_seconds\x18\x02 \x01(\x05\x12(\n\tbot_level\x18\x03 \x01(\x0e2\x15.verrater.v1.BotLevel"$\n\x10StartGameRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"\'\n\x13GetSeatTokenRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"M\n\tSeatToken\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x0c\n\x04seat\x18\x02 \x01(\x05\x12\r\n\x05token\x18\x03 \x01(\t\x12\x12\n\nexpires_at\x18\x04 \x01(\x03"#\n\x0fGetTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"%\n\x11WatchTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t*\x8c\x01\n\x0bTableStatus\x12\x1c\n\x18TABLE_STATUS_UNSPECIFIED\x10\x00\x12\x15\n\x11TABLE_STATUS_OPEN\x10\x01\x12\x15\n\x11TABLE_STATUS_FULL\x10\x02\x12\x18\n\x14TABLE_STATUS_STARTED\x10\x03\x12\x17\n\x13TABLE_STATUS_CLOSED\x10\x04*c\n\x08BotLevel\x12\x19\n\x15BOT_LEVEL_UNSPECIFIED\x10\x00\x12\x12\n\x0eBOT_LEVEL_EASY\x10\x01\x12\x14\n\x10BOT_LEVEL_NORMAL\x10\x02\x12\x12\n\x0eBOT_LEVEL_HARD\x10\x032\xb6\x06\n\x05Lobby\x12H\n\rRegisterGuest\x12!.verrater.v1.RegisterGuestRequest\x1a\x14.verrater.v1.Session\x12F\n\x0cRefreshToken\x12 .verrater.v1.RefreshTokenRequest\x1a\x14.verrater.v1.Session\x12B\n\x0bCreateTable\x12\x1f.verrater.v1.CreateTableRequest\x1a\x12.verrater.v1.Table\x12>\n\tJoinTable\x12\x1d.verrater.v1.JoinTableRequest\x1a\x12.verrater.v1.Table\x12@\n\nLeaveTable\x12\x1e.verrater.v1.LeaveTableRequest\x1a\x12.verrater.v1.Table\x128\n\x06AddBot\x12\x1a.verrater.v1.AddBotRequest\x1a\x12.verrater.v1.Table\x12M\n\nListTables\x12\x1e.verrater.v1.ListTablesRequest\x1a\x1f.verrater.v1.ListTablesResponse\x12@\n\nQuickMatch\x12\x1e.verrater.v1.QuickMatchRequest\x1a\x12.verrater.v1.Table\x12>\n\tStartGame\x12\x1d.verrater.v1.StartGameRequest\x1a\x12.verrater.v1.Table\x12H\n\x0cGetSeatToken\x12 .verrater.v1.GetSeatTokenRequest\x1a\x16.verrater.v1.SeatToken\x12<\n\x08GetTable\x12\x1c.verrater.v1.GetTableRequest\x1a\x12.verrater.v1.Table\x12B\n\nWatchTable\x12\x1e.verrater.v1.WatchTableRequest\x1a\x12.verrater.v1.Table0\x01b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.lobby_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_TABLESTATUS']._serialized_start = 1475
    _globals['_TABLESTATUS']._serialized_end = 1615
    _globals['_BOTLEVEL']._serialized_start = 1617
    _globals['_BOTLEVEL']._serialized_end = 1716
    _globals['_REGISTERGUESTREQUEST']._serialized_start = 66
    _globals['_REGISTERGUESTREQUEST']._serialized_end = 110
    _globals['_REFRESHTOKENREQUEST']._serialized_start = 112
    _globals['_REFRESHTOKENREQUEST']._serialized_end = 133
    _globals['_SESSION']._serialized_start = 135
    _globals['_SESSION']._serialized_end = 220
    _globals['_TABLESEAT']._serialized_start = 222
    _globals['_TABLESEAT']._serialized_end = 330
    _globals['_TABLE']._serialized_start = 333
    _globals['_TABLE']._serialized_end = 656
    _globals['_CREATETABLEREQUEST']._serialized_start = 659
    _globals['_CREATETABLEREQUEST']._serialized_end = 844
    _globals['_JOINTABLEREQUEST']._serialized_start = 846
    _globals['_JOINTABLEREQUEST']._serialized_end = 903
    _globals['_LEAVETABLEREQUEST']._serialized_start = 905
    _globals['_LEAVETABLEREQUEST']._serialized_end = 942
    _globals['_ADDBOTREQUEST']._serialized_start = 944
    _globals['_ADDBOTREQUEST']._serialized_end = 1015
    _globals['_LISTTABLESREQUEST']._serialized_start = 1017
    _globals['_LISTTABLESREQUEST']._serialized_end = 1065
    _globals['_LISTTABLESRESPONSE']._serialized_start = 1067
    _globals['_LISTTABLESRESPONSE']._serialized_end = 1123
    _globals['_QUICKMATCHREQUEST']._serialized_start = 1125
    _globals['_QUICKMATCHREQUEST']._serialized_end = 1238
    _globals['_STARTGAMEREQUEST']._serialized_start = 1240
    _globals['_STARTGAMEREQUEST']._serialized_end = 1276
    _globals['_GETSEATTOKENREQUEST']._serialized_start = 1278
    _globals['_GETSEATTOKENREQUEST']._serialized_end = 1317
    _globals['_SEATTOKEN']._serialized_start = 1319
    _globals['_SEATTOKEN']._serialized_end = 1396
    _globals['_GETTABLEREQUEST']._serialized_start = 1398
    _globals['_GETTABLEREQUEST']._serialized_end = 1433
    _globals['_WATCHTABLEREQUEST']._serialized_start = 1435
    _globals['_WATCHTABLEREQUEST']._serialized_end = 1472
    _globals['_LOBBY']._serialized_start = 1719
    _globals['_LOBBY']._serialized_end = 2541