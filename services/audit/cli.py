"""`verrater audit`, `verrater export` and `verrater replay`: the audit tools on the command line.

Each reads a finished game's log from a game server (GetLog) or from an export file. Exit codes:
0 done (audit: clean), 1 the audit found something, 2 the log could not be read.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from .client import DEFAULT_SERVER, TOKEN_ENV
from .export import LogEntry


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `audit`, `export` and `replay` on the `verrater` command's subparsers."""
    audit = commands.add_parser(
        "audit",
        help="prove a finished game was stored intact, dealt fairly and played by the rules",
    )
    _add_source(audit)
    audit.set_defaults(handler=_audit)

    export = commands.add_parser(
        "export", help="print a finished game's log as JSON Lines (format: docs/LOG_FORMAT.md)"
    )
    export.add_argument("game_id", metavar="GAME_ID")
    _add_server(export)
    export.set_defaults(handler=_export)

    retention = commands.add_parser(
        "retention",
        help="export finished games from Redis (REDIS_URL) to auditable files, then remove them",
    )
    retention.add_argument("--out", required=True, metavar="DIR", help="where the exports go")
    retention.add_argument(
        "--min-age-days",
        type=float,
        default=30.0,
        help="only games that ended at least this long ago (default 30)",
    )
    retention.add_argument(
        "--keep", action="store_true", help="export only: leave the games in Redis"
    )
    retention.add_argument("--redis-url", help="the Redis (default: REDIS_URL)")
    retention.set_defaults(handler=_retention)

    replay = commands.add_parser("replay", help="tell a game's log round by round")
    _add_source(replay)
    replay.add_argument("--round", type=int, help="tell only this round")
    replay.set_defaults(handler=_replay)


def _add_source(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("game_id", nargs="?", metavar="GAME_ID", help="fetch this game's log")
    source.add_argument("--file", metavar="LOG.jsonl", help="read an exported log instead")
    _add_server(parser)


def _add_server(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", default=DEFAULT_SERVER, help=f"the backend, lobby and game ({DEFAULT_SERVER})"
    )
    parser.add_argument(
        "--game",
        metavar="ADDR",
        help="the game service, when it is not at --server (only the game service is asked)",
    )
    parser.add_argument(
        "--token",
        help=f"a token of the server's issuer (default: ${TOKEN_ENV}, else one minted with "
        "this machine's VERRATER_TOKEN_SECRET, which suits a local `verrater serve`)",
    )


def _fail(command: str, problem: object) -> int:
    print(f"verrater {command}: {problem}", file=sys.stderr)
    return 2


def _fetch(game_id: str, args: argparse.Namespace) -> list[LogEntry]:
    import asyncio

    from services.config import Config

    from .client import fetch_log

    return asyncio.run(
        fetch_log(
            game_id,
            server=args.game or args.server,
            token=args.token,
            issuer=Config.from_env().issuer,
        )
    )


def _load(args: argparse.Namespace) -> tuple[str, list[LogEntry]]:
    """The game's name (id, or file name) and its log, from the file or the server."""
    from .export import read_log

    if args.file is not None:
        with open(args.file, encoding="utf-8") as file:
            log = read_log(file)
        return log.game_id or args.file, log.entries
    return args.game_id, _fetch(args.game_id, args)


def _audit(args: argparse.Namespace) -> int:
    from .client import FetchError
    from .export import LogFormatError
    from .verify import audit

    try:
        name, entries = _load(args)
    except (FetchError, LogFormatError, OSError) as problem:
        return _fail("audit", problem)
    report = audit(entries)
    print(f"Audit of game {name}")
    print(report.summary())
    return 0 if report.ok else 1


def _export(args: argparse.Namespace) -> int:
    from .client import FetchError
    from .export import write_jsonl

    try:
        entries = _fetch(args.game_id, args)
    except FetchError as problem:
        return _fail("export", problem)
    write_jsonl(entries, sys.stdout, game_id=args.game_id)
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .client import FetchError
    from .export import LogFormatError
    from .replay import tell_story
    from .story import fitted

    try:
        _, entries = _load(args)
        lines = tell_story(entries, args.round)
    except (FetchError, LogFormatError, OSError, ValueError) as problem:
        return _fail("replay", problem)
    for line in fitted(lines, shutil.get_terminal_size().columns):
        print(line)
    return 0


def _retention(args: argparse.Namespace) -> int:
    import asyncio
    import json
    import os
    from pathlib import Path

    from services.eventstore import RedisEventStore

    from .retention import retain

    url = args.redis_url or os.environ.get("REDIS_URL")
    if not url:
        return _fail("retention", "no Redis: set REDIS_URL or pass --redis-url")

    async def run() -> dict[str, int]:
        async with RedisEventStore.from_url(url) as store:
            report = await retain(
                store, Path(args.out), min_age_days=args.min_age_days, remove=not args.keep
            )
        return report.as_dict()

    print(json.dumps(asyncio.run(run())))
    return 0
