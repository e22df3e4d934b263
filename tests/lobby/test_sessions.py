"""Sessions: a credential that brings a player back after a restart, rotating it, ListMyGames,
and the limits on sign-ins and guests (per player, per network address, overall)."""

from __future__ import annotations

import random
from dataclasses import replace

import grpc
from grpc import aio

from services.api.verrater.v1 import (
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    view_pb2,
)
from services.bootstrap import start_backend
from services.config import Config
from services.eventstore import InMemoryEventStore
from services.lobby.store import InMemoryLobbyStore
from services.rpc import bearer
from tests.lobby.harness import SECRET, Metadata, Stack, register, running
from tests.lobby.harness import refused as refused_with
from tests.support.decisions import decide_at_random

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED


def from_peer(address: str, token: str | None = None) -> Metadata:
    """Metadata of a call that a trusted proxy forwards for `address`."""
    forwarded = (("x-forwarded-for", address),)
    return forwarded + bearer(token) if token is not None else forwarded


async def open_table_with_bots(
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub, host: Metadata, bots: int
) -> lobby_pb2.Table:
    table = (
        await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=bots + 1), metadata=host)
    ).table
    for _ in range(bots):
        table = (
            await lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
                metadata=host,
            )
        ).table
    return table


async def play_seat(
    game: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    token: Metadata,
    rng: random.Random,
    decisions: int | None = None,
) -> view_pb2.PlayerView:
    """Play the token's seat (bots play the others) until the game is over, or until the seat
    alone must decide once more after `decisions` decisions: the view it must decide on then."""
    view = (await game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=token)).view
    made = 0
    while view.phase != events_pb2.PHASE_GAME_OVER:
        if view.seat in view.turn.seats:
            # Stop where only this seat may act: where bots decide at the same time (discards
            # at the hand limit), the game would move on without it.
            if decisions is not None and made >= decisions and list(view.turn.seats) == [view.seat]:
                return view
            answer = await decide_at_random(game, game_id, view, token, rng)
            if answer is None:
                # A bot decided first: read the view again and decide on that, as a client does.
                view = (
                    await game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=token)
                ).view
                continue
            made += 1
            view = answer.view
            continue
        # Not our decision: the next view in which it is (or the final one).
        turns = game.Watch(
            game_pb2.WatchRequest(
                game_id=game_id, from_version=view.version, mode=game_pb2.WATCH_MODE_TURNS
            ),
            metadata=token,
        )
        async for update in turns:
            view = update.update.view
            break
        turns.cancel()
    return view


