"""A client process as a phone app is: it keeps only its player id and credential on disk.

`python -m tests.support.rejoining_client SERVER STATE_FILE DECISIONS`:

- Without a state file: registers a guest, stores {player_id, credential} in STATE_FILE (and
  nothing else), opens a table against three bots, plays DECISIONS of its decisions over a
  `Play` stream, prints `PLAYED <game_id> <version>` and then waits, mid-game, to be killed.
- With one: signs in with the stored credential, finds its running game with ListMyGames, gets
  its seat token, resumes `Play` where the game stands (from version 0: the current turn, if the
  seat must decide now; a process that kept nothing but its credential has seen no version),
  plays the game to its end and prints `FINISHED <game_id> <final version> <winners>`.

It uses the public API only, as any client in any language would.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import uuid
from pathlib import Path

from grpc import aio

from services.api.verrater.v1 import (
    events_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)


def _bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


async def _play(
    game: game_pb2_grpc.GameServiceAsyncStub,
    token: str,
    game_id: str,
    from_version: int,
    decisions: int | None,
) -> tuple[int, list[int]]:
    """Play the seat over `Play` until `decisions` were applied (None: to the end)."""
    rng = random.Random()
    call = game.Play(metadata=_bearer(token))
    await call.write(
        game_pb2.PlayRequest(open=game_pb2.PlayOpen(game_id=game_id, from_version=from_version))
    )
    applied = 0
    version = from_version
    while True:
        message = await call.read()
        if message is aio.EOF:
            raise SystemExit("the stream ended before the game did")
        if message.HasField("result"):
            if message.result.HasField("applied"):
                applied += 1
                version = message.result.applied.version
                if decisions is not None and applied >= decisions:
                    call.cancel()
                    return version, []
            continue
        view = message.turn.view
        version = message.turn.version
        if view.phase == events_pb2.PHASE_GAME_OVER:
            return version, list(view.winners)
        await call.write(
            game_pb2.PlayRequest(
                command=game_pb2.SubmitCommandRequest(
                    expected_version=version,
                    command_id=uuid.uuid4().hex,
                    command=rng.choice(list(view.legal)),
                )
            )
        )


async def first_run(server: str, state_file: Path, decisions: int) -> None:
    async with aio.insecure_channel(server) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        game = game_pb2_grpc.GameServiceStub(channel)
        session = (
            await lobby.RegisterGuest(
                lobby_pb2.RegisterGuestRequest(display_name="Phone", request_id=uuid.uuid4().hex)
            )
        ).session
        state_file.write_text(
            json.dumps({"player_id": session.player_id, "credential": session.credential})
        )
        me = _bearer(session.token)
        table = (await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=me)).table
        for _ in range(3):
            await lobby.AddBot(
                lobby_pb2.AddBotRequest(table_id=table.table_id, level=events_pb2.BOT_LEVEL_EASY),
                metadata=me,
            )
        table = (
            await lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table.table_id), metadata=me)
        ).table
        seat = await lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=table.table_id), metadata=me
        )
        version, _ = await _play(game, seat.token, table.game_id, 0, decisions)
        print(f"PLAYED {table.game_id} {version}", flush=True)
        await asyncio.Event().wait()  # mid-game: wait to be killed


async def second_run(server: str, state_file: Path) -> None:
    stored = json.loads(state_file.read_text())
    async with aio.insecure_channel(server) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        game = game_pb2_grpc.GameServiceStub(channel)
        session = (
            await lobby.SignIn(
                lobby_pb2.SignInRequest(
                    player_id=stored["player_id"], credential=stored["credential"]
                )
            )
        ).session
        me = _bearer(session.token)
        mine = await lobby.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=me)
        running = [g for g in mine.games if g.game_id and not g.finished]
        if len(running) != 1:
            raise SystemExit(f"expected one running game, ListMyGames says {mine}")
        entry = running[0]
        seat = await lobby.GetSeatToken(
            lobby_pb2.GetSeatTokenRequest(table_id=entry.table_id), metadata=me
        )
        print(f"RESUMING {entry.game_id} {entry.version}", flush=True)
        version, winners = await _play(game, seat.token, entry.game_id, 0, None)
        print(f"FINISHED {entry.game_id} {version} {winners}", flush=True)


def main() -> None:
    server, state_file, decisions = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    if state_file.exists():
        asyncio.run(second_run(server, state_file))
    else:
        asyncio.run(first_run(server, state_file, decisions))


if __name__ == "__main__":
    main()
