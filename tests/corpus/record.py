"""Record a release's log corpus: real games of the release, played through its services on a
real Redis, kept as `verrater export` writes them and as their streams sat in Redis.

    make corpus RELEASE=v1.1.0            (or: .venv/bin/python -m tests.corpus.record v1.1.0)

It starts a private redis-server and, on it, the backend as `verrater serve` starts it (the
lobby, game and AI services in one process, bots in process); guests register, open tables, join
them, add bots and start the games through the public API, and the people decide at random
among the legal commands their views offer. A person who is away lets their turn timer run
out (5 seconds, the shortest a table may have), and the turn timers' sweeper has a bot stand
in, as in production. Each case is played until its game shows what it is there for (an early
end: about one game in four). Then each game is exported over GetLog (what `verrater export`
does) and its stream read from Redis as stored. It takes a minute or two.

Writes `tests/corpus/<release>/` and refuses an existing one: a release's corpus is recorded
once, from the code of that release, and never again (tests/corpus/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import random
import secrets
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as aioredis
from grpc import aio

from services.api.verrater.v1 import (
    cards_pb2,
    commands_pb2,
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    view_pb2,
)
from services.audit import LogEntry, audit, write_jsonl
from services.audit.client import fetch_log
from services.bootstrap import Backend, start_backend
from services.codec import Record
from services.config import Config
from services.devtools.redis_server import start_private_redis
from services.engine import GameEnded, RoundStarted
from services.stats import game_result

from .corpus import COVERS, HERE, MANIFEST, StoredStream, StreamEntry, write_stream

Metadata = tuple[tuple[str, str], ...]
#: Games played for one case before giving up on it showing what it is there for.
ATTEMPTS = 40
#: The turn timer of the tables where a person is away: the shortest a table may have.
TURN_SECONDS = 5


def bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Absence:
    """A person who is away: after `after` decisions of their own, for `turns` of their turns
    (None: to the end of the game); their turn timer runs out and a bot stands in."""

    person: int
    after: int
    turns: int | None = None
    made: int = 0
    missed: int = 0

    def away(self, person: int) -> bool:
        return (
            person == self.person
            and self.made >= self.after
            and (self.turns is None or self.missed < self.turns)
        )


Prefer = Callable[[commands_pb2.Command], bool]


@dataclass(frozen=True)
class Case:
    """A game of the corpus: who sits at the table, how it is opened, and what its log must
    show (`wanted`, names of corpus.COVERS)."""

    name: str
    size: int
    people: tuple[str, ...]
    wanted: tuple[str, ...]
    bots: tuple[int, ...] = ()  # events_pb2.BotLevel values
    builder_may_move: bool = False
    turn_seconds: int = 0
    setup: events_pb2.ExplicitSetup | None = None
    #: The person (by index in `people`) who is away, and when.
    absence: tuple[int, int, int | None] | None = None
    #: Commands the people choose when their views offer them (the rest at random).
    prefer: Prefer | None = None


def _moves(command: commands_pb2.Command) -> bool:
    return command.HasField("move_building")


def _explicit_setup() -> events_pb2.ExplicitSetup:
    """A sandbox setup: the start player, the ring and the first three set-aside cards fixed."""
    kinds = [
        cards_pb2.LANDSCAPE_TYPE_CITY,
        cards_pb2.LANDSCAPE_TYPE_WASTELAND,
        cards_pb2.LANDSCAPE_TYPE_VILLAGE,
        cards_pb2.LANDSCAPE_TYPE_MEADOW,
        cards_pb2.LANDSCAPE_TYPE_FOREST,
        cards_pb2.LANDSCAPE_TYPE_RIVER,
    ]
    eagle, rose = cards_pb2.HOUSE_EAGLE, cards_pb2.HOUSE_ROSE
    # Each landscape type once with either house up; positions 0..11.
    ring = [events_pb2.RingLandscape(type=kind, house=eagle) for kind in kinds[::2]]
    ring += [events_pb2.RingLandscape(type=kind, house=rose) for kind in kinds[::2]]
    ring += [events_pb2.RingLandscape(type=kind, house=rose) for kind in kinds[1::2]]
    ring += [events_pb2.RingLandscape(type=kind, house=eagle) for kind in kinds[1::2]]
    return events_pb2.ExplicitSetup(
        start_player=2,
        ring=events_pb2.Ring(landscapes=ring),
        set_aside=cards_pb2.ActionCards(
            cards=[
                cards_pb2.ACTION_CARD_FARMER,
                cards_pb2.ACTION_CARD_TRAITOR,
                cards_pb2.ACTION_CARD_DIPLOMAT5,
            ]
        ),
    )


CASES = (
    Case("four-players", 4, ("Anna", "Bruno", "Clara", "Dario"), ("4 players", "ranked")),
    Case(
        "three-players-builder-may-move",
        3,
        ("Emil", "Frieda", "Gustav"),
        ("3 players", "builder_may_move", "ranked"),
        builder_may_move=True,
        prefer=_moves,
    ),
    Case(
        "bot-seats",
        4,
        ("Hanna", "Ilse"),
        ("4 players", "bot seats"),
        bots=(events_pb2.BOT_LEVEL_EASY, events_pb2.BOT_LEVEL_HARD),
    ),
    Case(
        "timer-stand-in",
        3,
        ("Jonas", "Karla", "Ludwig"),
        ("3 players", "timer stand-in"),
        turn_seconds=TURN_SECONDS,
        absence=(1, 3, 1),  # Karla misses her fourth decision
    ),
    Case(
        "bot-takeover",
        4,
        ("Marta", "Niklas", "Olga", "Paul"),
        ("4 players", "timer stand-in", "bot takeover"),
        turn_seconds=TURN_SECONDS,
        absence=(2, 10, None),  # Olga leaves after ten decisions; a bot plays on for her
    ),
    Case("early-end", 3, ("Quirin", "Rosa", "Sven"), ("3 players", "early end", "reshuffle")),
    Case(
        "explicit-setup",
        4,
        ("Tilda", "Ulrich", "Vera", "Walter"),
        ("4 players", "explicit setup"),
        setup=_explicit_setup(),
    ),
)


@dataclass
class Stack:
    backend: Backend
    config: Config
    lobby: lobby_pb2_grpc.LobbyServiceAsyncStub
    game: game_pb2_grpc.GameServiceAsyncStub
    address: str


@dataclass
class Played:
    """A finished game: its id, its log as GetLog answers, its records."""

    case: Case
    game_id: str
    entries: list[LogEntry]
    records: list[Record] = field(default_factory=list)


async def _guest(s: Stack, name: str) -> Metadata:
    request = lobby_pb2.RegisterGuestRequest(display_name=name, request_id=uuid.uuid4().hex)
    return bearer((await s.lobby.RegisterGuest(request)).session.token)


async def _open_table(s: Stack, case: Case, people: list[Metadata]) -> tuple[str, list[Metadata]]:
    """Open the case's table, seat its people and bots, start it: the game id and each
    person's seat token, by seat (people first, in order; bots take the seats after them)."""
    host = people[0]
    create = lobby_pb2.CreateTableRequest(
        size=case.size,
        builder_may_move=case.builder_may_move,
        turn_seconds=case.turn_seconds,
        request_id=uuid.uuid4().hex,
    )
    if case.setup is not None:
        create.setup.CopyFrom(case.setup)
    table = (await s.lobby.CreateTable(create, metadata=host)).table
    for person in people[1:]:
        join = lobby_pb2.JoinTableRequest(table_id=table.table_id, request_id=uuid.uuid4().hex)
        await s.lobby.JoinTable(join, metadata=person)
    for level in case.bots:
        add = lobby_pb2.AddBotRequest(
            table_id=table.table_id,
            level=level,  # type: ignore[arg-type]
            request_id=uuid.uuid4().hex,
        )
        await s.lobby.AddBot(add, metadata=host)
    start = lobby_pb2.StartGameRequest(table_id=table.table_id, request_id=uuid.uuid4().hex)
    table = (await s.lobby.StartGame(start, metadata=host)).table
    assert table.status == lobby_pb2.TABLE_STATUS_STARTED, table
    tokens: list[Metadata] = []
    for number, person in enumerate(people):
        seat = await s.lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=person
        )
        assert seat.seat == number, (seat.seat, number)
        tokens.append(bearer(seat.token))
    return table.game_id, tokens


