"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/chat.proto')
_sym_db = _symbol_database.Default()
from google.protobuf import timestamp_pb2 as google_dot_protobuf_dot_timestamp__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x16verrater/v1/chat.proto\x12\x0bverrater.v1\x1a\x1fgoogle/protobuf/timestamp.proto"\xbe\x01\n\x0bChatMessage\x12\x0e\n\x06cursor\x18\x01 \x01(\t\x12\x10\n\x08table_id\x18\x02 \x01(\t\x12)\n\x07channel\x18\x03 \x01(\x0e2\x18.verrater.v1.ChatChannel\x12\x11\n\tsender_id\x18\x04 \x01(\t\x12\x14\n\x0cdisplay_name\x18\x05 \x01(\t\x12\x0c\n\x04text\x18\x06 \x01(\t\x12+\n\x07sent_at\x18\x07 \x01(\x0b2\x1a.google.protobuf.Timestamp"\x88\x01\n\x16SendChatMessageRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12)\n\x07channel\x18\x02 \x01(\x0e2\x18.verrater.v1.ChatChannel\x12\x0c\n\x04text\x18\x03 \x01(\t\x12\x0f\n\x07game_id\x18\x05 \x01(\t\x12\x12\n\nrequest_id\x18\x06 \x01(\t"D\n\x17SendChatMessageResponse\x12)\n\x07message\x18\x01 \x01(\x0b2\x18.verrater.v1.ChatMessage"V\n\x10WatchChatRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x0e\n\x06cursor\x18\x02 \x01(\t\x12\x0f\n\x07backlog\x18\x03 \x01(\x05\x12\x0f\n\x07game_id\x18\x04 \x01(\t">\n\x11WatchChatResponse\x12)\n\x07message\x18\x01 \x01(\x0b2\x18.verrater.v1.ChatMessage"9\n\x15MuteChatPlayerRequest\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\r\n\x05muted\x18\x02 \x01(\x08"2\n\x16MuteChatPlayerResponse\x12\x18\n\x10muted_player_ids\x18\x01 \x03(\t"J\n\x18ReportChatMessageRequest\x12\x10\n\x08table_id\x18\x01 \x01(\t\x12\x0e\n\x06cursor\x18\x02 \x01(\t\x12\x0c\n\x04note\x18\x03 \x01(\t".\n\x19ReportChatMessageResponse\x12\x11\n\treport_id\x18\x01 \x01(\t*`\n\x0bChatChannel\x12\x1c\n\x18CHAT_CHANNEL_UNSPECIFIED\x10\x00\x12\x16\n\x12CHAT_CHANNEL_TABLE\x10\x01\x12\x1b\n\x17CHAT_CHANNEL_SPECTATORS\x10\x022\xf8\x02\n\x0bChatService\x12\\\n\x0fSendChatMessage\x12#.verrater.v1.SendChatMessageRequest\x1a$.verrater.v1.SendChatMessageResponse\x12L\n\tWatchChat\x12\x1d.verrater.v1.WatchChatRequest\x1a\x1e.verrater.v1.WatchChatResponse0\x01\x12Y\n\x0eMuteChatPlayer\x12".verrater.v1.MuteChatPlayerRequest\x1a#.verrater.v1.MuteChatPlayerResponse\x12b\n\x11ReportChatMessage\x12%.verrater.v1.ReportChatMessageRequest\x1a&.verrater.v1.ReportChatMessageResponseb\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.chat_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_CHATCHANNEL']._serialized_start = 861
    _globals['_CHATCHANNEL']._serialized_end = 957
    _globals['_CHATMESSAGE']._serialized_start = 73
    _globals['_CHATMESSAGE']._serialized_end = 263
    _globals['_SENDCHATMESSAGEREQUEST']._serialized_start = 266
    _globals['_SENDCHATMESSAGEREQUEST']._serialized_end = 402
    _globals['_SENDCHATMESSAGERESPONSE']._serialized_start = 404
    _globals['_SENDCHATMESSAGERESPONSE']._serialized_end = 472
    _globals['_WATCHCHATREQUEST']._serialized_start = 474
    _globals['_WATCHCHATREQUEST']._serialized_end = 560
    _globals['_WATCHCHATRESPONSE']._serialized_start = 562
    _globals['_WATCHCHATRESPONSE']._serialized_end = 624
    _globals['_MUTECHATPLAYERREQUEST']._serialized_start = 626
    _globals['_MUTECHATPLAYERREQUEST']._serialized_end = 683
    _globals['_MUTECHATPLAYERRESPONSE']._serialized_start = 685
    _globals['_MUTECHATPLAYERRESPONSE']._serialized_end = 735
    _globals['_REPORTCHATMESSAGEREQUEST']._serialized_start = 737
    _globals['_REPORTCHATMESSAGEREQUEST']._serialized_end = 811
    _globals['_REPORTCHATMESSAGERESPONSE']._serialized_start = 813
    _globals['_REPORTCHATMESSAGERESPONSE']._serialized_end = 859
    _globals['_CHATSERVICE']._serialized_start = 960
    _globals['_CHATSERVICE']._serialized_end = 1336