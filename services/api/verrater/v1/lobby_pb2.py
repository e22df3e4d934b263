"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/lobby.proto')
_sym_db = _symbol_database.Default()
from google.protobuf import timestamp_pb2 as google_dot_protobuf_dot_timestamp__pb2
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x17verrater/v1/lobby.proto\x12\x0bverrater.v1\x1a\x1fgoogle/protobuf/timestamp.proto\x1a\x18verrater/v1/events.proto"@\n\x14RegisterGuestRequest\x12\x14\n\x0cdisplay_name\x18\x01 \x01(\t\x12\x12\n\nrequest_id\x18\x02 \x01(\t">\n\x15RegisterGuestResponse\x12%\n\x07session\x18\x01 \x01(\x0b2\x14.verrater.v1.Session"6\n\rSignInRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x12\n\ncredential\x18\x02 \x01(\t"7\n\x0eSignInResponse\x12%\n\x07session\x18\x01 \x01(\x0b2\x14.verrater.v1.Session"\x15\n\x13RefreshTokenRequest"=\n\x14RefreshTokenResponse\x12%\n\x07session\x18\x01 \x01(\x0b2\x14.verrater.v1.Session"-\n\x17RotateCredentialRequest\x12\x12\n\nrequest_id\x18\x01 \x01(\t"A\n\x18RotateCredentialResponse\x12%\n\x07session\x18\x01 \x01(\x0b2\x14.verrater.v1.Session"i\n\x07Session\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x14\n\x0cdisplay_name\x18\x02 \x01(\t\x12\r\n\x05token\x18\x03 \x01(\t\x12\x12\n\nexpires_at\x18\x04 \x01(\x03\x12\x12\n\ncredential\x18\x05 \x01(\t"l\n\tTableSeat\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x11\n\tplayer_id\x18\x02 \x01(\t\x12\x14\n\x0cdisplay_name\x18\x03 \x01(\t\x12(\n\tbot_level\x18\x04 \x01(\x0e2\x15.verrater.v1.BotLevel"\xc3\x02\n\x05Table\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x16\n\x0ehost_player_id\x18\x02 \x01(\t\x12\x0c\n\x04size\x18\x03 \x01(\x05\x12%\n\x05seats\x18\x04 \x03(\x0b2\x16.verrater.v1.TableSeat\x12\x0f\n\x07private\x18\x05 \x01(\x08\x12\x13\n\x0binvite_code\x18\x06 \x01(\t\x12\x18\n\x10builder_may_move\x18\x07 \x01(\x08\x12\x12\n\nauto_start\x18\x08 \x01(\x08\x12(\n\x06status\x18\t \x01(\x0e2\x18.verrater.v1.TableStatus\x12\x0f\n\x07game_id\x18\n \x01(\t\x12\x0e\n\x06ranked\x18\x0b \x01(\x08\x12\x0f\n\x07version\x18\x0c \x01(\x03\x12\x15\n\rcreated_at_ms\x18\r \x01(\x03\x12\x14\n\x0cturn_seconds\x18\x0e \x01(\x05"\xcd\x01\n\x12CreateTableRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12\x0f\n\x07private\x18\x02 \x01(\x08\x12\x18\n\x10builder_may_move\x18\x03 \x01(\x08\x12\x12\n\nauto_start\x18\x04 \x01(\x08\x12)\n\x05setup\x18\x05 \x01(\x0b2\x1a.verrater.v1.ExplicitSetup\x12\x14\n\x0cturn_seconds\x18\x06 \x01(\x05\x12\x15\n\rhost_sits_out\x18\x07 \x01(\x08\x12\x12\n\nrequest_id\x18\x08 \x01(\t"8\n\x13CreateTableResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"M\n\x10JoinTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x13\n\x0binvite_code\x18\x02 \x01(\t\x12\x12\n\nrequest_id\x18\x03 \x01(\t"6\n\x11JoinTableResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"9\n\x11LeaveTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x12\n\nrequest_id\x18\x02 \x01(\t"7\n\x12LeaveTableResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"[\n\rAddBotRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12$\n\x05level\x18\x02 \x01(\x0e2\x15.verrater.v1.BotLevel\x12\x12\n\nrequest_id\x18\x03 \x01(\t"3\n\x0eAddBotResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"0\n\x11ListTablesRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12\r\n\x05limit\x18\x02 \x01(\x05"8\n\x12ListTablesResponse\x12"\n\x06tables\x18\x01 \x03(\x0b2\x12.verrater.v1.Table"\x85\x01\n\x11QuickMatchRequest\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12$\n\x1cfill_with_bots_after_seconds\x18\x02 \x01(\x05\x12(\n\tbot_level\x18\x03 \x01(\x0e2\x15.verrater.v1.BotLevel\x12\x12\n\nrequest_id\x18\x04 \x01(\t"7\n\x12QuickMatchResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"8\n\x10StartGameRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x12\n\nrequest_id\x18\x02 \x01(\t"6\n\x11StartGameResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"\'\n\x13GetSeatTokenRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"X\n\x14GetSeatTokenResponse\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x0c\n\x04seat\x18\x02 \x01(\x05\x12\r\n\x05token\x18\x03 \x01(\t\x12\x12\n\nexpires_at\x18\x04 \x01(\x03"#\n\x0fGetTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"5\n\x10GetTableResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"%\n\x11WatchTableRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t"7\n\x12WatchTableResponse\x12!\n\x05table\x18\x01 \x01(\x0b2\x12.verrater.v1.Table"\x14\n\x12ListMyGamesRequest"\xa7\x02\n\x06MyGame\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x0f\n\x07game_id\x18\x02 \x01(\t\x12\x11\n\x04seat\x18\x03 \x01(\x05H\x00\x88\x01\x01\x12(\n\x06status\x18\x04 \x01(\x0e2\x18.verrater.v1.TableStatus\x12\r\n\x05round\x18\x05 \x01(\x05\x12\x0f\n\x07version\x18\x06 \x01(\x03\x12\x11\n\tyour_turn\x18\x07 \x01(\x08\x12,\n\x08deadline\x18\x08 \x01(\x0b2\x1a.google.protobuf.Timestamp\x12\x10\n\x08finished\x18\t \x01(\x08\x12\x10\n\x08final_vp\x18\n \x01(\x05\x12\x0c\n\x04rank\x18\x0b \x01(\x05\x12!\n\x05table\x18\x0c \x01(\x0b2\x12.verrater.v1.TableB\x07\n\x05_seat"9\n\x13ListMyGamesResponse\x12"\n\x05games\x18\x01 \x03(\x0b2\x13.verrater.v1.MyGame"+\n\x19WatchNotificationsRequest\x12\x0e\n\x06cursor\x18\x01 \x01(\t"M\n\x1aWatchNotificationsResponse\x12/\n\x0cnotification\x18\x01 \x01(\x0b2\x19.verrater.v1.Notification"\xcb\x03\n\x0cNotification\x12\x0e\n\x06cursor\x18\x01 \x01(\t\x12&\n\x02at\x18\x02 \x01(\x0b2\x1a.google.protobuf.Timestamp\x12\x10\n\x08table_id\x18\x03 \x01(\t\x12\x0f\n\x07game_id\x18\x04 \x01(\t\x12*\n\tyour_turn\x18\n \x01(\x0b2\x15.verrater.v1.YourTurnH\x00\x12,\n\ntable_full\x18\x0b \x01(\x0b2\x16.verrater.v1.TableFullH\x00\x122\n\rgame_starting\x18\x0c \x01(\x0b2\x19.verrater.v1.GameStartingH\x00\x120\n\x0cgame_started\x18\r \x01(\x0b2\x18.verrater.v1.GameStartedH\x00\x12*\n\tgame_over\x18\x0e \x01(\x0b2\x15.verrater.v1.GameOverH\x00\x129\n\x11timer_running_out\x18\x0f \x01(\x0b2\x1c.verrater.v1.TimerRunningOutH\x00\x121\n\rbot_took_over\x18\x10 \x01(\x0b2\x18.verrater.v1.BotTookOverH\x00B\x06\n\x04kind"W\n\x08YourTurn\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12,\n\x08deadline\x18\x03 \x01(\x0b2\x1a.google.protobuf.Timestamp"\x0b\n\tTableFull"\x0e\n\x0cGameStarting"\x1b\n\x0bGameStarted\x12\x0c\n\x04seat\x18\x01 \x01(\x05"I\n\x08GameOver\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x10\n\x08final_vp\x18\x02 \x01(\x05\x12\x0c\n\x04rank\x18\x03 \x01(\x05\x12\x0f\n\x07winners\x18\x04 \x03(\x05"^\n\x0fTimerRunningOut\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0f\n\x07version\x18\x02 \x01(\x03\x12,\n\x08deadline\x18\x03 \x01(\x0b2\x1a.google.protobuf.Timestamp",\n\x0bBotTookOver\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0f\n\x07version\x18\x02 \x01(\x03*\xa7\x01\n\x0bTableStatus\x12\x1c\n\x18TABLE_STATUS_UNSPECIFIED\x10\x00\x12\x15\n\x11TABLE_STATUS_OPEN\x10\x01\x12\x15\n\x11TABLE_STATUS_FULL\x10\x02\x12\x18\n\x14TABLE_STATUS_STARTED\x10\x03\x12\x17\n\x13TABLE_STATUS_CLOSED\x10\x04\x12\x19\n\x15TABLE_STATUS_STARTING\x10\x052\xa3\n\n\x0cLobbyService\x12V\n\rRegisterGuest\x12!.verrater.v1.RegisterGuestRequest\x1a".verrater.v1.RegisterGuestResponse\x12A\n\x06SignIn\x12\x1a.verrater.v1.SignInRequest\x1a\x1b.verrater.v1.SignInResponse\x12S\n\x0cRefreshToken\x12 .verrater.v1.RefreshTokenRequest\x1a!.verrater.v1.RefreshTokenResponse\x12_\n\x10RotateCredential\x12$.verrater.v1.RotateCredentialRequest\x1a%.verrater.v1.RotateCredentialResponse\x12P\n\x0bCreateTable\x12\x1f.verrater.v1.CreateTableRequest\x1a .verrater.v1.CreateTableResponse\x12J\n\tJoinTable\x12\x1d.verrater.v1.JoinTableRequest\x1a\x1e.verrater.v1.JoinTableResponse\x12M\n\nLeaveTable\x12\x1e.verrater.v1.LeaveTableRequest\x1a\x1f.verrater.v1.LeaveTableResponse\x12A\n\x06AddBot\x12\x1a.verrater.v1.AddBotRequest\x1a\x1b.verrater.v1.AddBotResponse\x12M\n\nListTables\x12\x1e.verrater.v1.ListTablesRequest\x1a\x1f.verrater.v1.ListTablesResponse\x12M\n\nQuickMatch\x12\x1e.verrater.v1.QuickMatchRequest\x1a\x1f.verrater.v1.QuickMatchResponse\x12J\n\tStartGame\x12\x1d.verrater.v1.StartGameRequest\x1a\x1e.verrater.v1.StartGameResponse\x12S\n\x0cGetSeatToken\x12 .verrater.v1.GetSeatTokenRequest\x1a!.verrater.v1.GetSeatTokenResponse\x12G\n\x08GetTable\x12\x1c.verrater.v1.GetTableRequest\x1a\x1d.verrater.v1.GetTableResponse\x12O\n\nWatchTable\x12\x1e.verrater.v1.WatchTableRequest\x1a\x1f.verrater.v1.WatchTableResponse0\x01\x12P\n\x0bListMyGames\x12\x1f.verrater.v1.ListMyGamesRequest\x1a .verrater.v1.ListMyGamesResponse\x12g\n\x12WatchNotifications\x12&.verrater.v1.WatchNotificationsRequest\x1a\'.verrater.v1.WatchNotificationsResponse0\x01b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.lobby_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_TABLESTATUS']._serialized_start = 3812
    _globals['_TABLESTATUS']._serialized_end = 3979
    _globals['_REGISTERGUESTREQUEST']._serialized_start = 99
    _globals['_REGISTERGUESTREQUEST']._serialized_end = 163
    _globals['_REGISTERGUESTRESPONSE']._serialized_start = 165
    _globals['_REGISTERGUESTRESPONSE']._serialized_end = 227
    _globals['_SIGNINREQUEST']._serialized_start = 229
    _globals['_SIGNINREQUEST']._serialized_end = 283
    _globals['_SIGNINRESPONSE']._serialized_start = 285
    _globals['_SIGNINRESPONSE']._serialized_end = 340
    _globals['_REFRESHTOKENREQUEST']._serialized_start = 342
    _globals['_REFRESHTOKENREQUEST']._serialized_end = 363
    _globals['_REFRESHTOKENRESPONSE']._serialized_start = 365
    _globals['_REFRESHTOKENRESPONSE']._serialized_end = 426
    _globals['_ROTATECREDENTIALREQUEST']._serialized_start = 428
    _globals['_ROTATECREDENTIALREQUEST']._serialized_end = 473
    _globals['_ROTATECREDENTIALRESPONSE']._serialized_start = 475
    _globals['_ROTATECREDENTIALRESPONSE']._serialized_end = 540
    _globals['_SESSION']._serialized_start = 542
    _globals['_SESSION']._serialized_end = 647
    _globals['_TABLESEAT']._serialized_start = 649
    _globals['_TABLESEAT']._serialized_end = 757
    _globals['_TABLE']._serialized_start = 760
    _globals['_TABLE']._serialized_end = 1083
    _globals['_CREATETABLEREQUEST']._serialized_start = 1086
    _globals['_CREATETABLEREQUEST']._serialized_end = 1291
    _globals['_CREATETABLERESPONSE']._serialized_start = 1293
    _globals['_CREATETABLERESPONSE']._serialized_end = 1349
    _globals['_JOINTABLEREQUEST']._serialized_start = 1351
    _globals['_JOINTABLEREQUEST']._serialized_end = 1428
    _globals['_JOINTABLERESPONSE']._serialized_start = 1430
    _globals['_JOINTABLERESPONSE']._serialized_end = 1484
    _globals['_LEAVETABLEREQUEST']._serialized_start = 1486
    _globals['_LEAVETABLEREQUEST']._serialized_end = 1543
    _globals['_LEAVETABLERESPONSE']._serialized_start = 1545
    _globals['_LEAVETABLERESPONSE']._serialized_end = 1600
    _globals['_ADDBOTREQUEST']._serialized_start = 1602
    _globals['_ADDBOTREQUEST']._serialized_end = 1693
    _globals['_ADDBOTRESPONSE']._serialized_start = 1695
    _globals['_ADDBOTRESPONSE']._serialized_end = 1746
    _globals['_LISTTABLESREQUEST']._serialized_start = 1748
    _globals['_LISTTABLESREQUEST']._serialized_end = 1796
    _globals['_LISTTABLESRESPONSE']._serialized_start = 1798
    _globals['_LISTTABLESRESPONSE']._serialized_end = 1854
    _globals['_QUICKMATCHREQUEST']._serialized_start = 1857
    _globals['_QUICKMATCHREQUEST']._serialized_end = 1990
    _globals['_QUICKMATCHRESPONSE']._serialized_start = 1992
    _globals['_QUICKMATCHRESPONSE']._serialized_end = 2047
    _globals['_STARTGAMEREQUEST']._serialized_start = 2049
    _globals['_STARTGAMEREQUEST']._serialized_end = 2105
    _globals['_STARTGAMERESPONSE']._serialized_start = 2107
    _globals['_STARTGAMERESPONSE']._serialized_end = 2161
    _globals['_GETSEATTOKENREQUEST']._serialized_start = 2163
    _globals['_GETSEATTOKENREQUEST']._serialized_end = 2202
    _globals['_GETSEATTOKENRESPONSE']._serialized_start = 2204
    _globals['_GETSEATTOKENRESPONSE']._serialized_end = 2292
    _globals['_GETTABLEREQUEST']._serialized_start = 2294
    _globals['_GETTABLEREQUEST']._serialized_end = 2329
    _globals['_GETTABLERESPONSE']._serialized_start = 2331
    _globals['_GETTABLERESPONSE']._serialized_end = 2384
    _globals['_WATCHTABLEREQUEST']._serialized_start = 2386
    _globals['_WATCHTABLEREQUEST']._serialized_end = 2423
    _globals['_WATCHTABLERESPONSE']._serialized_start = 2425
    _globals['_WATCHTABLERESPONSE']._serialized_end = 2480
    _globals['_LISTMYGAMESREQUEST']._serialized_start = 2482
    _globals['_LISTMYGAMESREQUEST']._serialized_end = 2502
    _globals['_MYGAME']._serialized_start = 2505
    _globals['_MYGAME']._serialized_end = 2800
    _globals['_LISTMYGAMESRESPONSE']._serialized_start = 2802
    _globals['_LISTMYGAMESRESPONSE']._serialized_end = 2859
    _globals['_WATCHNOTIFICATIONSREQUEST']._serialized_start = 2861
    _globals['_WATCHNOTIFICATIONSREQUEST']._serialized_end = 2904
    _globals['_WATCHNOTIFICATIONSRESPONSE']._serialized_start = 2906
    _globals['_WATCHNOTIFICATIONSRESPONSE']._serialized_end = 2983
    _globals['_NOTIFICATION']._serialized_start = 2986
    _globals['_NOTIFICATION']._serialized_end = 3445
    _globals['_YOURTURN']._serialized_start = 3447
    _globals['_YOURTURN']._serialized_end = 3534
    _globals['_TABLEFULL']._serialized_start = 3536
    _globals['_TABLEFULL']._serialized_end = 3547
    _globals['_GAMESTARTING']._serialized_start = 3549
    _globals['_GAMESTARTING']._serialized_end = 3563
    _globals['_GAMESTARTED']._serialized_start = 3565
    _globals['_GAMESTARTED']._serialized_end = 3592
    _globals['_GAMEOVER']._serialized_start = 3594
    _globals['_GAMEOVER']._serialized_end = 3667
    _globals['_TIMERRUNNINGOUT']._serialized_start = 3669
    _globals['_TIMERRUNNINGOUT']._serialized_end = 3763
    _globals['_BOTTOOKOVER']._serialized_start = 3765
    _globals['_BOTTOOKOVER']._serialized_end = 3809
    _globals['_LOBBYSERVICE']._serialized_start = 3982
    _globals['_LOBBYSERVICE']._serialized_end = 5297