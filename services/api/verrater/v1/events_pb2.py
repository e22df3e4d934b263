"""Generated protocol buffer code."""
from google.protobuf import descriptor as _descriptor
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import runtime_version as _runtime_version
from google.protobuf import symbol_database as _symbol_database
from google.protobuf.internal import builder as _builder
_runtime_version.ValidateProtobufRuntimeVersion(_runtime_version.Domain.PUBLIC, 5, 29, 0, '', 'verrater/v1/events.proto')
_sym_db = _symbol_database.Default()
from ...verrater.v1 import cards_pb2 as verrater_dot_v1_dot_cards__pb2
from ...verrater.v1 import ruleset_pb2 as verrater_dot_v1_dot_ruleset__pb2
DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\n\x18verrater/v1/events.proto\x12\x0bverrater.v1\x1a\x17verrater/v1/cards.proto\x1a\x19verrater/v1/ruleset.proto"\\\n\rRingLandscape\x12(\n\x04type\x18\x01 \x01(\x0e2\x1a.verrater.v1.LandscapeType\x12!\n\x05house\x18\x02 \x01(\x0e2\x12.verrater.v1.House"6\n\x04Ring\x12.\n\nlandscapes\x18\x01 \x03(\x0b2\x1a.verrater.v1.RingLandscape"\xb1\x01\n\rExplicitSetup\x12\x19\n\x0cstart_player\x18\x01 \x01(\x05H\x00\x88\x01\x01\x12\x1f\n\x04ring\x18\x02 \x01(\x0b2\x11.verrater.v1.Ring\x12&\n\x04deck\x18\x03 \x01(\x0b2\x18.verrater.v1.SupplyCards\x12+\n\tset_aside\x18\x04 \x01(\x0b2\x18.verrater.v1.ActionCardsB\x0f\n\r_start_player"\xe6\x01\n\x0bGameCreated\x12%\n\x07ruleset\x18\x01 \x01(\x0b2\x14.verrater.v1.Ruleset\x12\x17\n\x0fseed_commitment\x18\x02 \x01(\t\x12\x11\n\x04seed\x18\x03 \x01(\x0cH\x00\x88\x01\x01\x12)\n\x05setup\x18\x04 \x01(\x0b2\x1a.verrater.v1.ExplicitSetup\x12*\n\x05seats\x18\x05 \x03(\x0b2\x1b.verrater.v1.SeatAssignment\x12\x0e\n\x06ranked\x18\x06 \x01(\x08\x12\x14\n\x0cturn_seconds\x18\x07 \x01(\x05B\x07\n\x05_seed"[\n\x0eSeatAssignment\x12\x11\n\tplayer_id\x18\x01 \x01(\t\x12\x0c\n\x04name\x18\x02 \x01(\t\x12(\n\tbot_level\x18\x03 \x01(\x0e2\x15.verrater.v1.BotLevel"J\n\x11StartPlayerChosen\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\'\n\x0ballegiances\x18\x02 \x03(\x0e2\x12.verrater.v1.House"=\n\x0bRingLaidOut\x12.\n\nlandscapes\x18\x01 \x03(\x0b2\x1a.verrater.v1.RingLandscape"q\n\x0bSupplyDealt\x12\'\n\x05hands\x18\x01 \x03(\x0b2\x18.verrater.v1.SupplyCards\x12\x11\n\tdeck_size\x18\x02 \x01(\x05\x12&\n\x04deck\x18\x03 \x01(\x0b2\x18.verrater.v1.SupplyCards""\n\x12StrategistAssigned\x12\x0c\n\x04seat\x18\x01 \x01(\x05"/\n\nPhaseBegan\x12!\n\x05phase\x18\x01 \x01(\x0e2\x12.verrater.v1.Phase"3\n\x11FirstEstatePlaced\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x10\n\x08position\x18\x02 \x01(\x05"3\n\x0cRoundStarted\x12\r\n\x05round\x18\x01 \x01(\x05\x12\x14\n\x0cstart_player\x18\x02 \x01(\x05"=\n\x0eConflictChosen\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05first\x18\x02 \x01(\x05\x12\x0e\n\x06second\x18\x03 \x01(\x05"|\n\x10ActionCardsDealt\x12/\n\tset_aside\x18\x01 \x01(\x0e2\x17.verrater.v1.ActionCardH\x00\x88\x01\x01\x12)\n\x07offered\x18\x02 \x01(\x0b2\x18.verrater.v1.ActionCardsB\x0c\n\n_set_aside"U\n\x10ActionCardPicked\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12*\n\x04card\x18\x02 \x01(\x0e2\x17.verrater.v1.ActionCardH\x00\x88\x01\x01B\x07\n\x05_card"+\n\x0cSupplyPlayed\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05cards\x18\x02 \x03(\x05";\n\x13ActionCardsRevealed\x12$\n\x05picks\x18\x01 \x03(\x0b2\x15.verrater.v1.SeatPick"E\n\x12AllegianceSwitched\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12!\n\x05house\x18\x02 \x01(\x0e2\x12.verrater.v1.House"u\n\x10ConflictResolved\x12\x16\n\x0eeagle_strength\x18\x01 \x01(\x05\x12\x15\n\rrose_strength\x18\x02 \x01(\x05\x12\'\n\x06winner\x18\x03 \x01(\x0e2\x12.verrater.v1.HouseH\x00\x88\x01\x01B\t\n\x07_winner"W\n\rPointsAwarded\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0e\n\x06points\x18\x02 \x01(\x05\x12(\n\x06reason\x18\x03 \x01(\x0e2\x18.verrater.v1.ScoreReason"G\n\x10LandscapeFlipped\x12\x10\n\x08position\x18\x01 \x01(\x05\x12!\n\x05house\x18\x02 \x01(\x0e2\x12.verrater.v1.House"Y\n\x0eBuildingPlaced\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x10\n\x08position\x18\x02 \x01(\x05\x12\'\n\x04side\x18\x03 \x01(\x0e2\x19.verrater.v1.BuildingSide"Z\n\x0fBuildingFlipped\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x10\n\x08position\x18\x02 \x01(\x05\x12\'\n\x04side\x18\x03 \x01(\x0e2\x19.verrater.v1.BuildingSide"k\n\rBuildingMoved\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\x0e\n\x06origin\x18\x02 \x01(\x05\x12\x13\n\x0bdestination\x18\x03 \x01(\x05\x12\'\n\x04side\x18\x04 \x01(\x0e2\x19.verrater.v1.BuildingSide"\x1b\n\x0bBuildPassed\x12\x0c\n\x04seat\x18\x01 \x01(\x05" \n\x0fSupplyDiscarded\x12\r\n\x05cards\x18\x01 \x03(\x05"N\n\x15DiscardPileReshuffled\x12\x0c\n\x04size\x18\x01 \x01(\x05\x12\'\n\x05order\x18\x02 \x01(\x0b2\x18.verrater.v1.SupplyCards"{\n\nCardsDrawn\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05count\x18\x02 \x01(\x05\x12\'\n\x05cards\x18\x03 \x01(\x0b2\x18.verrater.v1.SupplyCards\x12\'\n\x06reason\x18\x04 \x01(\x0e2\x17.verrater.v1.DrawReason"-\n\x0eCardsDiscarded\x12\x0c\n\x04seat\x18\x01 \x01(\x05\x12\r\n\x05cards\x18\x02 \x03(\x05"6\n\nRoundEnded\x12\r\n\x05round\x18\x01 \x01(\x05\x12\x19\n\x11next_start_player\x18\x02 \x01(\x05"K\n\tGameEnded\x12\x10\n\x08final_vp\x18\x01 \x03(\x05\x12\x0f\n\x07winners\x18\x02 \x03(\x05\x12\x0c\n\x04seed\x18\x03 \x01(\x0c\x12\r\n\x05early\x18\x04 \x01(\x08"\xcd\x0c\n\tGameEvent\x120\n\x0cgame_created\x18\x01 \x01(\x0b2\x18.verrater.v1.GameCreatedH\x00\x12=\n\x13start_player_chosen\x18\x02 \x01(\x0b2\x1e.verrater.v1.StartPlayerChosenH\x00\x121\n\rring_laid_out\x18\x03 \x01(\x0b2\x18.verrater.v1.RingLaidOutH\x00\x120\n\x0csupply_dealt\x18\x04 \x01(\x0b2\x18.verrater.v1.SupplyDealtH\x00\x12>\n\x13strategist_assigned\x18\x05 \x01(\x0b2\x1f.verrater.v1.StrategistAssignedH\x00\x12.\n\x0bphase_began\x18\x06 \x01(\x0b2\x17.verrater.v1.PhaseBeganH\x00\x12=\n\x13first_estate_placed\x18\x07 \x01(\x0b2\x1e.verrater.v1.FirstEstatePlacedH\x00\x122\n\rround_started\x18\x08 \x01(\x0b2\x19.verrater.v1.RoundStartedH\x00\x126\n\x0fconflict_chosen\x18\t \x01(\x0b2\x1b.verrater.v1.ConflictChosenH\x00\x12;\n\x12action_cards_dealt\x18\n \x01(\x0b2\x1d.verrater.v1.ActionCardsDealtH\x00\x12;\n\x12action_card_picked\x18\x0b \x01(\x0b2\x1d.verrater.v1.ActionCardPickedH\x00\x122\n\rsupply_played\x18\x0c \x01(\x0b2\x19.verrater.v1.SupplyPlayedH\x00\x12A\n\x15action_cards_revealed\x18\r \x01(\x0b2 .verrater.v1.ActionCardsRevealedH\x00\x12>\n\x13allegiance_switched\x18\x0e \x01(\x0b2\x1f.verrater.v1.AllegianceSwitchedH\x00\x12:\n\x11conflict_resolved\x18\x0f \x01(\x0b2\x1d.verrater.v1.ConflictResolvedH\x00\x124\n\x0epoints_awarded\x18\x10 \x01(\x0b2\x1a.verrater.v1.PointsAwardedH\x00\x12:\n\x11landscape_flipped\x18\x11 \x01(\x0b2\x1d.verrater.v1.LandscapeFlippedH\x00\x126\n\x0fbuilding_placed\x18\x12 \x01(\x0b2\x1b.verrater.v1.BuildingPlacedH\x00\x128\n\x10building_flipped\x18\x13 \x01(\x0b2\x1c.verrater.v1.BuildingFlippedH\x00\x124\n\x0ebuilding_moved\x18\x14 \x01(\x0b2\x1a.verrater.v1.BuildingMovedH\x00\x120\n\x0cbuild_passed\x18\x15 \x01(\x0b2\x18.verrater.v1.BuildPassedH\x00\x128\n\x10supply_discarded\x18\x16 \x01(\x0b2\x1c.verrater.v1.SupplyDiscardedH\x00\x12E\n\x17discard_pile_reshuffled\x18\x17 \x01(\x0b2".verrater.v1.DiscardPileReshuffledH\x00\x12.\n\x0bcards_drawn\x18\x18 \x01(\x0b2\x17.verrater.v1.CardsDrawnH\x00\x126\n\x0fcards_discarded\x18\x19 \x01(\x0b2\x1b.verrater.v1.CardsDiscardedH\x00\x12.\n\x0bround_ended\x18\x1a \x01(\x0b2\x17.verrater.v1.RoundEndedH\x00\x12,\n\ngame_ended\x18\x1b \x01(\x0b2\x16.verrater.v1.GameEndedH\x00\x12\x12\n\ncommand_id\x18d \x01(\t\x12\x1a\n\x12turn_timer_expired\x18e \x01(\x08\x12\x16\n\x0erecorded_at_ms\x18f \x01(\x03B\x07\n\x05event*\xbb\x01\n\x05Phase\x12\x15\n\x11PHASE_UNSPECIFIED\x10\x00\x12\x0f\n\x0bPHASE_SETUP\x10\x01\x12\x17\n\x13PHASE_FIRST_ESTATES\x10\x02\x12\x12\n\x0ePHASE_CONFLICT\x10\x03\x12\x0f\n\x0bPHASE_DRAFT\x10\x04\x12\x10\n\x0cPHASE_SUPPLY\x10\x05\x12\x0f\n\x0bPHASE_BUILD\x10\x06\x12\x14\n\x10PHASE_HAND_LIMIT\x10\x07\x12\x13\n\x0fPHASE_GAME_OVER\x10\x08*\x9d\x01\n\x0bScoreReason\x12\x1c\n\x18SCORE_REASON_UNSPECIFIED\x10\x00\x12\x19\n\x15SCORE_REASON_CONQUEST\x10\x01\x12\x18\n\x14SCORE_REASON_TRAITOR\x10\x02\x12\x1b\n\x17SCORE_REASON_STRATEGIST\x10\x03\x12\x1e\n\x1aSCORE_REASON_TRADING_POSTS\x10\x04*u\n\nDrawReason\x12\x1b\n\x17DRAW_REASON_UNSPECIFIED\x10\x00\x12\x16\n\x12DRAW_REASON_FARMER\x10\x01\x12\x17\n\x13DRAW_REASON_ESTATES\x10\x02\x12\x19\n\x15DRAW_REASON_DIPLOMAT2\x10\x03*y\n\x08BotLevel\x12\x19\n\x15BOT_LEVEL_UNSPECIFIED\x10\x00\x12\x12\n\x0eBOT_LEVEL_EASY\x10\x01\x12\x14\n\x10BOT_LEVEL_NORMAL\x10\x02\x12\x12\n\x0eBOT_LEVEL_HARD\x10\x03\x12\x14\n\x10BOT_LEVEL_EXPERT\x10\x04b\x06proto3')
_globals = globals()
_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)
_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, 'verrater.v1.events_pb2', _globals)
if not _descriptor._USE_C_DESCRIPTORS:
    DESCRIPTOR._loaded_options = None
    _globals['_PHASE']._serialized_start = 4285
    _globals['_PHASE']._serialized_end = 4472
    _globals['_SCOREREASON']._serialized_start = 4475
    _globals['_SCOREREASON']._serialized_end = 4632
    _globals['_DRAWREASON']._serialized_start = 4634
    _globals['_DRAWREASON']._serialized_end = 4751
    _globals['_BOTLEVEL']._serialized_start = 4753
    _globals['_BOTLEVEL']._serialized_end = 4874
    _globals['_RINGLANDSCAPE']._serialized_start = 93
    _globals['_RINGLANDSCAPE']._serialized_end = 185
    _globals['_RING']._serialized_start = 187
    _globals['_RING']._serialized_end = 241
    _globals['_EXPLICITSETUP']._serialized_start = 244
    _globals['_EXPLICITSETUP']._serialized_end = 421
    _globals['_GAMECREATED']._serialized_start = 424
    _globals['_GAMECREATED']._serialized_end = 654
    _globals['_SEATASSIGNMENT']._serialized_start = 656
    _globals['_SEATASSIGNMENT']._serialized_end = 747
    _globals['_STARTPLAYERCHOSEN']._serialized_start = 749
    _globals['_STARTPLAYERCHOSEN']._serialized_end = 823
    _globals['_RINGLAIDOUT']._serialized_start = 825
    _globals['_RINGLAIDOUT']._serialized_end = 886
    _globals['_SUPPLYDEALT']._serialized_start = 888
    _globals['_SUPPLYDEALT']._serialized_end = 1001
    _globals['_STRATEGISTASSIGNED']._serialized_start = 1003
    _globals['_STRATEGISTASSIGNED']._serialized_end = 1037
    _globals['_PHASEBEGAN']._serialized_start = 1039
    _globals['_PHASEBEGAN']._serialized_end = 1086
    _globals['_FIRSTESTATEPLACED']._serialized_start = 1088
    _globals['_FIRSTESTATEPLACED']._serialized_end = 1139
    _globals['_ROUNDSTARTED']._serialized_start = 1141
    _globals['_ROUNDSTARTED']._serialized_end = 1192
    _globals['_CONFLICTCHOSEN']._serialized_start = 1194
    _globals['_CONFLICTCHOSEN']._serialized_end = 1255
    _globals['_ACTIONCARDSDEALT']._serialized_start = 1257
    _globals['_ACTIONCARDSDEALT']._serialized_end = 1381
    _globals['_ACTIONCARDPICKED']._serialized_start = 1383
    _globals['_ACTIONCARDPICKED']._serialized_end = 1468
    _globals['_SUPPLYPLAYED']._serialized_start = 1470
    _globals['_SUPPLYPLAYED']._serialized_end = 1513
    _globals['_ACTIONCARDSREVEALED']._serialized_start = 1515
    _globals['_ACTIONCARDSREVEALED']._serialized_end = 1574
    _globals['_ALLEGIANCESWITCHED']._serialized_start = 1576
    _globals['_ALLEGIANCESWITCHED']._serialized_end = 1645
    _globals['_CONFLICTRESOLVED']._serialized_start = 1647
    _globals['_CONFLICTRESOLVED']._serialized_end = 1764
    _globals['_POINTSAWARDED']._serialized_start = 1766
    _globals['_POINTSAWARDED']._serialized_end = 1853
    _globals['_LANDSCAPEFLIPPED']._serialized_start = 1855
    _globals['_LANDSCAPEFLIPPED']._serialized_end = 1926
    _globals['_BUILDINGPLACED']._serialized_start = 1928
    _globals['_BUILDINGPLACED']._serialized_end = 2017
    _globals['_BUILDINGFLIPPED']._serialized_start = 2019
    _globals['_BUILDINGFLIPPED']._serialized_end = 2109
    _globals['_BUILDINGMOVED']._serialized_start = 2111
    _globals['_BUILDINGMOVED']._serialized_end = 2218
    _globals['_BUILDPASSED']._serialized_start = 2220
    _globals['_BUILDPASSED']._serialized_end = 2247
    _globals['_SUPPLYDISCARDED']._serialized_start = 2249
    _globals['_SUPPLYDISCARDED']._serialized_end = 2281
    _globals['_DISCARDPILERESHUFFLED']._serialized_start = 2283
    _globals['_DISCARDPILERESHUFFLED']._serialized_end = 2361
    _globals['_CARDSDRAWN']._serialized_start = 2363
    _globals['_CARDSDRAWN']._serialized_end = 2486
    _globals['_CARDSDISCARDED']._serialized_start = 2488
    _globals['_CARDSDISCARDED']._serialized_end = 2533
    _globals['_ROUNDENDED']._serialized_start = 2535
    _globals['_ROUNDENDED']._serialized_end = 2589
    _globals['_GAMEENDED']._serialized_start = 2591
    _globals['_GAMEENDED']._serialized_end = 2666
    _globals['_GAMEEVENT']._serialized_start = 2669
    _globals['_GAMEEVENT']._serialized_end = 4282