async def test_a_new_process_with_only_its_credential_gets_back_into_its_game(
    stack: Stack,
) -> None:
    first = await register(stack, "Rejoiner")
    assert len(first.credential) >= 43  # 256 random bits, shown this once
    stored = (first.player_id, first.credential)  # all the app keeps on the device
    host = bearer(first.token)
    table = await open_table_with_bots(stack.lobby, host, bots=2)
    started = (
        await stack.lobby.StartGame(
            lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host
        )
    ).table
    ticket = await stack.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
    )
    rng = random.Random(7)
    left_at = await play_seat(stack.game, started.game_id, bearer(ticket.token), rng, decisions=6)
    await stack.channel.close()  # the OS kills the app: its tokens and channel are gone

    async with aio.insecure_channel(stack.address()) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        game = game_pb2_grpc.GameServiceStub(channel)
        player_id, credential = stored
        session = (
            await lobby.SignIn(lobby_pb2.SignInRequest(player_id=player_id, credential=credential))
        ).session
        assert (session.player_id, session.display_name) == (player_id, "Rejoiner")
        assert session.credential == ""  # the app has it already
        me = bearer(session.token)
        mine = (await lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
        assert len(mine) == 1
        entry = mine[0]
        assert (entry.table_id, entry.game_id) == (table.table_id, started.game_id)
        assert entry.status == lobby_pb2.TABLE_STATUS_STARTED
        assert entry.HasField("seat") and entry.seat == ticket.seat
        assert (entry.version, entry.round) == (left_at.version, left_at.round)
        assert entry.your_turn and not entry.finished
        assert not entry.HasField("deadline")  # the table has no turn timer
        assert entry.table.game_id == started.game_id

        seat_token = await lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=entry.table_id), metadata=me
        )
        resumed = (
            await game.GetView(
                game_pb2.GetViewRequest(game_id=entry.game_id), metadata=bearer(seat_token.token)
            )
        ).view
        assert resumed.version == entry.version
        assert list(resumed.legal) == list(left_at.legal)
        final = await play_seat(game, entry.game_id, bearer(seat_token.token), rng)
        assert final.phase == events_pb2.PHASE_GAME_OVER

        over = (await lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
        assert [g.table_id for g in over] == [table.table_id]
        vps = [seat.vp for seat in final.seats]
        assert over[0].finished and not over[0].your_turn
        assert over[0].version == final.version
        assert over[0].final_vp == vps[ticket.seat]
        assert over[0].rank == 1 + sum(vp > vps[ticket.seat] for vp in vps)
        assert (over[0].rank == 1) == (ticket.seat in final.winners)
        again = (await lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
        assert list(again) == list(over)  # kept with its result, not asked for again


async def test_my_games_list_running_games_then_open_tables_and_forget_tables_left(
    stack: Stack,
) -> None:
    session = await register(stack, "Juggler")
    me = bearer(session.token)
    other = bearer((await register(stack, "Other")).token)
    running_table = await open_table_with_bots(stack.lobby, me, bots=2)
    await stack.lobby.StartGame(
        lobby_pb2.StartGameRequest(table_id=running_table.table_id), metadata=me
    )
    hosted = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=me)
    ).table
    joined = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=other)
    ).table
    await stack.lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=joined.table_id), metadata=me)
    left = (
        await stack.lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=other)
    ).table
    await stack.lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=left.table_id), metadata=me)
    await stack.lobby.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=left.table_id), metadata=me)
    organised = (
        await stack.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(size=3, host_sits_out=True), metadata=me
        )
    ).table

    mine = (await stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
    # The running game first, then the open tables (newest first: tables opened within the same
    # millisecond come in any order).
    assert mine[0].table_id == running_table.table_id
    assert mine[0].status == lobby_pb2.TABLE_STATUS_STARTED
    assert mine[0].game_id and mine[0].version > 0
    waiting = {g.table_id: g for g in mine[1:]}
    assert set(waiting) == {organised.table_id, joined.table_id, hosted.table_id}
    assert all(g.status == lobby_pb2.TABLE_STATUS_OPEN for g in waiting.values())
    assert all(not g.game_id and g.version == 0 for g in waiting.values())
    assert not waiting[organised.table_id].HasField("seat")  # the organiser sits out
    assert waiting[joined.table_id].seat == 1
    assert waiting[hosted.table_id].seat == 0
    # The other player's list: their two tables; the one I left still theirs.
    theirs = (await stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=other)).games
    assert {g.table_id for g in theirs} == {left.table_id, joined.table_id}
    # Closing a table drops it from its host's list; a host who sits out closes it the same way.
    for closing in (hosted, organised):
        await stack.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=closing.table_id), metadata=me
        )
        closed = await stack.lobby.GetTable(
            lobby_pb2.GetTableRequest(table_id=closing.table_id), metadata=me
        )
        assert closed.table.status == lobby_pb2.TABLE_STATUS_CLOSED
    mine = (await stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)).games
    assert not {hosted.table_id, organised.table_id} & {g.table_id for g in mine}


