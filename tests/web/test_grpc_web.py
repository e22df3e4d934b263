"""gRPC-Web through the door, without a browser: plain HTTP gets what native gRPC gets.

Every unary method of every service is called both ways with the same request and token, and
must come back with the same status, message bytes and ErrorInfo reasons. Where the service
itself answers a second copy differently (a fresh token, a suggestion), the request ids make
the second copy a retry (the lobby's `request_id`, the game's `command_id`), or the comparison
leaves out what the service makes anew and says so. Watch's server stream is compared too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import grpc
from google.protobuf.message import Message

from services.api.verrater.v1 import (
    ai_pb2,
    chat_pb2,
    commands_pb2,
    events_pb2,
    game_pb2,
    lobby_pb2,
    stats_pb2,
)
from services.web import METHODS, UNARY
from tests.web.harness import Answer, DoorStack, door_stack

LOBBY = "/verrater.v1.LobbyService/"
GAME = "/verrater.v1.GameService/"
AI = "/verrater.v1.AiService/"
STATS = "/verrater.v1.StatsService/"
CHAT = "/verrater.v1.ChatService/"
UNARY_METHODS = frozenset(path for path, kind in METHODS.items() if kind == UNARY)
#: Requests that are not any method's message: a field 1 of wire type 7, which does not exist.
GARBAGE = b"\x0f\xff\xff"


def identical(native: Answer, web: Answer) -> None:
    assert web == native


def same_session(response_type: type[Message]) -> Callable[[Answer, Answer], None]:
    """Equal but for the token and its expiry, which every sign-in mints anew."""

    def compare(native: Answer, web: Answer) -> None:
        assert (web.code, web.reasons) == (native.code, native.reasons) == (grpc.StatusCode.OK, ())
        sessions = []
        for answer in (native, web):
            message = response_type.FromString(answer.messages[0])
            session = message.session  # type: ignore[attr-defined]
            assert session.token and session.expires_at
            session.token, session.expires_at = "", 0
            sessions.append(message)
        assert sessions[0] == sessions[1]

    return compare


def same_message(native: Answer, web: Answer) -> None:
    """Two chat messages sent alike: equal but for where each stands and when it was sent."""
    assert (web.code, web.reasons) == (native.code, native.reasons) == (grpc.StatusCode.OK, ())
    sent = [chat_pb2.SendChatMessageResponse.FromString(a.messages[0]) for a in (native, web)]
    assert sent[0].message.cursor < sent[1].message.cursor
    for each in sent:
        each.message.ClearField("cursor")
        each.message.ClearField("sent_at")
    assert sent[0] == sent[1]


class Both:
    """Calls one method both ways and remembers which methods were compared."""

    def __init__(self, stack: DoorStack) -> None:
        self.stack = stack
        self.checked: set[str] = set()

    async def __call__(
        self,
        path: str,
        request: Message,
        token: str | None = None,
        compare: Callable[[Answer, Answer], None] = identical,
        *,
        web_first: bool = False,
    ) -> Answer:
        data = request.SerializeToString()
        if web_first:
            web = await self.stack.web(path, data, token)
            native = await self.stack.native(path, data, token)
        else:
            native = await self.stack.native(path, data, token)
            web = await self.stack.web(path, data, token)
        compare(native, web)
        self.checked.add(path)
        return native


def ok(answer: Answer, response_type: type[Message]) -> Message:
    assert answer.code == grpc.StatusCode.OK, answer
    return response_type.FromString(answer.messages[0])


async def my_turn(
    stack: DoorStack, game_id: str, seat_token: str, after: int
) -> game_pb2.GameUpdate:
    """The first TURNS update after `after`: the game rests until this seat decides."""
    request = game_pb2.WatchRequest(
        game_id=game_id, from_version=after, mode=game_pb2.WATCH_MODE_TURNS
    )
    call = stack.channel.unary_stream(GAME + "Watch")(
        request.SerializeToString(), metadata=(("authorization", f"Bearer {seat_token}"),)
    )
    try:
        async for data in call:
            return game_pb2.WatchResponse.FromString(data).update
    finally:
        call.cancel()
    raise AssertionError("the stream ended before the seat's turn")


async def bots_only_game(both: Both, token: str) -> str:
    """A finished game of three bots, organised by the caller (host_sits_out)."""
    table = ok(
        await both(
            LOBBY + "CreateTable",
            lobby_pb2.CreateTableRequest(size=3, host_sits_out=True, request_id="bots-table"),
            token,
        ),
        lobby_pb2.CreateTableResponse,
    ).table  # type: ignore[attr-defined]
    for number in range(3):
        await both(
            LOBBY + "AddBot",
            lobby_pb2.AddBotRequest(
                table_id=table.table_id,
                level=events_pb2.BOT_LEVEL_EASY,
                request_id=f"bots-{number}",
            ),
            token,
            web_first=number == 1,
        )
    started = ok(
        await both(
            LOBBY + "StartGame",
            lobby_pb2.StartGameRequest(table_id=table.table_id, request_id="bots-start"),
            token,
        ),
        lobby_pb2.StartGameResponse,
    ).table  # type: ignore[attr-defined]
    game_id: str = started.game_id
    watch = game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_EVENTS)
    await both.stack.native(GAME + "Watch", watch.SerializeToString(), token, stream=True)
    return game_id


async def test_every_unary_method_answers_through_the_door_as_natively(tmp_path: Path) -> None:
    async with door_stack(tmp_path) as stack:
        both = Both(stack)
        # Sessions.
        await both(LOBBY + "RegisterGuest", lobby_pb2.RegisterGuestRequest(display_name="x"))
        host = ok(
            await both(
                LOBBY + "RegisterGuest",
                lobby_pb2.RegisterGuestRequest(display_name="Webster", request_id="reg-host"),
            ),
            lobby_pb2.RegisterGuestResponse,
        ).session  # type: ignore[attr-defined]
        token = host.token
        await both(
            LOBBY + "SignIn",
            lobby_pb2.SignInRequest(player_id=host.player_id, credential="wrong"),
        )
        await both(
            LOBBY + "SignIn",
            lobby_pb2.SignInRequest(player_id=host.player_id, credential=host.credential),
            compare=same_session(lobby_pb2.SignInResponse),
        )
        await both(
            LOBBY + "RefreshToken",
            lobby_pb2.RefreshTokenRequest(),
            token,
            same_session(lobby_pb2.RefreshTokenResponse),
        )
        await both(
            LOBBY + "RotateCredential",
            lobby_pb2.RotateCredentialRequest(request_id="rotate-1"),
            token,
            web_first=True,
        )
        # A table of the host and three bots, and its game.
        table = ok(
            await both(
                LOBBY + "CreateTable",
                lobby_pb2.CreateTableRequest(size=4, request_id="table-1"),
                token,
            ),
            lobby_pb2.CreateTableResponse,
        ).table  # type: ignore[attr-defined]
        for number in range(3):
            await both(
                LOBBY + "AddBot",
                lobby_pb2.AddBotRequest(
                    table_id=table.table_id,
                    level=events_pb2.BOT_LEVEL_EASY,
                    request_id=f"bot-{number}",
                ),
                token,
                web_first=number == 2,
            )
        await both(
            LOBBY + "GetSeatToken", lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), token
        )
        await both(LOBBY + "GetTable", lobby_pb2.GetTableRequest(table_id=table.table_id), token)
        await both(LOBBY + "ListTables", lobby_pb2.ListTablesRequest(), token)
        started = ok(
            await both(
                LOBBY + "StartGame",
                lobby_pb2.StartGameRequest(table_id=table.table_id, request_id="start-1"),
                token,
            ),
            lobby_pb2.StartGameResponse,
        ).table  # type: ignore[attr-defined]
        game_id = started.game_id
        seat = ok(
            await stack.native(
                LOBBY + "GetSeatToken",
                lobby_pb2.GetSeatTokenRequest(table_id=table.table_id).SerializeToString(),
                token,
            ),
            lobby_pb2.GetSeatTokenResponse,
        )

        def same_seat(native: Answer, web: Answer) -> None:
            answers = [ok(a, lobby_pb2.GetSeatTokenResponse) for a in (native, web)]
            for answer in answers:
                answer.token, answer.expires_at = "", 0  # type: ignore[attr-defined]
            assert answers[0] == answers[1]

        await both(
            LOBBY + "GetSeatToken",
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id),
            token,
            same_seat,
        )
        seat_token = seat.token  # type: ignore[attr-defined]
        # The game, read and played while it rests on the seat's turn.
        turn = await my_turn(stack, game_id, seat_token, 0)
        view = ok(
            await both(GAME + "GetView", game_pb2.GetViewRequest(game_id=game_id), seat_token),
            game_pb2.GetViewResponse,
        ).view  # type: ignore[attr-defined]
        assert view.version == turn.version and view.legal
        await both(LOBBY + "ListMyGames", lobby_pb2.ListMyGamesRequest(), token)

        def same_suggestion_version(native: Answer, web: Answer) -> None:
            answers = [ok(a, ai_pb2.SuggestMoveResponse) for a in (native, web)]
            assert answers[0].version == answers[1].version == view.version  # type: ignore[attr-defined]
            for answer in answers:
                assert answer.command in view.legal  # type: ignore[attr-defined]

        await both(
            AI + "SuggestMove",
            ai_pb2.SuggestMoveRequest(game_id=game_id, level=events_pb2.BOT_LEVEL_EASY),
            seat_token,
            same_suggestion_version,
        )
        await both(
            GAME + "SubmitCommand",
            game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=view.version + 5,
                command_id="too-new",
                command=view.legal[0],
            ),
            seat_token,
        )
        await both(
            GAME + "SubmitCommand",
            game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=view.version,
                command_id="first-move",
                command=view.legal[0],
            ),
            seat_token,
        )
        first_move = game_pb2.SubmitCommandRequest(
            game_id=game_id,
            expected_version=view.version,
            command_id="first-move",
            command=view.legal[0],
        )
        await both(  # the move again (answered from the log), and one with a forged token
            GAME + "SubmitCommands",
            game_pb2.SubmitCommandsRequest(
                commands=[
                    game_pb2.SeatCommand(token=seat_token, command=first_move),
                    game_pb2.SeatCommand(token="forged", command=first_move),
                ]
            ),
            seat_token,
        )
        await both(GAME + "GetLog", game_pb2.GetLogRequest(game_id=game_id), seat_token)
        await both(GAME + "GetRuleset", game_pb2.GetRulesetRequest(players=4))
        await both(GAME + "GetRuleset", game_pb2.GetRulesetRequest(game_id=game_id))
        await both(GAME + "CreateGame", game_pb2.CreateGameRequest(players=4), token)
        # Joining, leaving and quick match need a second player.
        other = ok(
            await both(
                LOBBY + "RegisterGuest",
                lobby_pb2.RegisterGuestRequest(display_name="Visitor", request_id="reg-other"),
                web_first=True,
            ),
            lobby_pb2.RegisterGuestResponse,
        ).session.token  # type: ignore[attr-defined]
        waiting = ok(
            await both(
                LOBBY + "CreateTable",
                lobby_pb2.CreateTableRequest(size=3, private=True, request_id="table-2"),
                token,
            ),
            lobby_pb2.CreateTableResponse,
        ).table  # type: ignore[attr-defined]
        await both(
            LOBBY + "JoinTable",
            lobby_pb2.JoinTableRequest(table_id=waiting.table_id, invite_code="nope"),
            other,
        )
        await both(
            LOBBY + "JoinTable",
            lobby_pb2.JoinTableRequest(
                table_id=waiting.table_id, invite_code=waiting.invite_code, request_id="join-1"
            ),
            other,
        )
        await both(
            LOBBY + "LeaveTable",
            lobby_pb2.LeaveTableRequest(table_id=waiting.table_id, request_id="leave-1"),
            other,
            web_first=True,
        )
        await both(
            LOBBY + "QuickMatch", lobby_pb2.QuickMatchRequest(size=3, request_id="quick-1"), other
        )
        # Table chat at the host's table: a message, a report of it, a mute.
        said = ok(
            await both(
                CHAT + "SendChatMessage",
                chat_pb2.SendChatMessageRequest(table_id=table.table_id, text="hello"),
                token,
                same_message,
            ),
            chat_pb2.SendChatMessageResponse,
        ).message  # type: ignore[attr-defined]
        await both(
            CHAT + "ReportChatMessage",
            chat_pb2.ReportChatMessageRequest(table_id=table.table_id, cursor=said.cursor),
            other,
        )
        await both(
            CHAT + "MuteChatPlayer",
            chat_pb2.MuteChatPlayerRequest(player_id=host.player_id, muted=True),
            other,
        )
        # A finished game: its log, and the statistics.
        finished = await bots_only_game(both, token)
        await both(GAME + "GetLog", game_pb2.GetLogRequest(game_id=finished), token)
        await both(STATS + "ListFinishedGames", stats_pb2.ListFinishedGamesRequest(), token)
        await both(STATS + "GetRating", stats_pb2.GetRatingRequest(), token)
        await both(STATS + "Leaderboard", stats_pb2.LeaderboardRequest(), token)
        assert both.checked == UNARY_METHODS


async def test_refusals_of_the_edge_are_the_same_for_every_unary_method(tmp_path: Path) -> None:
    """No token, a forged token, bytes that are no message: the edge answers, not the door."""
    async with door_stack(tmp_path) as stack:
        for path in sorted(UNARY_METHODS):
            for request, token in ((b"", None), (b"", "forged.token"), (GARBAGE, None)):
                native = await stack.native(path, request, token)
                web = await stack.web(path, request, token)
                assert web == native, path
                assert native.code != grpc.StatusCode.OK or path.endswith(
                    ("GetRuleset", "RegisterGuest", "SignIn")
                )


async def test_watch_streams_through_the_door_as_natively(tmp_path: Path) -> None:
    async with door_stack(tmp_path) as stack:
        token = ok(
            await stack.native(
                LOBBY + "RegisterGuest",
                lobby_pb2.RegisterGuestRequest(display_name="Watcher").SerializeToString(),
            ),
            lobby_pb2.RegisterGuestResponse,
        ).session.token  # type: ignore[attr-defined]
        game_id = await bots_only_game(Both(stack), token)
        for mode in (game_pb2.WATCH_MODE_EVENTS, game_pb2.WATCH_MODE_VIEWS):
            request = game_pb2.WatchRequest(game_id=game_id, mode=mode).SerializeToString()
            native = await stack.native(GAME + "Watch", request, token, stream=True)
            web = await stack.web(GAME + "Watch", request, token)
            assert native.code == grpc.StatusCode.OK
            assert len(native.messages) >= (1 if mode == game_pb2.WATCH_MODE_VIEWS else 100)
            assert web == native
        turns = game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_TURNS)
        refused = await stack.web(GAME + "Watch", turns.SerializeToString(), token)
        assert refused == await stack.native(
            GAME + "Watch", turns.SerializeToString(), token, stream=True
        )
        assert refused.reasons == ("SPECTATOR_HAS_NO_TURNS",)


async def test_a_live_watch_sends_each_turn_as_it_comes(tmp_path: Path) -> None:
    """A TURNS stream through the door delivers the seat's turn while the call stays open."""
    async with door_stack(tmp_path) as stack:
        both = Both(stack)
        session = ok(
            await stack.native(
                LOBBY + "RegisterGuest",
                lobby_pb2.RegisterGuestRequest(display_name="Player").SerializeToString(),
            ),
            lobby_pb2.RegisterGuestResponse,
        ).session  # type: ignore[attr-defined]
        create = lobby_pb2.CreateTableRequest(size=3)
        table = ok(
            await stack.native(LOBBY + "CreateTable", create.SerializeToString(), session.token),
            lobby_pb2.CreateTableResponse,
        ).table  # type: ignore[attr-defined]
        for _ in range(2):
            bot = lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY)
            await stack.native(LOBBY + "AddBot", bot.SerializeToString(), session.token)
        start = lobby_pb2.StartGameRequest(table_id=table.table_id)
        game_id = ok(
            await stack.native(LOBBY + "StartGame", start.SerializeToString(), session.token),
            lobby_pb2.StartGameResponse,
        ).table.game_id  # type: ignore[attr-defined]
        seat = ok(
            await stack.native(
                LOBBY + "GetSeatToken",
                lobby_pb2.GetSeatTokenRequest(table_id=table.table_id).SerializeToString(),
                session.token,
            ),
            lobby_pb2.GetSeatTokenResponse,
        ).token  # type: ignore[attr-defined]
        del both
        request = game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_TURNS)
        async with stack.http.post(
            stack.url + GAME + "Watch",
            data=b"\0"
            + len(request.SerializeToString()).to_bytes(4, "big")
            + request.SerializeToString(),
            headers={
                "Content-Type": "application/grpc-web+proto",
                "Authorization": f"Bearer {seat}",
            },
        ) as reply:
            header = await asyncio.wait_for(reply.content.readexactly(5), 30)
            assert header[0] == 0
            update = game_pb2.WatchResponse.FromString(
                await reply.content.readexactly(int.from_bytes(header[1:], "big"))
            ).update
            assert update.view.seat in update.view.turn.seats and update.view.legal
            legal: commands_pb2.Command = update.view.legal[0]
            submit = game_pb2.SubmitCommandRequest(
                game_id=game_id,
                expected_version=update.version,
                command_id="live-1",
                command=legal,
                version_only=True,
            )
            applied = await stack.web(GAME + "SubmitCommand", submit.SerializeToString(), seat)
            version = game_pb2.SubmitCommandResponse.FromString(applied.messages[0]).version
            header = await asyncio.wait_for(reply.content.readexactly(5), 30)
            later = game_pb2.WatchResponse.FromString(
                await reply.content.readexactly(int.from_bytes(header[1:], "big"))
            ).update
            assert later.version > version
