"""Finished games for the stats tests: played by random legal moves in memory, no servers."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from services.codec import Record, encode_record
from services.engine import (
    CreateGame,
    ExplicitSetup,
    Phase,
    Ruleset,
    SeatAssignment,
    execute,
    initial_state,
    legal_commands,
    to_act,
)
from services.engine.events import GameEnded
from services.eventstore import EventStore, InMemoryEventStore, RedisEventStore
from services.stats import InMemoryStats, RedisStats, StatsProjection, StatsProjector
from services.stats.feed import INBOX_KEY
from services.stats.projector import GROUP


def humans(*names: str) -> tuple[SeatAssignment, ...]:
    """People at a table, their player ids derived from their names."""
    return tuple(SeatAssignment(f"p-{name.lower()}", name) for name in names)


def with_bot(seats: tuple[SeatAssignment, ...], seat: int) -> tuple[SeatAssignment, ...]:
    bot = SeatAssignment(f"bot-{seat}", f"Bot {seat + 1} (normal)", "normal")
    return seats[:seat] + (bot,) + seats[seat + 1 :]


def played_game(
    seats: Sequence[SeatAssignment],
    *,
    ranked: bool = True,
    seed: int = 0,
    setup: ExplicitSetup | None = None,
    timed_out_seat: int | None = None,
    players: int | None = None,
) -> list[Record]:
    """A complete game's records, as the game service stores them. With `timed_out_seat`, that
    seat's first decision is recorded as made by a bot after its turn timer ran out."""
    rng = random.Random(seed)
    ruleset = Ruleset.standard(players or len(seats))
    command = CreateGame(ruleset, rng.randbytes(32), setup, tuple(seats), ranked, 30)
    events, state = execute(initial_state(), command)
    records = [Record(event) for event in events]
    timer_ran_out = False
    while state.phase is not Phase.GAME_OVER:
        seat = to_act(state)[0]
        batch, state = execute(state, rng.choice(legal_commands(state, seat)))
        expired = seat == timed_out_seat and not timer_ran_out
        timer_ran_out = timer_ran_out or expired
        records.append(Record(batch[0], uuid.uuid4().hex, expired))
        records.extend(Record(event) for event in batch[1:])
    return records


def decisive_game(seats: Sequence[SeatAssignment], first_seed: int = 0) -> tuple[int, list[Record]]:
    """A ranked game with one winner (no tie for the most VP): the winner's seat, the records."""
    for seed in range(first_seed, first_seed + 100):
        records = played_game(seats, seed=seed)
        ended = records[-1].event
        assert isinstance(ended, GameEnded)
        if len(ended.winners) == 1:
            return ended.winners[0], records
    raise AssertionError("no decisive game in 100 seeds")


async def store_game(store: EventStore, game_id: str, records: Sequence[Record]) -> None:
    await store.append(game_id, 0, [encode_record(record) for record in records])


@dataclass
class Harness:
    """A projection over an event store, and how to get a finished game into it."""

    kind: str
    store: EventStore
    stats: StatsProjection
    projector: StatsProjector | None = None

    async def finish(self, game_id: str, records: Sequence[Record]) -> None:
        """Store the game, announce its end, and let the projection catch up."""
        await store_game(self.store, game_id, records)
        await self.announce(game_id)

    async def announce(self, game_id: str) -> None:
        await self.stats.record_finished(game_id)
        await self.catch_up()

    async def catch_up(self) -> None:
        if self.projector is not None:
            while await self.projector.step():
                pass

    async def pending(self) -> int:
        """Inbox entries delivered but not acknowledged (Redis only)."""
        assert isinstance(self.stats, RedisStats)
        summary = await self.stats.redis.xpending(INBOX_KEY, GROUP)
        return int(summary["pending"])


@asynccontextmanager
async def harness(kind: str, redis_url: str | None) -> AsyncIterator[Harness]:
    if kind == "memory":
        store = InMemoryEventStore()
        yield Harness(kind, store, InMemoryStats(store))
        return
    assert redis_url is not None
    async with RedisEventStore.from_url(redis_url) as redis_store:
        stats = RedisStats.from_url(redis_url)
        projector = StatsProjector(stats, redis_store, consumer="test", block_ms=20)
        try:
            yield Harness(kind, redis_store, stats, projector)
        finally:
            await stats.close()