async def test_rotating_the_credential_makes_the_old_one_fail_at_once(stack: Stack) -> None:
    session = await register(stack, "Phone Lost")
    old = session.credential
    refreshed_before = (
        await stack.lobby.RefreshToken(
            lobby_pb2.RefreshTokenRequest(), metadata=bearer(session.token)
        )
    ).session
    rotated = (
        await stack.lobby.RotateCredential(
            lobby_pb2.RotateCredentialRequest(), metadata=bearer(session.token)
        )
    ).session
    assert rotated.player_id == session.player_id
    assert rotated.credential and rotated.credential != old
    wrong_message = await refused_with(
        UNAUTHENTICATED,
        "CREDENTIAL_INVALID",
        stack.lobby.SignIn(lobby_pb2.SignInRequest(player_id=session.player_id, credential=old)),
    )
    assert not wrong_message.metadata
    fresh = (
        await stack.lobby.SignIn(
            lobby_pb2.SignInRequest(player_id=session.player_id, credential=rotated.credential)
        )
    ).session
    await stack.lobby.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=bearer(fresh.token))
    # The lost phone's tokens, and those refreshed from them, can neither be refreshed again
    # nor rotate the credential back: its access ends with the token it holds.
    for token in (session.token, refreshed_before.token):
        for call in (
            stack.lobby.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=bearer(token)),
            stack.lobby.RotateCredential(
                lobby_pb2.RotateCredentialRequest(), metadata=bearer(token)
            ),
        ):
            await refused_with(UNAUTHENTICATED, "CREDENTIAL_INVALID", call)
    again = await stack.lobby.RefreshToken(
        lobby_pb2.RefreshTokenRequest(), metadata=bearer(rotated.token)
    )
    await stack.lobby.RefreshToken(
        lobby_pb2.RefreshTokenRequest(), metadata=bearer(again.session.token)
    )


async def test_a_seat_token_cannot_act_for_the_players_account(stack: Stack) -> None:
    """A seat token is for its game (given, say, to a bot that plays that seat): the lobby's
    calls act for the account, so a seat token may not rotate the credential, become a player
    token, list the player's games or use their tables."""
    session = await register(stack, "Lends A Seat")
    host = bearer(session.token)
    table = await open_table_with_bots(stack.lobby, host, bots=2)
    await stack.lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=host)
    ticket = await stack.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=host
    )
    seat = bearer(ticket.token)
    denied = grpc.StatusCode.PERMISSION_DENIED
    lobby = stack.lobby
    for call in (
        lobby.RotateCredential(lobby_pb2.RotateCredentialRequest(), metadata=seat),
        lobby.RefreshToken(lobby_pb2.RefreshTokenRequest(), metadata=seat),
        lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=seat),
        lobby.CreateTable(lobby_pb2.CreateTableRequest(size=3), metadata=seat),
        lobby.GetSeatToken(lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=seat),
        lobby.GetTable(lobby_pb2.GetTableRequest(table_id=table.table_id), metadata=seat),
    ):
        await refused_with(denied, "PLAYER_TOKEN_REQUIRED", call)
    # The credential still works, and the seat token still plays its seat.
    await stack.lobby.SignIn(
        lobby_pb2.SignInRequest(player_id=session.player_id, credential=session.credential)
    )
    await stack.game.GetView(game_pb2.GetViewRequest(game_id=ticket.game_id), metadata=seat)


