"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/game.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import commands_pb2 as verrater_dot_v1_dot_commands__pb2
from ...verrater.v1 import errors_pb2 as verrater_dot_v1_dot_errors__pb2
from ...verrater.v1 import events_pb2 as verrater_dot_v1_dot_events__pb2
from ...verrater.v1 import ruleset_pb2 as verrater_dot_v1_dot_ruleset__pb2
from ...verrater.v1 import view_pb2 as verrater_dot_v1_dot_view__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x16verrater/v1/game.proto\x12\x0bverrater.v1\x1a\x1averrater/v1/commands.proto\x1a\x18verrater/v1/errors.proto\x1a\x18verrater/v1/events.proto\x1a\x19verrater/v1/ruleset.proto\x1a\x16verrater/v1/view.proto"!\n\x0eGetViewRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t"8\n\x0fGetViewResponse\x12%\n\x04view\x18\x01 \x01(\x0b2\x17.verrater.v1.PlayerView"\xae\x01\n\x14SubmitCommandRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x18\n\x10expected_version\x18\x02 \x01(\x03\x12\x12\n\ncommand_id\x18\x03 \x01(\t\x12%\n\x07command\x18\x04 \x01(\x0b2\x14.verrater.v1.Command\x12\x1a\n\x12turn_timer_expired\x18\x05 \x01(\x08\x12\x14\n\x0cversion_only\x18\x06 \x01(\x08"\x8c\x01\n\x15SubmitCommandResponse\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12&\n\x06events\x18\x02 \x03(\x0b2\x16.verrater.v1.GameEvent\x12%\n\x04view\x18\x03 \x01(\x0b2\x17.verrater.v1.PlayerView\x12\x13\n\x0bevent_count\x18\x04 \x01(\x05"C\n\x15SubmitCommandsRequest\x12*\n\x08commands\x18\x01 \x03(\x0b2\x18.verrater.v1.SeatCommand"P\n\x0bSeatCommand\x12\r\n\x05token\x18\x01 \x01(\t\x122\n\x07command\x18\x02 \x01(\x0b2!.verrater.v1.SubmitCommandRequest"E\n\x16SubmitCommandsResponse\x12+\n\x07results\x18\x01 \x03(\x0b2\x1a.verrater.v1.CommandResult"l\n\x0cWatchRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x14\n\x0cfrom_version\x18\x02 \x01(\x03\x12$\n\x04mode\x18\x03 \x01(\x0e2\x16.verrater.v1.WatchMode\x12\x0f\n\x07grouped\x18\x04 \x01(\x08"b\n\rWatchResponse\x12\'\n\x06update\x18\x01 \x01(\x0b2\x17.verrater.v1.GameUpdate\x12(\n\x07updates\x18\x02 \x03(\x0b2\x17.verrater.v1.GameUpdate"k\n\nGameUpdate\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12%\n\x05event\x18\x02 \x01(\x0b2\x16.verrater.v1.GameEvent\x12%\n\x04view\x18\x03 \x01(\x0b2\x17.verrater.v1.PlayerView"u\n\x0bPlayRequest\x12%\n\x04open\x18\x01 \x01(\x0b2\x15.verrater.v1.PlayOpenH\x00\x124\n\x07command\x18\x02 \x01(\x0b2!.verrater.v1.SubmitCommandRequestH\x00B\t\n\x07request"1\n\x08PlayOpen\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x14\n\x0cfrom_version\x18\x02 \x01(\x03"q\n\x0cPlayResponse\x12\'\n\x04turn\x18\x01 \x01(\x0b2\x17.verrater.v1.GameUpdateH\x00\x12,\n\x06result\x18\x02 \x01(\x0b2\x1a.verrater.v1.CommandResultH\x00B\n\n\x08response"\x95\x01\n\rCommandResult\x12\x12\n\ncommand_id\x18\x01 \x01(\t\x125\n\x07applied\x18\x02 \x01(\x0b2".verrater.v1.SubmitCommandResponseH\x00\x12.\n\x07refused\x18\x03 \x01(\x0b2\x1b.verrater.v1.CommandRefusedH\x00B\t\n\x07outcome"\xe2\x01\n\x0eCommandRefused\x12\x0c\n\x04code\x18\x01 \x01(\x05\x12\x0f\n\x07message\x18\x02 \x01(\t\x123\n\tviolation\x18\x03 \x01(\x0b2 .verrater.v1.RuleViolationDetail\x12\x0e\n\x06reason\x18\x04 \x01(\t\x12;\n\x08metadata\x18\x05 \x03(\x0b2).verrater.v1.CommandRefused.MetadataEntry\x1a/\n\rMetadataEntry\x12\x0b\n\x03key\x18\x01 \x01(\t\x12\r\n\x05value\x18\x02 \x01(\t:\x028\x01" \n\rGetLogRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t"w\n\x0bLoggedEvent\x12\x0f\n\x07version\x18\x01 \x01(\x03\x12\x11\n\tprev_hash\x18\x02 \x01(\t\x12\x0c\n\x04hash\x18\x03 \x01(\t\x12%\n\x05event\x18\x04 \x01(\x0b2\x16.verrater.v1.GameEvent\x12\x0f\n\x07payload\x18\x05 \x01(\x0c"K\n\x0eGetLogResponse\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12(\n\x06events\x18\x02 \x03(\x0b2\x18.verrater.v1.LoggedEvent"O\n\x11GetRulesetRequest\x12\x0f\n\x07game_id\x18\x03 \x01(\t\x12\x0f\n\x07players\x18\x01 \x01(\x05\x12\x18\n\x10builder_may_move\x18\x02 \x01(\x08";\n\x12GetRulesetResponse\x12%\n\x07ruleset\x18\x01 \x01(\x0b2\x14.verrater.v1.Ruleset"\xee\x01\n\x11CreateGameRequest\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x0f\n\x07players\x18\x02 \x01(\x05\x12\x18\n\x10builder_may_move\x18\x03 \x01(\x08\x12)\n\x05setup\x18\x04 \x01(\x0b2\x1a.verrater.v1.ExplicitSetup\x12\x11\n\x04seed\x18\x05 \x01(\x0cH\x00\x88\x01\x01\x12*\n\x05seats\x18\x07 \x03(\x0b2\x1b.verrater.v1.SeatAssignment\x12\x0e\n\x06ranked\x18\x08 \x01(\x08\x12\x14\n\x0cturn_seconds\x18\t \x01(\x05B\x07\n\x05_seedJ\x04\x08\x06\x10\x07"6\n\x12CreateGameResponse\x12\x0f\n\x07game_id\x18\x01 \x01(\t\x12\x0f\n\x07version\x18\x02 \x01(\x03*j\n\tWatchMode\x12\x1a\n\x16WATCH_MODE_UNSPECIFIED\x10\x00\x12\x15\n\x11WATCH_MODE_EVENTS\x10\x01\x12\x14\n\x10WATCH_MODE_VIEWS\x10\x02\x12\x14\n\x10WATCH_MODE_TURNS\x10\x032\xea\x04\n\x0bGameService\x12D\n\x07GetView\x12\x1b.verrater.v1.GetViewRequest\x1a\x1c.verrater.v1.GetViewResponse\x12V\n\rSubmitCommand\x12!.verrater.v1.SubmitCommandRequest\x1a".verrater.v1.SubmitCommandResponse\x12Y\n\x0eSubmitCommands\x12".verrater.v1.SubmitCommandsRequest\x1a#.verrater.v1.SubmitCommandsResponse\x12@\n\x05Watch\x12\x19.verrater.v1.WatchRequest\x1a\x1a.verrater.v1.WatchResponse0\x01\x12?\n\x04Play\x12\x18.verrater.v1.PlayRequest\x1a\x19.verrater.v1.PlayResponse(\x010\x01\x12A\n\x06GetLog\x12\x1a.verrater.v1.GetLogRequest\x1a\x1b.verrater.v1.GetLogResponse\x12M\n\nGetRuleset\x12\x1e.verrater.v1.GetRulesetRequest\x1a\x1f.verrater.v1.GetRulesetResponse\x12M\n\nCreateGame\x12\x1e.verrater.v1.CreateGameRequest\x1a\x1f.verrater.v1.CreateGameResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.game_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_COMMANDREFUSED_METADATAENTRY']._loaded_options = None
    _globals['_COMMANDREFUSED_METADATAENTRY']._serialized_options = b'8\x01'
    _globals['_WATCHMODE']._serialized_start = 2461
    _globals['_WATCHMODE']._serialized_end = 2567
    _globals['_GETVIEWREQUEST']._serialized_start = 170
    _globals['_GETVIEWREQUEST']._serialized_end = 203
    _globals['_GETVIEWRESPONSE']._serialized_start = 205
    _globals['_GETVIEWRESPONSE']._serialized_end = 261
    _globals['_SUBMITCOMMANDREQUEST']._serialized_start = 264
    _globals['_SUBMITCOMMANDREQUEST']._serialized_end = 438
    _globals['_SUBMITCOMMANDRESPONSE']._serialized_start = 441
    _globals['_SUBMITCOMMANDRESPONSE']._serialized_end = 581
    _globals['_SUBMITCOMMANDSREQUEST']._serialized_start = 583
    _globals['_SUBMITCOMMANDSREQUEST']._serialized_end = 650
    _globals['_SEATCOMMAND']._serialized_start = 652
    _globals['_SEATCOMMAND']._serialized_end = 732
    _globals['_SUBMITCOMMANDSRESPONSE']._serialized_start = 734
    _globals['_SUBMITCOMMANDSRESPONSE']._serialized_end = 803
    _globals['_WATCHREQUEST']._serialized_start = 805
    _globals['_WATCHREQUEST']._serialized_end = 913
    _globals['_WATCHRESPONSE']._serialized_start = 915
    _globals['_WATCHRESPONSE']._serialized_end = 1013
    _globals['_GAMEUPDATE']._serialized_start = 1015
    _globals['_GAMEUPDATE']._serialized_end = 1122
    _globals['_PLAYREQUEST']._serialized_start = 1124
    _globals['_PLAYREQUEST']._serialized_end = 1241
    _globals['_PLAYOPEN']._serialized_start = 1243
    _globals['_PLAYOPEN']._serialized_end = 1292
    _globals['_PLAYRESPONSE']._serialized_start = 1294
    _globals['_PLAYRESPONSE']._serialized_end = 1407
    _globals['_COMMANDRESULT']._serialized_start = 1410
    _globals['_COMMANDRESULT']._serialized_end = 1559
    _globals['_COMMANDREFUSED']._serialized_start = 1562
    _globals['_COMMANDREFUSED']._serialized_end = 1788
    _globals['_COMMANDREFUSED_METADATAENTRY']._serialized_start = 1741
    _globals['_COMMANDREFUSED_METADATAENTRY']._serialized_end = 1788
    _globals['_GETLOGREQUEST']._serialized_start = 1790
    _globals['_GETLOGREQUEST']._serialized_end = 1822
    _globals['_LOGGEDEVENT']._serialized_start = 1824
    _globals['_LOGGEDEVENT']._serialized_end = 1943
    _globals['_GETLOGRESPONSE']._serialized_start = 1945
    _globals['_GETLOGRESPONSE']._serialized_end = 2020
    _globals['_GETRULESETREQUEST']._serialized_start = 2022
    _globals['_GETRULESETREQUEST']._serialized_end = 2101
    _globals['_GETRULESETRESPONSE']._serialized_start = 2103
    _globals['_GETRULESETRESPONSE']._serialized_end = 2162
    _globals['_CREATEGAMEREQUEST']._serialized_start = 2165
    _globals['_CREATEGAMEREQUEST']._serialized_end = 2403
    _globals['_CREATEGAMERESPONSE']._serialized_start = 2405
    _globals['_CREATEGAMERESPONSE']._serialized_end = 2459
    _globals['_GAMESERVICE']._serialized_start = 2570
    _globals['_GAMESERVICE']._serialized_end = 3188