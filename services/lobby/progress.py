"""Where each started game of a table stands, kept beside the lobby's records so that
ListMyGames answers without asking the game service (and without loading a game).

The game replica that appends a batch (or announces a state again: a cold load, the sweeper's
looks) posts the state's summary here through its handlers (services/handlers.py,
`record_progress`): version, round, the seats that must decide, the deadline of that decision,
and once the game is over every seat's final VP. A board keeps one summary per game, never
an older version over a newer one (two replicas may post out of order), so what ListMyGames
shows is at most the few milliseconds of the board's writer behind the game's log, and
GetView stays the truth. A game with no summary (started before the board existed, or whose
replica died between its append and the write, until the sweeper's next look announces it
again) is asked of the game service as before.

Posting never waits: the board coalesces what is posted per game (only the newest counts) and
writes it in the background, in batches, retrying while the store is away.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from services.engine import GameState, Phase, competition_ranks, whose_turn
from services.errors import ServiceError
from services.tasks import cancel_and_wait

from .model import GameProgress

log = logging.getLogger("verrater.lobby.progress")

#: Summaries written per round trip at most.
BATCH = 200
#: Games whose summary may wait to be written (while the store is away) before the oldest go:
#: a dropped summary only sends ListMyGames to the game service for that game.
MAX_PENDING = 100_000
_RETRY_FIRST_DELAY = 0.05
_RETRY_MAX_DELAY = 2.0


@dataclass(frozen=True, slots=True)
class GameSummary:
    """Where a game stands, for every seat at once."""

    version: int
    round: int
    #: The seats that must decide now (empty when nobody must, and once the game is over).
    turn: tuple[int, ...] = ()
    #: When the awaited decision is due (Unix ms); None without a turn timer.
    deadline_ms: int | None = None
    #: Every seat's final VP, once the game is over; empty while it runs.
    final_vp: tuple[int, ...] = ()

    @property
    def finished(self) -> bool:
        return bool(self.final_vp)

    def progress(self, seat: int | None) -> GameProgress:
        """What ListMyGames shows `seat` (None: the host who sits out) of the game."""
        if not self.finished:
            return GameProgress(
                round=self.round,
                version=self.version,
                your_turn=seat is not None and seat in self.turn,
                deadline_ms=self.deadline_ms,
            )
        if seat is None or not 0 <= seat < len(self.final_vp):
            return GameProgress(round=self.round, version=self.version, finished=True)
        return GameProgress(
            round=self.round,
            version=self.version,
            finished=True,
            final_vp=self.final_vp[seat],
            rank=competition_ranks(self.final_vp)[seat],
        )

    def to_json(self) -> str:
        data: dict[str, object] = {"v": self.version, "r": self.round}
        if self.turn:
            data["t"] = list(self.turn)
        if self.deadline_ms is not None:
            data["d"] = self.deadline_ms
        if self.final_vp:
            data["f"] = list(self.final_vp)
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes) -> GameSummary:
        data = json.loads(raw)
        deadline = data.get("d")
        return cls(
            version=int(data["v"]),
            round=int(data["r"]),
            turn=tuple(int(seat) for seat in data.get("t", ())),
            deadline_ms=int(deadline) if deadline is not None else None,
            final_vp=tuple(int(vp) for vp in data.get("f", ())),
        )


def summarize(state: GameState, deadline_ms: int | None) -> GameSummary:
    """The summary of a state at rest (`deadline_ms` as its announcement says)."""
    if state.phase is Phase.GAME_OVER:
        return GameSummary(state.version, state.round, final_vp=tuple(state.vp))
    turn = whose_turn(state).seats
    return GameSummary(state.version, state.round, turn, deadline_ms if turn else None)


class ProgressBoard(abc.ABC):
    """The games' summaries: posted by the game replicas' handlers, read by ListMyGames."""

    def __init__(self, *, max_pending: int = MAX_PENDING) -> None:
        self._pending: dict[str, GameSummary] = {}
        self._max_pending = max_pending
        self._writer: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def post(self, game_id: str, summary: GameSummary) -> None:
        """Keep `summary` of the game (from inside the event loop; never waits). A summary
        older than the one kept or waiting is ignored."""
        waiting = self._pending.get(game_id)
        if waiting is not None and waiting.version >= summary.version:
            return
        self._pending.pop(game_id, None)  # re-inserted last: the oldest are dropped first
        self._pending[game_id] = summary
        while len(self._pending) > self._max_pending:
            dropped = next(iter(self._pending))
            del self._pending[dropped]
            log.warning("progress board full: summary of game %s dropped", dropped)
        self._idle.clear()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(
                self._write_pending(), name="progress-board-writer"
            )

    async def drain(self) -> None:
        """Wait until everything posted so far is written (or dropped)."""
        await self._idle.wait()

    @abc.abstractmethod
    async def summaries(self, game_ids: Sequence[str]) -> dict[str, GameSummary]:
        """The kept summaries of these games (a game without one is left out), in one round
        trip. STORE_UNAVAILABLE when the store cannot be reached."""

    @abc.abstractmethod
    async def _write(self, batch: Sequence[tuple[str, GameSummary]]) -> None:
        """Keep each summary unless the game's kept one is as new (one round trip)."""

    async def _write_pending(self) -> None:
        delay = _RETRY_FIRST_DELAY
        while self._pending:
            batch = []
            for game_id in list(self._pending)[:BATCH]:
                batch.append((game_id, self._pending.pop(game_id)))
            try:
                await self._write(batch)
                delay = _RETRY_FIRST_DELAY
            except ServiceError as error:
                for game_id, summary in batch:  # unless a newer one came meanwhile
                    if game_id not in self._pending:
                        self._pending[game_id] = summary
                log.warning("writing %d game summaries failed (%s); retry", len(batch), error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX_DELAY)
            except Exception:
                log.exception("could not write %d game summaries; dropped", len(batch))
        self._idle.set()

    async def close(self, timeout: float = 2.0) -> None:
        """Write what is waiting (for at most `timeout` seconds), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.drain()
        if self._writer is not None:
            await cancel_and_wait(self._writer)
            self._writer = None


class InMemoryProgressBoard(ProgressBoard):
    """The embedded board: a dict, shared by the game and the lobby of one process."""

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[str, GameSummary] = {}

    async def summaries(self, game_ids: Sequence[str]) -> dict[str, GameSummary]:
        return {game_id: self._kept[game_id] for game_id in game_ids if game_id in self._kept}

    async def _write(self, batch: Sequence[tuple[str, GameSummary]]) -> None:
        for game_id, summary in batch:
            kept = self._kept.get(game_id)
            if kept is None or kept.version < summary.version:
                self._kept[game_id] = summary