async def _decide(
    s: Stack, game_id: str, token: Metadata, rng: random.Random, prefer: Prefer | None
) -> bool:
    """The person decides on their own view, at random among the legal commands (the
    preferred ones first); False when the game moved on first (ABORTED: decide again)."""
    mine = (await s.game.GetView(game_pb2.GetViewRequest(game_id=game_id), metadata=token)).view
    legal = list(mine.legal)
    if not legal:
        return False
    preferred = [command for command in legal if prefer is not None and prefer(command)]
    command = rng.choice(preferred or legal)
    request = game_pb2.SubmitCommandRequest(
        game_id=game_id,
        expected_version=mine.version,
        command_id=uuid.uuid4().hex,
        command=command,
    )
    try:
        await s.game.SubmitCommand(request, metadata=token)
    except aio.AioRpcError as error:
        if error.code() is not grpc.StatusCode.ABORTED:
            raise
        return False
    return True


async def _play(s: Stack, case: Case, game_id: str, tokens: list[Metadata], seed: int) -> None:
    """Play the people's decisions until the game ends, driven by a Watch stream of views."""
    rng = random.Random(seed)
    absence = Absence(*case.absence) if case.absence is not None else None
    watch = s.game.Watch(
        game_pb2.WatchRequest(game_id=game_id, mode=game_pb2.WATCH_MODE_VIEWS), metadata=tokens[0]
    )
    waiting_for_stand_in: int | None = None  # the version an away person's turn came at
    async with asyncio.timeout(600):
        async for response in watch:
            view: view_pb2.PlayerView = response.update.view
            if view.phase == events_pb2.PHASE_GAME_OVER:
                watch.cancel()
                return
            if absence is not None and waiting_for_stand_in is not None:
                if view.version > waiting_for_stand_in:
                    absence.missed += 1
                waiting_for_stand_in = None
            acting = [seat for seat in view.turn.seats if seat < len(tokens)]
            present = [seat for seat in acting if absence is None or not absence.away(seat)]
            for seat in present:
                decided = await _decide(s, game_id, tokens[seat], rng, case.prefer)
                if decided and absence is not None and seat == absence.person:
                    absence.made += 1
            if acting and not present and set(acting) == set(view.turn.seats):
                # Only the away person must decide: their turn timer runs out, a bot stands in.
                assert view.turn.HasField("deadline"), "a timed table shows the deadline"
                waiting_for_stand_in = view.version
    raise AssertionError(f"the watch of {game_id} ended before the game did")