async def test_every_refusal_of_sessions_says_its_reason(stack: Stack) -> None:
    session = await register(stack, "Careful")
    attempts: list[tuple[grpc.StatusCode, str, object]] = [
        (  # an unknown player answers like a wrong credential: nothing tells them apart
            UNAUTHENTICATED,
            "CREDENTIAL_INVALID",
            stack.lobby.SignIn(
                lobby_pb2.SignInRequest(player_id="p0000000000000000", credential="x" * 43)
            ),
        ),
        (
            UNAUTHENTICATED,
            "CREDENTIAL_INVALID",
            stack.lobby.SignIn(lobby_pb2.SignInRequest(player_id=session.player_id)),
        ),
        (
            UNAUTHENTICATED,
            "CREDENTIAL_INVALID",
            stack.lobby.SignIn(
                lobby_pb2.SignInRequest(player_id=session.player_id, credential="y" * 10_000)
            ),
        ),
        (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ID",
            stack.lobby.SignIn(lobby_pb2.SignInRequest(player_id="no such\n", credential="x")),
        ),
        (
            UNAUTHENTICATED,
            "TOKEN_MISSING",
            stack.lobby.RotateCredential(lobby_pb2.RotateCredentialRequest()),
        ),
        (
            UNAUTHENTICATED,
            "TOKEN_MISSING",
            stack.lobby.ListMyGames(lobby_pb2.ListMyGamesRequest()),
        ),
        (
            UNAUTHENTICATED,
            "TOKEN_EXPIRED",
            stack.lobby.ListMyGames(
                lobby_pb2.ListMyGamesRequest(),
                metadata=bearer(stack.config.issuer.mint(session.player_id, ttl_seconds=-1)),
            ),
        ),
        (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_DISPLAY_NAME",
            stack.lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name="x")),
        ),
    ]
    messages = []
    for code, reason, call in attempts:
        await refused_with(code, reason, call)
    for player_id in ("p0000000000000000", session.player_id):
        try:
            await stack.lobby.SignIn(
                lobby_pb2.SignInRequest(player_id=player_id, credential="wrong")
            )
        except grpc.aio.AioRpcError as error:
            messages.append(error.details())
    assert len(set(messages)) == 1  # the same words for an unknown player and a wrong secret


async def _sign_in(
    stack: Stack, player_id: str, credential: str, peer: str
) -> lobby_pb2.SignInResponse:
    return await stack.lobby.SignIn(
        lobby_pb2.SignInRequest(player_id=player_id, credential=credential),
        metadata=from_peer(peer),
    )


async def _wrong(stack: Stack, player_id: str, peer: str, times: int) -> None:
    for _ in range(times):
        await refused_with(
            UNAUTHENTICATED, "CREDENTIAL_INVALID", _sign_in(stack, player_id, "guess", peer)
        )


async def test_wrong_credentials_are_rate_limited_per_player_and_per_network_address(
    stores: tuple[str, str | None],
) -> None:
    # 1 a minute in bursts of 4 per player; 2 in bursts of 8 per address
    async with running(
        *stores, signin_rate=1, signin_peer_rate=2, trusted_proxies="127.0.0.1"
    ) as stack:
        x, y, z, w = [await register(stack, name) for name in ("Xaver", "Yvonne", "Zora", "Wim")]
        await _wrong(stack, x.player_id, "198.51.100.1", times=4)
        info = await refused_with(  # X's own credential, from elsewhere: X is locked for now
            EXHAUSTED, "RATE_LIMITED", _sign_in(stack, x.player_id, x.credential, "198.51.100.2")
        )
        assert int(info.metadata["retry_after_ms"]) > 1000
        await _sign_in(stack, y.player_id, y.credential, "198.51.100.2")  # Y is not

        # One address guessing at several players runs out on its own.
        for player in (y, z):
            await _wrong(stack, player.player_id, "203.0.113.9", times=3)
        await _wrong(stack, w.player_id, "203.0.113.9", times=2)
        info = await refused_with(
            EXHAUSTED, "RATE_LIMITED", _sign_in(stack, w.player_id, w.credential, "203.0.113.9")
        )
        assert int(info.metadata["retry_after_ms"]) > 1000
        await _sign_in(stack, w.player_id, w.credential, "203.0.113.10")


