"""`verrater play` and `verrater watch`: the terminal client's subcommands.

Whatever goes wrong, people see one line, never a traceback: the handlers catch everything at
the top. Exit codes: 0 the game ran to its end, 1 an error, 130 the player left (Ctrl-C). What
they print is wrapped between words at the terminal's width, and the commands it names are
written as the player's shell runs them (shell.py).
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import time
from collections.abc import Callable, Sequence

import grpc
from rich.console import Console
from rich.text import Text

from services.api.verrater.v1 import lobby_pb2

from . import words
from .clock import countdown
from .connection import (
    DEFAULT_SERVER,
    SERVER_ENV,
    Auth,
    ClientError,
    Connection,
    ServerRefused,
    status_text,
)
from .identity import WHERE, IdentityStore
from .lobby import (
    LEVELS,
    PEOPLE_TURN_SECONDS,
    Player,
    SeatTicket,
    TableChoice,
    default_name,
    running_games,
    seat_ticket,
    sign_in,
    take_seat,
)
from .session import GameSession
from .shell import verrater_command
from .summaries import render_end
from .terminal import Terminal

LEFT = 130
PLAY_ABOUT = (
    "Play a game of Verräter in the terminal, against bots or people (needs a server: "
    "`verrater serve`, or `make run`). On first use the client registers you and keeps your "
    f"player id and credential in {WHERE}, one entry per server, readable by you only. With "
    "them, the next `verrater play` signs you in again and offers to resume the games you sit "
    "in, even after the client was killed."
)


def _server_default() -> str:
    return os.environ.get(SERVER_ENV) or DEFAULT_SERVER


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `play` and `watch` on the `verrater` command's subparsers."""
    server = _server_default()
    server_help = f"server address (${SERVER_ENV}, else {DEFAULT_SERVER}; now {server})"
    play = commands.add_parser(
        "play",
        help="play a game in the terminal, against bots or people (needs a server)",
        description=PLAY_ABOUT,
    )
    play.add_argument("--server", default=server, help=server_help)
    play.add_argument(
        "--name", help="your display name when you are new to the server (default: your login)"
    )
    play.add_argument("--players", type=int, choices=(3, 4), default=4, help="table size (4)")
    play.add_argument("--bots", type=int, help="bots at your new table (default: every other seat)")
    play.add_argument("--level", choices=tuple(LEVELS), default="normal", help="bot level (normal)")
    play.add_argument(
        "--turn-seconds",
        type=int,
        default=None,
        help="seconds per decision at your new table before a bot decides (0: no timer; "
        f"default: none at a table of you and bots, {PEOPLE_TURN_SECONDS} where people may "
        "join)",
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
    watch.add_argument("--server", default=server, help=server_help)
    watch.add_argument(
        "--token", help="a token to watch with (default: sign in as your stored player)"
    )
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
    # Ctrl-C leaves the game even when the shell that started us ignores it (`make play`'s
    # does, so that make does not report the player's leaving as its own error).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return body()
    except (KeyboardInterrupt, EOFError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # leaving anyway: a second Ctrl-C waits
        console.print()
        console.print(farewell(), style="bold")
        return LEFT
    except ServerRefused as refusal:
        _fail(console, command, f"the server refused: {refusal.message}")
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
    console.print(Text(f"verrater {command}: {message}", style="bold red"))


def _notifier(console: Console) -> Callable[[str], None]:
    return lambda message: console.print(Text(message, style="yellow"))


def _greet(console: Console, player: Player, store: IdentityStore, asked_name: str | None) -> None:
    if player.returning:
        console.print(f"Welcome back, {player.display_name}.")
        if asked_name and asked_name != player.display_name:
            console.print(
                f"(--name is for new players: on this server you are {player.display_name}.)",
                style="dim",
            )
    elif player.kept:
        console.print(
            f"Welcome, {player.display_name}. Your player is kept in {store.path}: run "
            f"`{verrater_command()} play` again to come back to a game you leave."
        )
    else:
        console.print(f"Welcome, {player.display_name}.")


def game_line(game: lobby_pb2.MyGame) -> str:
    """A running game in the resume menu."""
    others = ", ".join(
        seat.display_name for seat in game.table.seats if seat.seat != game.seat and seat.player_id
    )
    state = "your turn" if game.your_turn else "others decide"
    if game.HasField("deadline"):
        left = game.deadline.seconds - time.time()
        state += f" ({countdown(left)} left)" if left > 0 else " (time is up)"
    when = f"round {game.round}" if game.round else "before round 1"
    return f"Resume game {game.game_id}: {when}, {state}; with {others}"


def choose_game(
    console: Console, games: Sequence[lobby_pb2.MyGame], choice: TableChoice
) -> lobby_pb2.MyGame | None:
    """Offer the running games and a new table; the game chosen, or None for a new table."""
    plural = "game" if len(games) == 1 else "games"
    console.print(f"You sit in {len(games)} running {plural} on this server:")
    for number, game in enumerate(games, start=1):
        console.print(f"  {number}. {game_line(game)}")
    if choice.join:
        new = f"Join table {choice.join}"
    elif choice.quick:
        new = "Quick match at a new table"
    else:
        new = "Start a new table"
    console.print(f"  {len(games) + 1}. {new}")
    while True:
        answer = console.input(f"Your choice (1-{len(games) + 1}, Enter for 1): ").strip()
        if not answer:
            return games[0]
        if answer.isdigit() and 1 <= int(answer) <= len(games) + 1:
            number = int(answer)
            return games[number - 1] if number <= len(games) else None
        console.print(f"Type a number from 1 to {len(games) + 1}.", style="red")


def _play(args: argparse.Namespace) -> int:
    console = _console()
    conn = Connection(args.server, notify=_notifier(console))
    store = IdentityStore.default()
    session: GameSession | None = None
    kept = False

    def farewell() -> str:
        if session is None:
            return "Left before the game started."
        return session.farewell(kept, args.server, verrater_command())

    def body() -> int:
        nonlocal session, kept
        choice = TableChoice(
            players=args.players,
            bots=args.bots,
            level=args.level,
            join=args.join,
            quick=args.quick,
            turn_seconds=args.turn_seconds,
        )
        say = _notifier(console)
        player = sign_in(conn, store, args.name or default_name(_login()), say)
        kept = player.kept
        _greet(console, player, store, args.name)
        games = running_games(conn, player)
        chosen = choose_game(console, games, choice) if games else None
        ticket: SeatTicket
        if chosen is not None:
            ticket = seat_ticket(conn, player, chosen.table_id)
            console.print(f"Back to game {ticket.game_id}: {_seat(ticket.seat)}.")
        else:
            ticket = take_seat(conn, player, choice, say)
            console.print(f"Game {ticket.game_id} starts: {_seat(ticket.seat)}.")
        conn.auth = ticket.auth
        session = GameSession(
            conn,
            Terminal(console),
            ticket.game_id,
            pause_after_conflict=False,
            hint_level=LEVELS[args.level],
            table_id=ticket.table_id,
        )
        return _follow(console, session, args.server)

    return _guarded("play", console, conn, body, farewell)


def _follow(console: Console, session: GameSession, server: str) -> int:
    """Show the game full screen to its end, then the end screen on the terminal itself."""
    opening = session.open()
    run = verrater_command()
    console.print(
        f"Seed commitment of game {opening.game_id}: {opening.seed_commitment} (after the "
        f"game, `{run} audit` checks the revealed seed against it)."
    )
    with session.terminal.session():
        final = session.run()
    size = session.terminal.size()
    console.print(render_end(final, session.ruleset, session.chronicle, server, size, run=run))
    return 0


def _watch(args: argparse.Namespace) -> int:
    console = _console()
    conn = Connection(args.server, notify=_notifier(console))
    session = GameSession(conn, Terminal(console), args.game_id, pause_after_conflict=args.pause)

    def body() -> int:
        if args.token:
            conn.auth = Auth.fixed(args.token)
        else:
            player = sign_in(
                conn, IdentityStore.default(), default_name(_login()), _notifier(console)
            )
            conn.auth = player.auth
        return _follow(console, session, args.server)

    return _guarded("watch", console, conn, body, lambda: session.farewell(False, args.server))


def _seat(seat: int) -> str:
    """Where the player sits, as the lobby numbers seats and as the screen marks them."""
    return f"you sit at seat {seat + 1} ({words.mark(seat)} on the screen)"


def _login() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment (containers): use the default
        return ""
