"""`verrater bench abuse`: hostile clients against a fresh embedded server, a canary game beside.

One `verrater serve` process (in memory, with the default limits; a token secret of the
benchmark's own, so it can sign its canary's and targets' tokens) is attacked in turn by:

1. **an unread Play stream**: a seat's client writes stale decisions and never reads an answer;
   each time the server cuts it off (SLOW_READER), it opens another stream and goes on, until it
   has written `play_messages`. `rss_growth_mb` is the server's resident memory after, less
   before;
2. **the fuzz corpus** (services/bench/hostile.py, from `seed`): raw bytes and hostile messages
   for every RPC, with every kind of token, eight calls at a time. `unknown_statuses` counts the
   answers (and refused Play decisions) that were UNKNOWN or INTERNAL;
3. **the chat attacks** (services/bench/chatflood.py, in a process of their own, as clients
   elsewhere): `chat_watchers` WatchChat streams on one table, and a chat flood at it from its
   seated players and spectators for `chat_seconds`;
   `chat_rss_growth_mb` is the server's memory growth with the watchers open and the flood
   over, `chat_watchers_complete` how many watchers heard every message accepted;
4. **a guest flood**: RegisterGuest from one address, sixteen calls at a time, for
   `guest_seconds`. `guests_per_s_accepted` is the rate accepted in its second half, once the
   bursts the limits allow are spent (`guests_accepted` counts them all).

Meanwhile a canary plays 4-seat games back to back over Play streams, as `bench game` does;
`canary_p99_ms` is the 99th percentile of its decisions' latency over the whole attack.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import grpc
from grpc import aio

from services.api.verrater.v1 import (
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)
from services.rpc import Role, TokenIssuer, bearer

from .answers import send
from .chatflood import in_a_process
from .common import free_port, percentile, rss_mb, verrater_process, wait_until_serving
from .game import Tally, play_games
from .hostile import RandomDraw, Targets, api_methods, hostile_call

SECRET = "abuse-bench-secret-only-for-this-local-run"
NEVER = (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


async def _targets(channel: aio.Channel, issuer: TokenIssuer) -> tuple[Targets, str]:
    """Guests, two tables and a game for the fuzz corpus to aim at; and a seat token of that
    game for the unread stream."""
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    game = game_pb2_grpc.GameServiceStub(channel)
    players = []
    for name in ("Mallory", "Trudy", "Eve", "Oscar"):
        answer = await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=name))
        players.append(answer.session.player_id)
    host = bearer(issuer.mint(players[0]))
    tables = [
        (await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=size, private=private),
                                 metadata=host)).table.table_id
        for size, private in ((4, False), (3, True))
    ]  # fmt: skip
    service = bearer(issuer.mint("bench", role=Role.SERVICE))
    created = await game.CreateGame(
        game_pb2.CreateGameRequest(
            players=4,
            seats=[events_pb2.SeatAssignment(player_id=p, name=f"Seat {p}") for p in players],
        ),
        metadata=service,
    )
    targets = Targets(
        issuer,
        game_ids=(created.game_id, "absent-game"),
        table_ids=(*tables, "absent-table"),
        player_ids=(*players, "absent-player"),
    )
    return targets, issuer.mint(players[0], game_id=created.game_id, seat=0)


async def _unread_play(channel: aio.Channel, game_id: str, token: str, messages: int) -> int:
    """Write `messages` stale decisions on Play streams nobody reads, opening another stream
    whenever the server cuts one off; how many streams were cut."""
    play: Any = game_pb2_grpc.GameServiceStub(channel).Play
    stale = game_pb2.PlayRequest(
        command=game_pb2.SubmitCommandRequest(expected_version=10**6, command_id="stale")
    )
    opening = game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id))
    written = cut = 0
    while written < messages:
        call = play(metadata=bearer(token))
        try:
            await call.write(opening)
            while written < messages:
                await call.write(stale)
                written += 1
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            cut += 1  # the server ended the stream: this client's write failed
        finally:
            call.cancel()
    return cut


async def _fuzz(
    channel: aio.Channel, targets: Targets, requests: int, seed: int
) -> tuple[int, int]:
    """Send the corpus, eight calls at a time: (UNKNOWN or INTERNAL answers, inconclusive
    calls, where the server ended a stream while it was being written)."""
    draw = RandomDraw(random.Random(seed))
    methods = api_methods()
    calls = [hostile_call(draw, methods, targets) for _ in range(requests)]
    unknown = cut = 0

    async def worker() -> None:
        nonlocal unknown, cut
        while calls:
            answer = await send(channel, calls.pop(), first_wait_s=0.1, quiet_s=0.02)
            cut += answer.write_cut
            unknown += sum(1 for refused in answer.refusals() if refused.code in NEVER)

    await asyncio.gather(*(worker() for _ in range(8)))
    return unknown, cut


async def _guest_flood(channel: aio.Channel, seconds: float) -> tuple[int, int, float]:
    """RegisterGuest from one address, sixteen at a time, for `seconds`: (guests asked for,
    guests accepted, guests accepted per second in the second half, once the bursts the limits
    allow are spent: what a flood gets for as long as it goes on)."""
    register = lobby_pb2_grpc.LobbyServiceStub(channel).RegisterGuest
    accepted: list[float] = []
    sent = 0
    start = time.monotonic()
    deadline = start + seconds

    async def flooder(number: int) -> None:
        nonlocal sent
        while time.monotonic() < deadline:
            sent += 1
            request = lobby_pb2.RegisterGuestRequest(display_name=f"Flood {number} {sent}")
            try:
                await register(request)
                accepted.append(time.monotonic())
            except grpc.aio.AioRpcError as error:
                if error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise

    await asyncio.gather(*(flooder(number) for number in range(16)))
    half = start + seconds / 2
    return sent, len(accepted), sum(1 for at in accepted if at >= half) / (seconds / 2)


async def _run(
    port: int,
    pid: int,
    *,
    play_messages: int,
    fuzz_requests: int,
    guest_seconds: float,
    seed: int,
    chat_watchers: int,
    chat_seconds: float,
) -> dict[str, float | int]:
    issuer = TokenIssuer(SECRET)
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        await wait_until_serving(channel)
        targets, seat_token = await _targets(channel, issuer)
        # The canary has its own connection, as a player elsewhere would.
        async with aio.insecure_channel(f"127.0.0.1:{port}") as canary_channel:
            tally = Tally()
            stub: game_pb2_grpc.GameServiceAsyncStub = game_pb2_grpc.GameServiceStub(canary_channel)
            canary = asyncio.create_task(
                play_games(
                    stub,
                    issuer,
                    think_ms=20,
                    api="play",
                    rng=random.Random(seed),
                    tally=tally,
                )
            )
            started = time.monotonic()
            try:
                before = rss_mb(pid)
                cut = await _unread_play(channel, targets.game_ids[0], seat_token, play_messages)
                after = rss_mb(pid)
                unknown, inconclusive = await _fuzz(channel, targets, fuzz_requests, seed)
                chat_from = len(tally.latencies_ms)
                chat = await in_a_process(port, pid, watchers=chat_watchers, seconds=chat_seconds)
                chat_to = len(tally.latencies_ms)
                sent, guests, per_second = await _guest_flood(channel, guest_seconds)
            finally:
                canary.cancel()
                await asyncio.gather(canary, return_exceptions=True)
            if canary.done() and not canary.cancelled() and canary.exception() is not None:
                raise RuntimeError("the canary failed") from canary.exception()
            elapsed = time.monotonic() - started
    return {
        "rss_growth_mb": round(after - before, 1),
        "unknown_statuses": unknown + int(chat["chat_unknown_statuses"]),
        "canary_p99_ms": round(percentile(tally.latencies_ms, 0.99), 1),
        "guests_per_s_accepted": round(per_second, 2),
        "guests_sent": sent,
        "guests_accepted": guests,
        "play_messages": play_messages,
        "play_streams_cut": cut,
        "server_rss_mb": round(after, 1),
        "fuzz_requests": fuzz_requests,
        "fuzz_inconclusive": inconclusive,
        "canary_decisions": len(tally.latencies_ms),
        "canary_p50_ms": round(percentile(tally.latencies_ms, 0.50), 1),
        "canary_games": len(tally.finished),
        **chat,
        # The canary while the chat attacks ran, and while the others did.
        "canary_p99_ms_chat": round(percentile(tally.latencies_ms[chat_from:chat_to], 0.99), 1),
        "canary_p99_ms_other": round(
            percentile(tally.latencies_ms[:chat_from] + tally.latencies_ms[chat_to:], 0.99), 1
        ),
        "seconds": round(elapsed, 1),
    }


def run_abuse_bench(
    *,
    play_messages: int = 100_000,
    fuzz_requests: int = 3_000,
    guest_seconds: float = 10.0,
    seed: int = 0,
    chat_watchers: int = 1_000,
    chat_seconds: float = 10.0,
) -> dict[str, float | int]:
    """Start a fresh embedded server, attack it (see the module), stop it; the figures. The
    chat watchers all come from this machine's one address: the server allows that many
    streams per address (the default limits otherwise)."""
    port = free_port()
    env = {
        "VERRATER_BIND": f"127.0.0.1:{port}",
        "VERRATER_TOKEN_SECRET": SECRET,
        "REDIS_URL": "",  # in memory
        "VERRATER_WEB_BIND": "",  # no browser door: the attacks speak gRPC
        "VERRATER_STREAMS_PER_PEER": str(max(256, chat_watchers + 64)),
    }
    with verrater_process(["serve"], env) as server:
        return asyncio.run(
            _run(
                port,
                server.pid,
                play_messages=play_messages,
                fuzz_requests=fuzz_requests,
                guest_seconds=guest_seconds,
                seed=seed,
                chat_watchers=chat_watchers,
                chat_seconds=chat_seconds,
            )
        )