async def test_guests_are_limited_per_network_address_and_overall(
    stores: tuple[str, str | None],
) -> None:
    async with running(*stores, guest_rate=1, trusted_proxies="127.0.0.0/8") as stack:
        for i in range(4):  # bursts of 4
            await register(stack, f"Guest {i}", from_peer("198.51.100.7"))
        info = await refused_with(
            EXHAUSTED, "RATE_LIMITED", register(stack, "One Too Many", from_peer("198.51.100.7"))
        )
        assert int(info.metadata["retry_after_ms"]) > 1000
        await register(stack, "Neighbour", from_peer("198.51.100.8"))
        await register(stack, "Next Door", from_peer("2001:db8::8"))
    async with running(*stores, guest_rate=1) as untrusting:
        # Without trusted proxies, x-forwarded-for is anyone's word: every call is loopback's.
        for i in range(4):
            await register(untrusting, f"Guest {i}", from_peer(f"198.51.100.{i}"))
        await refused_with(
            EXHAUSTED, "RATE_LIMITED", register(untrusting, "Forger", from_peer("192.0.2.1"))
        )
    # One a second from everyone, in bursts of one: a second guest within 4 s is refused.
    async with running(*stores, guest_global_rate=0.25, trusted_proxies="127.0.0.1") as capped:
        await register(capped, "First", from_peer("198.51.100.1"))
        await refused_with(
            EXHAUSTED, "RATE_LIMITED", register(capped, "Fifth", from_peer("192.0.2.1"))
        )


async def test_waiting_tables_are_limited_per_network_address(
    stores: tuple[str, str | None],
) -> None:
    async with running(*stores, peer_tables=2, trusted_proxies="127.0.0.1") as stack:
        a = (await register(stack, "Anna", from_peer("198.51.100.1"))).token
        b = (await register(stack, "Bert", from_peer("198.51.100.1"))).token
        create = lobby_pb2.CreateTableRequest(size=4)
        first = (await stack.lobby.CreateTable(create, metadata=from_peer("198.51.100.1", a))).table
        await stack.lobby.CreateTable(create, metadata=from_peer("198.51.100.1", a))
        for call in (
            stack.lobby.CreateTable(create, metadata=from_peer("198.51.100.1", b)),
            stack.lobby.QuickMatch(
                lobby_pb2.QuickMatchRequest(size=3), metadata=from_peer("198.51.100.1", b)
            ),
        ):
            await refused_with(EXHAUSTED, "TOO_MANY_TABLES", call)
        await stack.lobby.CreateTable(create, metadata=from_peer("198.51.100.2", b))
        await stack.lobby.LeaveTable(  # closes it: a place frees up
            lobby_pb2.LeaveTableRequest(table_id=first.table_id),
            metadata=from_peer("198.51.100.1", a),
        )
        await stack.lobby.CreateTable(create, metadata=from_peer("198.51.100.1", b))


async def test_my_games_answer_unavailable_while_the_game_service_is_down() -> None:
    """A list without the running games would send a player to a lobby that forgot them."""
    config = Config(bind="127.0.0.1:0", token_secret=SECRET, bots="off")
    game = await start_backend(config, frozenset({"game"}), event_store=InMemoryEventStore())
    lobby = await start_backend(
        replace(config, game_address=f"127.0.0.1:{game.port}"),
        frozenset({"lobby"}),
        lobby_store=InMemoryLobbyStore(),
    )
    game_running = True
    try:
        async with aio.insecure_channel(f"127.0.0.1:{lobby.port}") as channel:
            stub = lobby_pb2_grpc.LobbyServiceStub(channel)
            session = await stub.RegisterGuest(
                lobby_pb2.RegisterGuestRequest(display_name="Patient")
            )
            me = bearer(session.session.token)
            table = await open_table_with_bots(stub, me, bots=2)  # type: ignore[arg-type]
            await stub.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=me)
            listed = await stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)
            assert listed.games[0].game_id and listed.games[0].version > 0
            await game.stop(None)
            game_running = False
            await refused_with(
                grpc.StatusCode.UNAVAILABLE,
                "GAME_SERVICE_UNAVAILABLE",
                stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me),
            )
    finally:
        await lobby.stop(None)
        if game_running:
            await game.stop(None)
