"""`verrater play` and `verrater watch`: the terminal client's subcommands.

Whatever goes wrong, people see one line, never a traceback: the handlers catch everything at
the top. Exit codes: 0 the game ran to its end, 1 an error, 130 the player left (Ctrl-C).
"""

from __future__ import annotations

import argparse
import getpass
import signal
from collections.abc import Callable

import grpc
from rich.console import Console
from rich.text import Text

from .connection import DEFAULT_SERVER, ClientError, Connection, ServerRefused, status_text
from .lobby import LEVELS, TableChoice, default_name, register, take_seat
from .session import GameSession

LEFT = 130


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `play` and `watch` on the `verrater` command's subparsers."""
    play = commands.add_parser(
        "play", help="play a game in the terminal, against bots or people (needs a server)"
    )
    play.add_argument("--server", default=DEFAULT_SERVER, help=f"server ({DEFAULT_SERVER})")
    play.add_argument("--name", help="your display name (default: your login name)")
    play.add_argument("--players", type=int, choices=(3, 4), default=4, help="table size (4)")
    play.add_argument("--bots", type=int, help="bots at your new table (default: every other seat)")
    play.add_argument("--level", choices=tuple(LEVELS), default="normal", help="bot level (normal)")
    play.add_argument(
        "--turn-seconds",
        type=int,
        default=120,
        help="seconds per decision at your new table before a bot decides (120; 0: no timer)",
    )
    where = play.add_mutually_exclusive_group()
    where.add_argument(
        "--join", metavar="TABLE[:CODE]", help="join a table (a private one with its code)"
    )
    where.add_argument(
        "--quick",
        action="store_true",
        help="quick match: join an open table or open one (bots fill it after 10 s)",
    )
    play.set_defaults(handler=_play)

    watch = commands.add_parser("watch", help="watch a running game live, as a spectator")
    watch.add_argument("game_id", metavar="GAME_ID")
    watch.add_argument("--server", default=DEFAULT_SERVER, help=f"server ({DEFAULT_SERVER})")
    watch.add_argument("--token", help="a token to watch with (default: a new guest's)")
    watch.add_argument(
        "--pause", action="store_true", help="wait for Enter after each conflict summary"
    )
    watch.set_defaults(handler=_watch)


def _console() -> Console:
    return Console(highlight=False)


def _guarded(
    command: str,
    console: Console,
    conn: Connection,
    body: Callable[[], int],
    farewell: Callable[[], str],
) -> int:
    """Run `body`, turning every way out into one line for people."""
    try:
        return body()
    except (KeyboardInterrupt, EOFError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # leaving anyway: a second Ctrl-C waits
        console.print()
        console.print(farewell(), style="bold")
        return LEFT
    except ServerRefused as refusal:
        _fail(console, command, f"the server refused: {refusal.reason}")
    except ClientError as problem:
        _fail(console, command, str(problem))
    except grpc.RpcError as error:
        _fail(console, command, f"the server refused: {status_text(error)}")
    except Exception as error:  # the last guard: a one-line report instead of a traceback
        _fail(console, command, f"unexpected {type(error).__name__}: {error}")
    finally:
        conn.close()
    return 1


def _fail(console: Console, command: str, message: str) -> None:
    console.print(Text(f"verrater {command}: {message}", style="bold red"), soft_wrap=True)


def _notifier(console: Console) -> Callable[[str], None]:
    return lambda message: console.print(Text(message, style="yellow"), soft_wrap=True)


def _play(args: argparse.Namespace) -> int:
    console = _console()
    conn = Connection(args.server, notify=_notifier(console))
    session: GameSession | None = None

    def farewell() -> str:
        return session.farewell() if session is not None else "Left before the game started."

    def body() -> int:
        nonlocal session
        choice = TableChoice(
            players=args.players,
            bots=args.bots,
            level=args.level,
            join=args.join,
            quick=args.quick,
            turn_seconds=args.turn_seconds,
        )
        player = register(conn, args.name or default_name(_login()))
        console.print(f"Welcome, {player.display_name}.")
        ticket = take_seat(conn, choice, _notifier(console))
        conn.token = ticket.token
        console.print(f"Game {ticket.game_id} starts; you sit at seat {ticket.seat + 1}.")
        session = GameSession(
            conn,
            console,
            ticket.game_id,
            pause_after_conflict=True,
            hint_level=LEVELS[args.level],
        )
        session.run()
        return 0

    return _guarded("play", console, conn, body, farewell)


def _watch(args: argparse.Namespace) -> int:
    console = _console()
    conn = Connection(args.server, notify=_notifier(console))
    session = GameSession(conn, console, args.game_id, pause_after_conflict=args.pause)

    def body() -> int:
        if args.token:
            conn.token = args.token
        else:
            register(conn, "Spectator")
        session.run()
        return 0

    return _guarded("watch", console, conn, body, session.farewell)


def _login() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment (containers): use the default
        return ""
