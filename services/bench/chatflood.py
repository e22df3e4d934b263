"""The chat attacks of `verrater bench abuse`: a thousand chat watchers on one table, and a
chat flood at that table from its seated players and its spectators at once.

A table of four guests is started; `watchers` WatchChat streams follow its chat (spread over a
few connections and over guests, as the per-player stream limit wants: one address holds them
all, so the benchmark's server allows that many streams per address). Eight senders (the four
seated players, four spectators), four calls each at a time, send as fast as the server answers
for `seconds`: the per-player and per-table rates refuse most (RATE_LIMITED), and every message
accepted must reach every watcher the server took (past its watchers per table it refuses the
rest, TOO_MANY_STREAMS: `chat_watchers_refused`). Figures: what was sent and accepted, the rate
accepted in the second half (once the bursts are spent), how many watchers the server took
received every accepted message (`chat_watchers_complete`), the
99th percentile from a message's acceptance to its arrival at a watcher, the server's memory
growth with the watchers open and the flood over, UNKNOWN or INTERNAL answers, and other
failures of a send (`chat_failed`: neither accepted nor refused for its rate).

The attackers run in a process of their own (`in_a_process`, `python -m
services.bench.chatflood`), as clients elsewhere would: a thousand streams read in the
benchmark's own event loop would delay the canary's calls there, and its latency would measure
the benchmark instead of the server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc import aio

from services.api.verrater.v1 import chat_pb2, chat_pb2_grpc, lobby_pb2, lobby_pb2_grpc
from services.rpc import bearer

from .common import percentile, rss_mb

#: Connections the watchers' streams are spread over.
WATCHER_CONNECTIONS = 8
#: Streams one watching guest holds (the per-player limit is 32).
STREAMS_PER_WATCHER = 25
NEVER = (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


@dataclass
class _Heard:
    """What the watchers received: per watcher the cursors, and when each arrived; and the
    watchers the server refused (TOO_MANY_STREAMS: the table has as many as one server
    serves)."""

    arrivals: list[dict[str, float]] = field(default_factory=list)
    refused: set[int] = field(default_factory=set)


async def _guests(lobby: Any, names: list[str]) -> list[tuple[str, tuple[tuple[str, str]]]]:
    found = []
    for name in names:
        session = (
            await lobby.RegisterGuest(lobby_pb2.RegisterGuestRequest(display_name=name))
        ).session
        found.append((session.player_id, bearer(session.token)))
    return found


async def _started_table(lobby: Any, seated: list[tuple[str, tuple[tuple[str, str]]]]) -> str:
    host = seated[0][1]
    table_id: str = (
        await lobby.CreateTable(lobby_pb2.CreateTableRequest(size=4), metadata=host)
    ).table.table_id
    for _, metadata in seated[1:]:
        await lobby.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id), metadata=metadata)
    await lobby.StartGame(lobby_pb2.StartGameRequest(table_id=table_id), metadata=host)
    return table_id


async def _watch(call: Any, heard: _Heard, number: int, ready: asyncio.Event) -> None:
    arrivals = heard.arrivals[number]
    try:
        await call.initial_metadata()  # the server took the stream, or refused it
        ready.set()
        async for response in call:
            arrivals[response.message.cursor] = time.monotonic()
    except grpc.aio.AioRpcError as error:
        if error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED:
            heard.refused.add(number)
    except asyncio.CancelledError:
        pass
    finally:
        ready.set()


async def chat_attack(port: int, pid: int, *, watchers: int, seconds: float) -> dict[str, Any]:
    """Open the watchers, flood the table, wait for the watchers to hear it all; the figures."""
    address = f"127.0.0.1:{port}"
    channels = [aio.insecure_channel(address) for _ in range(WATCHER_CONNECTIONS)]
    try:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channels[0])
        chat = chat_pb2_grpc.ChatServiceStub(channels[0])
        seated = await _guests(lobby, [f"Talker {n}" for n in range(4)])
        stands = await _guests(lobby, [f"Heckler {n}" for n in range(4)])
        table_id = await _started_table(lobby, seated)
        count = -(-watchers // STREAMS_PER_WATCHER)
        audience = await _guests(lobby, [f"Listener {n}" for n in range(count)])
        before = rss_mb(pid)
        heard = _Heard()
        tasks = []
        readies = []
        for number in range(watchers):
            stub = chat_pb2_grpc.ChatServiceStub(channels[number % WATCHER_CONNECTIONS])
            _, metadata = audience[number // STREAMS_PER_WATCHER]
            call = stub.WatchChat(chat_pb2.WatchChatRequest(table_id=table_id), metadata=metadata)
            heard.arrivals.append({})
            ready = asyncio.Event()
            readies.append(ready)
            tasks.append(asyncio.create_task(_watch(call, heard, number, ready)))
        await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in readies)), 120)
        accepted: dict[str, float] = {}
        unknown = sent = failed = 0
        start = time.monotonic()
        deadline = start + seconds

        async def flooder(metadata: tuple[tuple[str, str]], number: int) -> None:
            nonlocal unknown, sent, failed
            while time.monotonic() < deadline:
                sent += 1
                request = chat_pb2.SendChatMessageRequest(
                    table_id=table_id, text=f"flood {number} {sent} " + "spam " * 40
                )
                try:
                    answer = await chat.SendChatMessage(request, metadata=metadata)
                    accepted[answer.message.cursor] = time.monotonic()
                except grpc.aio.AioRpcError as error:
                    if error.code() in NEVER:
                        unknown += 1
                    elif error.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
                        failed += 1  # counted and shown, not hidden: see chat_failed

        senders = [metadata for _, metadata in seated + stands]
        await asyncio.gather(
            *(flooder(metadata, n) for n, metadata in enumerate(senders) for _ in range(4))
        )
        # Every accepted message on its way to every watcher served: wait (a minute at most).
        settle = time.monotonic() + 60

        def served() -> list[dict[str, float]]:
            return [got for n, got in enumerate(heard.arrivals) if n not in heard.refused]

        while time.monotonic() < settle and not all(
            accepted.keys() <= arrivals.keys() for arrivals in served()
        ):
            await asyncio.sleep(0.1)
        after = rss_mb(pid)
        complete = sum(1 for arrivals in served() if accepted.keys() <= arrivals.keys())
        delays = [
            (arrived - accepted[cursor]) * 1000
            for arrivals in heard.arrivals
            for cursor, arrived in arrivals.items()
            if cursor in accepted
        ]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for channel in channels:
            await channel.close()
    half = start + seconds / 2
    return {
        "chat_sent": sent,
        "chat_accepted": len(accepted),
        "chat_accepted_per_s": round(
            sum(1 for at in accepted.values() if at >= half) / (seconds / 2), 2
        ),
        "chat_watchers": watchers,
        "chat_watchers_refused": len(heard.refused),
        "chat_watchers_complete": complete,
        "chat_delivery_p99_ms": round(percentile(delays, 0.99), 1),
        "chat_rss_growth_mb": round(after - before, 1),
        "chat_unknown_statuses": unknown,
        "chat_failed": failed,
    }


async def in_a_process(port: int, pid: int, *, watchers: int, seconds: float) -> dict[str, Any]:
    """`chat_attack` in a process of its own (see the module docstring); its figures."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.bench.chatflood",
        str(port),
        str(pid),
        str(watchers),
        str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the chat attack failed (exit status {child.returncode})")
    figures: dict[str, Any] = json.loads(out)
    return figures


def main(argv: list[str]) -> None:
    """PORT PID WATCHERS SECONDS: the chat attack on a server; its figures as JSON."""
    port, pid, watchers, seconds = int(argv[0]), int(argv[1]), int(argv[2]), float(argv[3])
    figures = asyncio.run(chat_attack(port, pid, watchers=watchers, seconds=seconds))
    print(json.dumps(figures))


if __name__ == "__main__":
    main(sys.argv[1:])