async def _play_case(s: Stack, case: Case, attempt: int) -> Played:
    people = [await _guest(s, name) for name in case.people]
    game_id, tokens = await _open_table(s, case, people)
    await _play(s, case, game_id, tokens, seed=attempt)
    # What `verrater export` fetches: the log as stored, over GetLog.
    entries = await fetch_log(game_id, server=s.address, issuer=s.config.issuer)
    return Played(case, game_id, entries, [entry.record() for entry in entries])


def covers(records: Sequence[Record]) -> list[str]:
    """Every case of corpus.COVERS the log shows."""
    return [name for name, shows in COVERS.items() if shows(records)]


async def record_case(s: Stack, case: Case) -> Played:
    """Play the case's game until one shows every case it is there for."""
    for attempt in range(ATTEMPTS):
        played = await _play_case(s, case, attempt)
        shown = covers(played.records)
        missing = [name for name in case.wanted if name not in shown]
        print(f"{case.name}: game {played.game_id} shows {shown}", file=sys.stderr)
        if not missing:
            return played
    raise RuntimeError(f"{case.name}: no game in {ATTEMPTS} showed {missing}")


async def stored_stream(s: Stack, game_id: str) -> StoredStream:
    """The game's stream as it sits in Redis: every entry's id and fields, in order."""
    assert s.config.redis_url is not None
    key = f"verrater:{{{game_id}}}:events"
    client = aioredis.Redis.from_url(s.config.redis_url)
    try:
        raw: list[tuple[bytes, dict[bytes, bytes]]] = await client.xrange(key)  # type: ignore[assignment]
    finally:
        await client.aclose()
    # Each entry's fields come in the entry's order.
    entries = [StreamEntry(entry_id, tuple(fields.items())) for entry_id, fields in raw]
    return StoredStream(key, game_id, tuple(entries))


