"""`verrater simulate`: one game between bots, played through the real services.

Goes the way any client goes: registers a guest organiser with the lobby, opens a table the
organiser does not sit at, seats bots of one level, starts the game, follows it with
`Game.Watch` until GameEnded, and fetches the finished log with `GetLog`. Without `--server` the
whole backend runs embedded in this process (in memory, bots in process). With `--out` the log
is written in the export format (docs/LOG_FORMAT.md), ready for `verrater audit --file`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import grpc
from grpc import aio

from services.api.verrater.v1 import events_pb2, game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.engine import PLAYER_COUNTS, PLAYER_COUNTS_TEXT
from services.rpc import bearer

from .client import FetchError, fetch_log
from .export import LogEntry, write_jsonl

if TYPE_CHECKING:
    from services.bootstrap import Backend

LEVELS: dict[str, events_pb2.BotLevel.ValueType] = {
    "easy": events_pb2.BOT_LEVEL_EASY,
    "normal": events_pb2.BOT_LEVEL_NORMAL,
    "hard": events_pb2.BOT_LEVEL_HARD,
    "expert": events_pb2.BOT_LEVEL_EXPERT,
}
ORGANISER_NAME = "Simulation"
#: How long one game may take before the simulation gives up (hard bots think 0.25 s a move).
DEFAULT_TIMEOUT_SECONDS = 600.0


class SimulationError(Exception):
    """The game could not be set up, followed or fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class SimulatedGame:
    """A finished bot game: its id and its log as stored."""

    game_id: str
    entries: list[LogEntry]


async def _start_embedded() -> Backend:
    from services.bootstrap import start_backend
    from services.config import Config

    return await start_backend(Config(bind="127.0.0.1:0"))


async def simulate(
    players: int,
    level: str = "normal",
    *,
    server: str | None = None,
    lobby: str | None = None,
    game: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> SimulatedGame:
    """Play one game of `players` bots at `level` on `server` (lobby and game), or on a `lobby`
    and a `game` service apart (each defaults to `server`); embedded when none is given."""
    if players not in PLAYER_COUNTS:
        raise ValueError(f"players must be {PLAYER_COUNTS_TEXT}")
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    backend: Backend | None = None
    lobby_address, game_address = lobby or server, game or server
    if lobby_address is None or game_address is None:
        if lobby_address is not None or game_address is not None:
            raise ValueError("give both the lobby and the game address, or --server")
        backend = await _start_embedded()
        lobby_address = game_address = f"127.0.0.1:{backend.port}"
    try:
        async with asyncio.timeout(timeout):
            return await _play(lobby_address, game_address, players, LEVELS[level])
    except TimeoutError:
        raise SimulationError(f"the game did not end within {timeout:.0f} s") from None
    except aio.AioRpcError as error:
        raise SimulationError(_explain(error, f"{lobby_address} / {game_address}")) from None
    finally:
        if backend is not None:
            await backend.stop(None)


async def _play(
    lobby_address: str, game_address: str, players: int, level: events_pb2.BotLevel.ValueType
) -> SimulatedGame:
    async with (
        aio.insecure_channel(lobby_address) as lobby_channel,
        aio.insecure_channel(game_address, options=BALANCED) as game_channel,
    ):
        lobby: lobby_pb2_grpc.LobbyServiceAsyncStub = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        game: game_pb2_grpc.GameServiceAsyncStub = game_pb2_grpc.GameServiceStub(game_channel)
        session = (
            await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=ORGANISER_NAME))
        ).session
        organiser = bearer(session.token)
        table = (
            await lobby.CreateTable(
                lobby_pb2.CreateTableRequest(size=players, host_sits_out=True), metadata=organiser
            )
        ).table
        for _ in range(players):
            await lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=level),
                metadata=organiser,
            )
        started = (
            await lobby.StartGame(
                lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=organiser
            )
        ).table
        await _follow_to_the_end(game, started.game_id, organiser)
    try:
        entries = await fetch_log(started.game_id, server=game_address, token=session.token)
    except FetchError as error:
        raise SimulationError(str(error)) from None
    return SimulatedGame(started.game_id, entries)


async def _follow_to_the_end(
    game: game_pb2_grpc.GameServiceAsyncStub, game_id: str, metadata: tuple[tuple[str, str]]
) -> None:
    """Watch as a spectator until GameEnded; reconnect from the last version if cut off."""
    version = 0
    while True:
        updates = game.Watch(
            game_pb2.WatchRequest(
                game_id=game_id,
                from_version=version,
                mode=game_pb2.WATCH_MODE_EVENTS,
                grouped=True,
            ),
            metadata=metadata,
        )
        try:
            async for response in updates:
                for update in response.updates:
                    version = update.version
                    if update.event.WhichOneof("event") == "game_ended":
                        return
        except aio.AioRpcError as error:
            if error.code() is not grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.5)
        finally:
            updates.cancel()


#: Game addresses naming several replicas (`dns:///`, `ipv4:a,b`): calls spread over them.
BALANCED = (("grpc.lb_policy_name", "round_robin"),)


def _explain(error: aio.AioRpcError, address: str) -> str:
    if error.code() is grpc.StatusCode.UNAVAILABLE:
        return f"cannot reach the backend at {address}: {error.details()}"
    return f"{error.code().name}: {error.details()}"


def add_simulate_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `simulate` on the `verrater` command's subparsers."""
    simulate_parser = commands.add_parser(
        "simulate",
        help="play one game between bots through the real services; print its game id",
    )
    simulate_parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=4)
    simulate_parser.add_argument("--level", choices=tuple(LEVELS), default="normal")
    simulate_parser.add_argument(
        "--server",
        metavar="ADDR",
        help="a running backend (lobby and game) to play on; default: one embedded in this "
        "process, in memory",
    )
    simulate_parser.add_argument(
        "--lobby", metavar="ADDR", help="the lobby of a distributed backend (default: --server)"
    )
    simulate_parser.add_argument(
        "--game",
        metavar="ADDR",
        help="its game service, e.g. dns:///game.example:50051 (default: --server)",
    )
    simulate_parser.add_argument(
        "--out", metavar="LOG.jsonl", help="write the finished game's log here (export format)"
    )
    simulate_parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_SECONDS,
        help=f"seconds the game may take ({DEFAULT_TIMEOUT_SECONDS:.0f})",
    )
    simulate_parser.set_defaults(handler=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    try:
        played = asyncio.run(
            simulate(
                args.players,
                args.level,
                server=args.server,
                lobby=args.lobby,
                game=args.game,
                timeout=args.timeout,
            )
        )
    except (SimulationError, ValueError) as problem:
        print(f"verrater simulate: {problem}", file=sys.stderr)
        return 2
    print(played.game_id)
    if args.out is not None:
        try:
            with open(args.out, "w", encoding="utf-8") as file:
                write_jsonl(played.entries, file, game_id=played.game_id)
        except OSError as problem:
            print(f"verrater simulate: {problem}", file=sys.stderr)
            return 2
    return 0
