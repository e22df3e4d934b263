"""Table chat over real gRPC on loopback: who writes and reads which channel, the text as
stored, the limits, mutes, reports and resuming from a cursor (services/chat)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc

from services.api.verrater.v1 import chat_pb2, lobby_pb2
from services.chat import MAX_CHARACTERS, OPEN_AFTER_GAME_SECONDS, PER_PLAYER, PER_TABLE
from services.rpc import Role, TokenIssuer, bearer
from tests.chat.harness import PATIENCE_S, SECRET, ChatStack, Player, running
from tests.lobby.harness import refused

TABLE = chat_pb2.CHAT_CHANNEL_TABLE
SPECTATORS = chat_pb2.CHAT_CHANNEL_SPECTATORS
C = grpc.StatusCode


async def _three(stack: ChatStack) -> tuple[Player, Player, Player]:
    return (
        await stack.player("Ada"),
        await stack.player("Bea"),
        await stack.player("Cem"),
    )


async def test_a_seated_players_message_reaches_the_table_and_its_spectators(
    stack: ChatStack,
) -> None:
    ada, bea, cem = await _three(stack)
    fan = await stack.player("Fan")
    table_id = await stack.table(ada, bea, cem)
    async with stack.watching(bea, table_id) as seated, stack.watching(fan, table_id) as stands:
        sent = await stack.say(ada, table_id, "good luck, all")
        await seated.got("good luck, all")
        await stands.got("good luck, all")
    (message,) = seated.messages
    assert message == sent == stands.messages[0]
    assert (message.sender_id, message.display_name, message.channel) == (
        ada.player_id,
        "Ada",
        TABLE,
    )
    assert message.table_id == table_id and message.cursor
    assert abs(message.sent_at.ToMilliseconds() - stack.clock.now * 1000) < 1000


async def test_the_text_is_normalised_before_it_is_stored(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    # A decomposed é, a bell, a line break, and a right-to-left override around "evil".
    sent = await stack.say(ada, table_id, "  Cafe\u0301\x07 is\nopen \u202eevil\u202c  ")
    assert sent.text == "Caf\u00e9 is open evil"
    assert len(sent.text) == 17
    longest = await stack.say(ada, table_id, "e\u0301" * MAX_CHARACTERS)  # 280 once composed
    assert longest.text == "\u00e9" * MAX_CHARACTERS


async def test_empty_and_too_long_text_is_refused(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    await refused(C.INVALID_ARGUMENT, "CHAT_TEXT_EMPTY", stack.say(ada, table_id, " \x00\u202e\t "))
    info = await refused(
        C.INVALID_ARGUMENT, "CHAT_TEXT_TOO_LONG", stack.say(ada, table_id, "x" * 281)
    )
    assert info.metadata["limit"] == "280"


async def test_the_spectators_channel_is_invisible_to_the_seated_while_the_game_runs(
    stack: ChatStack,
) -> None:
    ada, bea, cem = await _three(stack)
    fan, critic = await stack.player("Fan"), await stack.player("Critic")
    table_id = await stack.table(ada, bea, cem)
    async with (
        stack.watching(ada, table_id) as seated,
        stack.watching(critic, table_id) as stands,
    ):
        coached = await stack.say(fan, table_id, "Ada holds two traitors")
        assert coached.channel == SPECTATORS  # a spectator's own channel by default
        await stack.say(bea, table_id, "my move")
        await seated.got("my move")  # after the spectators' message: it was passed over
        await stands.got("my move")
    assert seated.texts == ["my move"]
    assert stands.texts == ["Ada holds two traitors", "my move"]
    await refused(
        C.PERMISSION_DENIED, "CHAT_NOT_ALLOWED", stack.say(ada, table_id, "hi", SPECTATORS)
    )
    await refused(C.PERMISSION_DENIED, "CHAT_NOT_ALLOWED", stack.say(fan, table_id, "hi", TABLE))
    # Nor can the seated fetch it by its cursor.
    await refused(
        C.NOT_FOUND,
        "CHAT_MESSAGE_NOT_FOUND",
        stack.chat.ReportChatMessage(
            chat_pb2.ReportChatMessageRequest(table_id=table_id, cursor=coached.cursor),
            metadata=ada.metadata,
        ),
    )


async def test_once_the_game_is_over_the_seated_read_the_stands_until_the_chat_closes(
    stack: ChatStack,
) -> None:
    ada, bea, cem = await _three(stack)
    fan = await stack.player("Fan")
    table_id = await stack.table(ada, bea, cem)
    await stack.say(fan, table_id, "during the game")
    await stack.store.game_ended(table_id, int(stack.clock.now * 1000))
    async with stack.watching(ada, table_id, backlog=10) as seated:
        await stack.say(fan, table_id, "well played")
        await seated.got("well played")
    assert seated.texts == ["during the game", "well played"]
    stack.clock.now += OPEN_AFTER_GAME_SECONDS + 1
    await refused(C.FAILED_PRECONDITION, "CHAT_CLOSED", stack.say(ada, table_id, "too late"))
    await refused(C.FAILED_PRECONDITION, "CHAT_CLOSED", stack.say(fan, table_id, "too late"))


async def test_the_spectators_channel_opens_with_the_game(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    fan = await stack.player("Fan")
    table_id = await stack.table(ada, bea, cem, start=False)
    await stack.say(ada, table_id, "waiting for the host")  # the table's channel is open
    await refused(C.FAILED_PRECONDITION, "CHAT_CLOSED", stack.say(fan, table_id, "hello"))


async def test_a_watcher_resumes_from_its_cursor_with_nothing_missed_or_doubled(
    stack: ChatStack,
) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    async with stack.watching(bea, table_id) as first:
        for n in range(3):
            await stack.say(ada, table_id, f"m{n}")
        await first.got("m2")
    for n in range(3, 5):
        await stack.say(cem, table_id, f"m{n}")
    async with stack.watching(bea, table_id, cursor=first.messages[1].cursor) as resumed:
        await stack.say(ada, table_id, "m5")
        await resumed.got("m5")
    assert first.texts == ["m0", "m1", "m2"]
    assert resumed.texts == ["m2", "m3", "m4", "m5"]
    await refused(
        C.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
        stack.chat.WatchChat(
            chat_pb2.WatchChatRequest(table_id=table_id, cursor="yesterday"), metadata=bea.metadata
        ).read(),
    )


async def test_nothing_written_at_one_table_reaches_another(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    dan, eve, fay = await stack.player("Dan"), await stack.player("Eve"), await stack.player("Fay")
    one = await stack.table(ada, bea, cem)
    two = await stack.table(dan, eve, fay)
    async with stack.watching(eve, two) as other:
        await stack.say(ada, one, "secret of table one")
        await stack.say(dan, two, "table two speaking")
        await other.got("table two speaking")
    assert other.texts == ["table two speaking"]


async def test_a_seat_token_chats_at_its_own_games_table_only(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    dan, eve, fay = await stack.player("Dan"), await stack.player("Eve"), await stack.player("Fay")
    one = await stack.table(ada, bea, cem)
    two = await stack.table(dan, eve, fay)
    seat = await stack.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=two), metadata=dan.metadata
    )
    sent = await stack.say(bearer(seat.token), two, "from my seat")
    assert (sent.sender_id, sent.channel) == (dan.player_id, TABLE)
    await refused(
        C.PERMISSION_DENIED, "PLAYER_TOKEN_REQUIRED", stack.say(bearer(seat.token), one, "hi")
    )


async def test_bots_do_not_chat(stack: ChatStack) -> None:
    ada, bea = await stack.player("Ada"), await stack.player("Bea")
    created = await stack.lobby.CreateTable(
        lobby_pb2.CreateTableRequest(size=3), metadata=ada.metadata
    )
    table_id = created.table.table_id
    await stack.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id), metadata=bea.metadata
    )
    added = await stack.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id), metadata=ada.metadata
    )
    (bot,) = [seat.player_id for seat in added.table.seats if seat.bot_level]
    issuer = TokenIssuer(SECRET)
    for token in (issuer.mint("ai", role=Role.SERVICE), issuer.mint(bot)):
        await refused(
            C.PERMISSION_DENIED, "BOTS_DO_NOT_CHAT", stack.say(bearer(token), table_id, "beep")
        )


async def test_a_player_sending_too_fast_is_told_when_to_retry(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    for n in range(int(PER_PLAYER.burst)):
        await stack.say(ada, table_id, f"m{n}")
    info = await refused(C.RESOURCE_EXHAUSTED, "RATE_LIMITED", stack.say(ada, table_id, "more"))
    assert info.metadata["scope"] == "player"
    assert 0 < int(info.metadata["retry_after_ms"]) <= 1000 / PER_PLAYER.per_second + 1
    await stack.say(bea, table_id, "others still talk")
    stack.clock.now += 1 / PER_PLAYER.per_second + 0.01
    await stack.say(ada, table_id, "after the wait")


async def test_a_table_flooded_by_many_is_limited_as_a_whole(stack: ChatStack) -> None:
    people = [await stack.player(f"Player{n}") for n in range(4)]
    fans = [await stack.player(f"Fan{n}") for n in range(2)]
    table_id = await stack.table(*people)
    senders = people + fans
    sent = 0
    while sent < PER_TABLE.burst:
        await stack.say(senders[sent % len(senders)], table_id, f"m{sent}")
        sent += 1
    info = await refused(
        C.RESOURCE_EXHAUSTED, "RATE_LIMITED", stack.say(fans[1], table_id, "one too many")
    )
    assert info.metadata["scope"] == "table"
    assert int(info.metadata["retry_after_ms"]) > 0
    stack.clock.now += 1 / PER_TABLE.per_second + 0.01
    await stack.say(fans[1], table_id, "after the wait")


async def test_a_muted_player_is_silent_for_whoever_muted_them_only(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    muted = await stack.chat.MuteChatPlayer(
        chat_pb2.MuteChatPlayerRequest(player_id=bea.player_id, muted=True), metadata=ada.metadata
    )
    assert list(muted.muted_player_ids) == [bea.player_id]
    async with stack.watching(ada, table_id) as muter, stack.watching(cem, table_id) as other:
        await stack.say(bea, table_id, "spam")
        await stack.say(cem, table_id, "hello")
        await muter.got("hello")
        await other.got("hello")
    assert (muter.texts, other.texts) == (["hello"], ["spam", "hello"])
    unmuted = await stack.chat.MuteChatPlayer(
        chat_pb2.MuteChatPlayerRequest(player_id=bea.player_id, muted=False), metadata=ada.metadata
    )
    assert list(unmuted.muted_player_ids) == []
    await refused(
        C.INVALID_ARGUMENT,
        "MALFORMED_REQUEST",
        stack.chat.MuteChatPlayer(
            chat_pb2.MuteChatPlayerRequest(player_id=ada.player_id, muted=True),
            metadata=ada.metadata,
        ),
    )
    await refused(
        C.NOT_FOUND,
        "PLAYER_NOT_FOUND",
        stack.chat.MuteChatPlayer(
            chat_pb2.MuteChatPlayerRequest(player_id="nobody", muted=True), metadata=ada.metadata
        ),
    )


async def test_a_reported_message_reaches_the_operators_once(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    rude = await stack.say(bea, table_id, "something rude")
    request = chat_pb2.ReportChatMessageRequest(
        table_id=table_id, cursor=rude.cursor, note="  insults\u202e "
    )
    first = await stack.chat.ReportChatMessage(request, metadata=ada.metadata)
    again = await stack.chat.ReportChatMessage(request, metadata=ada.metadata)
    assert first.report_id == again.report_id
    (report,) = await stack.store.reports()
    assert (report.report_id, report.reporter_id, report.note) == (
        first.report_id,
        ada.player_id,
        "insults",
    )
    assert (report.message.sender_id, report.message.text) == (bea.player_id, "something rude")
    await refused(
        C.NOT_FOUND,
        "CHAT_MESSAGE_NOT_FOUND",
        stack.chat.ReportChatMessage(
            chat_pb2.ReportChatMessageRequest(table_id=table_id, cursor="1-0"),
            metadata=ada.metadata,
        ),
    )


async def test_an_unknown_table_is_not_found(stack: ChatStack) -> None:
    ada = await stack.player("Ada")
    await refused(C.NOT_FOUND, "TABLE_NOT_FOUND", stack.say(ada, "nosuchtable", "hello"))
    await refused(C.INVALID_ARGUMENT, "INVALID_ID", stack.say(ada, "no such table", "hello"))


async def test_a_spectator_who_knows_only_the_game_reads_and_writes_its_tables_chat(
    stack: ChatStack,
) -> None:
    """A link to a running game names the game, not its table: `game_id` instead of
    `table_id` reaches the same chat, with the same channels."""
    ada, bea, cem = await _three(stack)
    fan = await stack.player("Fan")
    table_id = await stack.table(ada, bea, cem)
    answer = await stack.lobby.GetTable(
        lobby_pb2.GetTableRequest(table_id=table_id), metadata=ada.metadata
    )
    game_id = answer.table.game_id
    assert game_id and game_id != table_id
    async with stack.watching(fan, "", game_id=game_id) as stands:
        await stack.say(ada, table_id, "welcome to the stands")
        cheer = await stack.say(fan, "", "go Ada!", game_id=game_id)
        await stands.got("go Ada!")
    assert stands.texts == ["welcome to the stands", "go Ada!"]
    assert (cheer.table_id, cheer.channel, cheer.sender_id) == (
        table_id,
        SPECTATORS,
        fan.player_id,
    )


async def test_a_chat_is_named_by_its_table_or_its_game_never_both(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    answer = await stack.lobby.GetTable(
        lobby_pb2.GetTableRequest(table_id=table_id), metadata=ada.metadata
    )
    both = stack.say(ada, table_id, "hello", game_id=answer.table.game_id)
    info = await refused(C.INVALID_ARGUMENT, "MALFORMED_REQUEST", both)
    assert info.metadata["field"] == "game_id"
    # A game the lobby did not start (a sandbox's) has no table and no chat.
    await refused(C.NOT_FOUND, "TABLE_NOT_FOUND", stack.say(ada, "", "hello", game_id="sandbox1"))
    await refused(C.INVALID_ARGUMENT, "INVALID_ID", stack.say(ada, "", "hi", game_id="no such"))


async def _first_message(stack: ChatStack, who: Player, table_id: str) -> None:
    call = stack.chat.WatchChat(chat_pb2.WatchChatRequest(table_id=table_id), metadata=who.metadata)
    async for _ in call:
        return


async def test_a_table_has_so_many_watchers_per_server_and_the_next_is_refused() -> None:
    async with running("memory", chat_watchers_per_table=2) as stack:
        ada, bea, cem = await _three(stack)
        table_id = await stack.table(ada, bea, cem)
        async with stack.watching(ada, table_id) as first:
            async with stack.watching(bea, table_id) as second:
                info = await refused(
                    C.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS", _first_message(stack, cem, table_id)
                )
                assert (info.metadata["scope"], info.metadata["limit"]) == ("table", "2")
                await stack.say(ada, table_id, "the two still hear")
                await first.got("the two still hear")
                await second.got("the two still hear")
            await _until(lambda: stack.store.live_followers == 1)  # one left: a place is free
            async with stack.watching(cem, table_id) as third:
                await stack.say(bea, table_id, "a third hears")
                await third.got("a third hears")
                await first.got("a third hears")


async def _until(condition: Callable[[], bool]) -> None:
    async def waited() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(waited(), PATIENCE_S)


async def test_a_message_retried_with_its_request_id_is_stored_once(stack: ChatStack) -> None:
    ada, bea, cem = await _three(stack)
    table_id = await stack.table(ada, bea, cem)
    once = chat_pb2.SendChatMessageRequest(table_id=table_id, text="once", request_id="ada-1")
    async with stack.watching(bea, table_id) as watcher:
        first = (await stack.chat.SendChatMessage(once, metadata=ada.metadata)).message
        again = (await stack.chat.SendChatMessage(once, metadata=ada.metadata)).message
        assert again == first
        await stack.say(ada, table_id, "then this")
        await watcher.got("then this")
        assert watcher.texts == ["once", "then this"]
    other = chat_pb2.SendChatMessageRequest(table_id=table_id, text="other", request_id="ada-1")
    await refused(
        C.FAILED_PRECONDITION,
        "REQUEST_ID_REUSED",
        stack.chat.SendChatMessage(other, metadata=ada.metadata),
    )
    bad = chat_pb2.SendChatMessageRequest(table_id=table_id, text="x", request_id="not an id!")
    await refused(
        C.INVALID_ARGUMENT, "INVALID_ID", stack.chat.SendChatMessage(bad, metadata=ada.metadata)
    )