def expected(played: Played) -> dict[str, Any]:
    """What today's code reads from the game: every later release must read the same."""
    records = played.records
    ended = records[-1].event
    assert isinstance(ended, GameEnded)
    result = game_result(played.game_id, records)
    report = audit(played.entries)
    assert report.ok, report.summary()
    return {
        "events": len(played.entries),
        "head": played.entries[-1].hash,
        "decisions": sum(1 for record in records if record.seat >= 0),
        "rounds": sum(1 for record in records if isinstance(record.event, RoundStarted)),
        "seats": [
            [seat.player_id, seat.name, seat.bot_level.value if seat.bot_level else ""]
            for seat in result.seats
        ],
        "final_vp": list(ended.final_vp),
        "winners": list(ended.winners),
        "early": ended.early,
        "unranked_reason": result.unranked_reason.value,
        "replaced_by_bot": [seat.seat for seat in result.seats if seat.replaced_by_bot],
        "explicit": list(report.explicit),
    }


def _commit() -> str:
    """The commit the corpus was recorded from (marked when the tree had changes)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, cwd=HERE
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "services", "proto"],
            capture_output=True,
            text=True,
            check=True,
            cwd=HERE,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" with uncommitted changes" if dirty else "")


async def record(release: str, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="verrater-corpus-") as work:
        server = start_private_redis(Path(work))
        config = Config(
            bind="127.0.0.1:0",
            token_secret=secrets.token_hex(32),
            redis_url=server.url,
            bots="inprocess",
            command_rate=0,
            lobby_rate=0,
        )
        backend = await start_backend(config, frozenset({"game", "lobby", "ai"}))
        address = f"127.0.0.1:{backend.port}"
        channel = aio.insecure_channel(address)
        s = Stack(
            backend,
            config,
            lobby_pb2_grpc.LobbyServiceStub(channel),
            game_pb2_grpc.GameServiceStub(channel),
            address,
        )
        try:
            played = [await record_case(s, case) for case in CASES]
            streams = [await stored_stream(s, game.game_id) for game in played]
            version = server.version
        finally:
            await channel.close()
            await backend.stop(None)
            server.stop()
    out.mkdir(parents=True)
    games = []
    for game, stream in zip(played, streams, strict=True):
        export, stored = f"{game.case.name}.jsonl", f"{game.case.name}.stream.jsonl"
        with (out / export).open("w", encoding="utf-8") as file:
            write_jsonl(game.entries, file, game_id=game.game_id)
        with (out / stored).open("w", encoding="utf-8") as file:
            write_stream(stream, file)
        games.append(
            {
                "name": game.case.name,
                "game_id": game.game_id,
                "covers": covers(game.records),
                "export": export,
                "stream": stored,
                "expected": expected(game),
            }
        )
    manifest = {
        "release": release,
        "recorded_with": f"make corpus RELEASE={release}",
        "recorded_on": datetime.date.today().isoformat(),
        "commit": _commit(),
        "redis": version,
        "games": games,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", help="the release the games are recorded for, e.g. v1.1.0")
    parser.add_argument(
        "--out", type=Path, help="write there instead of tests/corpus/RELEASE (a trial run)"
    )
    args = parser.parse_args(argv)
    out: Path = args.out if args.out is not None else HERE / args.release
    if out.exists():
        print(
            f"{out} exists: a release's corpus is recorded once and never again "
            "(tests/corpus/README.md)",
            file=sys.stderr,
        )
        return 2
    asyncio.run(record(args.release, out))
    print(f"recorded {len(CASES)} games in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
