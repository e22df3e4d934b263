"""Turn timers on Redis, shared by every game replica.

Each game's wake-up sits in a bucket: a sorted set ``<prefix>:{<tag>}:wake`` (game id -> wake
time in ms) and a hash ``<prefix>:{<tag>}:version`` (game id -> the version that set it), the two
sharing a hash tag so that one script sets both.

- On a standalone Redis there is one bucket, tag ``timers``.
- On a Redis Cluster there is a bucket per slot, and a game's is the bucket of its own slot
  (``bucket_tag``: a tag that hashes to that slot). So a game's wake-up lives on the master that
  holds its events, moves with them when the slot moves, and no master's failure touches
  another master's games: the single ``{timers}`` bucket of earlier releases put every game's
  wake-up, written before each append, on one master, whose pause stopped every game. A
  sweeper claims per master, over the buckets of the slots that master serves, in one script
  (``claim.lua``, flagged ``allow-cross-slot-keys``, the buckets named as arguments: a cluster
  refuses declared keys of several slots; Redis 7.0 or later), and the masters answer each on
  their own. A sweep costs what is due and one look per bucket it names, never a call
  per game. Wake-ups left in the old ``{timers}`` bucket are moved to their games' buckets by
  the first sweep that can reach it.

  A sweeper does not name every bucket at every sweep: a look at all 16,384 made each master
  spend 90-100 ms of CPU a second with every game idle (two replicas sweeping twice a second).
  Each claim replies every named bucket's earliest wake-up; the sweeper remembers them, adds
  the wake-ups its own replica sets, and names only the buckets due. Within every
  `FULL_SWEEP_S` it names them all again, a slice at a time (as many slots as the time since
  the last slice is of `FULL_SWEEP_S`, once that is `ROLLING_SLICE_MIN`), which is how it
  learns of wake-ups other replicas set: a replica's own wake-ups fire on time, and one set by
  a replica that died since waits at most that long more. Named all at once, the 16,384
  buckets held the replica's event loop for up to 7 ms and each master for 3-4 ms a script,
  five or six scripts in a row, every `FULL_SWEEP_S`: a cold load on the cluster then stalled
  15-30 ms (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from typing import Any, TypeAlias, cast

from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import NoScriptError

from services.eventstore import (
    TRANSIENT_REDIS_ERRORS,
    AnyRedis,
    StoreUnavailable,
    primaries_of,
    redis_client,
    slots_by_primary,
)

from .earliest import EarliestWakeUps
from .port import Due, TurnTimers

log = logging.getLogger("verrater.game.timers")

SLOTS = 16384
#: The bucket of every game on a standalone Redis (and of every game on a cluster, before this
#: release: see the module docstring).
STANDALONE_TAG = "timers"
#: Buckets named in one claim script: about a millisecond of one master's time.
BUCKETS_PER_CALL = 1024
#: The longest one call to one master may take (a paused master must not hold up a sweep).
CALL_TIMEOUT_S = 2.0
#: How long a claim on a cluster waits for every master before it hands out what the others
#: found: a master slower than that (paused, failing over) holds up only its own games, whose
#: claim goes on (up to `CALL_TIMEOUT_S`) and is handed out by a later claim.
CLAIM_PATIENCE_S = 0.2
#: Entries moved from the old single bucket per step of its migration.
MIGRATE_BATCH = 500
#: The fewest slots the rolling look at every bucket names in one claim: under load a replica
#: claims some 46 times a second, and a slice of some 70 slots each time was one or two more
#: scripts a claim (a command's CPU all in went from 9.4 to 10.4 ms at 200 a second).
ROLLING_SLICE_MIN = BUCKETS_PER_CALL // 2
#: How often a sweeper on a cluster names every bucket of every master (see the module
#: docstring): the most a wake-up set by a replica that died since may wait beyond its time.
FULL_SWEEP_S = 5.0

_SET = resources.files(__package__).joinpath("set.lua").read_text()
_CLAIM = resources.files(__package__).joinpath("claim.lua").read_text()
#: The claim over buckets of many slots of one master.
_CLAIM_ACROSS_SLOTS = "#!lua flags=allow-cross-slot-keys\n" + _CLAIM
_SHA = {
    script: hashlib.sha1(script.encode()).hexdigest()
    for script in (_SET, _CLAIM, _CLAIM_ACROSS_SLOTS)
}


_Claim: TypeAlias = tuple["asyncio.Future[tuple[list[str], dict[int, int]]]", list[int], int]
"""A claim on one master under way or done: its task, the slots it names, and the count of the
replica's sets when it began (what :meth:`RedisTurnTimers._learn` keeps)."""


@functools.cache
def _tags() -> tuple[str, ...]:
    """For each slot, the first of ``t0``, ``t1``, ... that hashes to it (the same in every
    process: the table is computed, about 0.1 s once per process, never stored)."""
    tags: list[str | None] = [None] * SLOTS
    missing, number = SLOTS, 0
    while missing:
        tag = f"t{number}"
        slot = key_slot(tag.encode())
        if tags[slot] is None:
            tags[slot] = tag
            missing -= 1
        number += 1
    return tuple(tag for tag in tags if tag is not None)


def bucket_tag(slot: int) -> str:
    """The hash tag of the timer bucket of cluster slot ``slot``: a string in that slot."""
    return _tags()[slot]


@functools.lru_cache(maxsize=64)
def _bucket_tags(slots: tuple[int, ...]) -> str:
    """The hash tags of these slots' buckets, separated by spaces: one argument of a claim
    (claim.lua makes the keys), not one per bucket, for the client to pack one by one (about
    40 ms of CPU a sweep over 16,384 buckets). A master's slots change rarely: kept."""
    return " ".join(bucket_tag(slot) for slot in slots)


def game_slot(game_id: str) -> int:
    """The cluster slot of every key of the game (they share the hash tag ``{<game id>}``)."""
    return int(key_slot(f"{{{game_id}}}".encode()))


@contextlib.asynccontextmanager
async def _as_store_errors() -> AsyncIterator[None]:
    """Redis unreachable, busy, failing over or slower than `CALL_TIMEOUT_S` is the timers'
    store being unavailable."""
    try:
        async with asyncio.timeout(CALL_TIMEOUT_S):
            yield
    except TRANSIENT_REDIS_ERRORS as error:
        raise StoreUnavailable(f"turn timers unreachable: {error!r}") from error


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisTurnTimers(TurnTimers):
    """Timers on Redis (see the module docstring): one bucket on a standalone Redis, a bucket
    per slot on a Redis Cluster."""

    def __init__(
        self,
        client: AnyRedis,
        key_prefix: str = "verrater",
        *,
        full_sweep_s: float = FULL_SWEEP_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = client
        self._prefix = key_prefix
        self._cluster = isinstance(client, RedisCluster)
        self._legacy_left = self._cluster  # the old single bucket may still hold wake-ups
        # On a cluster (see the module docstring): each non-empty bucket's earliest wake-up as
        # last seen or set here, by slot; which set last touched each slot (a claim's reply,
        # read before that set, must not forget it); and the rolling look at every bucket: the
        # next slot it names, and when it last advanced (None: no claim yet, so all at once).
        self._full_sweep_s = full_sweep_s
        self._monotonic = monotonic
        self._earliest = EarliestWakeUps()
        self._touched: dict[int, int] = {}
        self._sets = 0
        self._cursor = 0
        self._rolled_at: float | None = None
        #: Claims on a master not handed out yet (under way on a slow master), by its name: a
        #: master is not named again until its claim is done and handed out.
        self._pending: dict[str, _Claim] = {}

    @classmethod
    def from_url(cls, url: str) -> RedisTurnTimers:
        """Timers on the Redis (or cluster) at ``url``. Every call is bounded by
        `CALL_TIMEOUT_S` (an ``asyncio.timeout``), so the client has no socket timeout: with
        one, redis-py sends and reads each command through ``asyncio.wait_for``, a task of its
        own each time, on the path of every person's command (the wake-up set before its
        append)."""
        return cls(redis_client(url, socket_timeout=None))

    def _keys(self, tag: str) -> tuple[str, str]:
        return f"{self._prefix}:{{{tag}}}:wake", f"{self._prefix}:{{{tag}}}:version"

    def keys_of(self, game_id: str) -> tuple[str, str]:
        """The game's bucket: its wake times and its versions keys."""
        if not self._cluster:
            return self._keys(STANDALONE_TAG)
        return self._keys(bucket_tag(game_slot(game_id)))

    async def _script(
        self, script: str, keys: Sequence[str], args: Sequence[Any], **at: Any
    ) -> Any:
        """``EVALSHA`` of one of the scripts (``EVAL`` where the server does not know it yet);
        ``at``: ``target_nodes`` on a cluster, for keys of several slots."""
        tail = (len(keys), *keys, *args)
        try:
            return await self._redis.execute_command("EVALSHA", _SHA[script], *tail, **at)
        except NoScriptError:
            return await self._redis.execute_command("EVAL", script, *tail, **at)

    def _remember(self, game_id: str, wake_ms: int) -> None:
        """A wake-up this replica sets: its bucket is due by then (a cleared or later one only
        makes the bucket's remembered time early, which the next claim of it corrects). Called
        before the write and again once it is done: a claim under way meanwhile may have read
        the bucket without it, and must not forget it (`_learn`)."""
        if self._cluster:
            slot = game_slot(game_id)
            self._sets += 1
            self._touched[slot] = self._sets
            self._earliest.lower(slot, wake_ms)

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        wake = "-" if wake_ms is None else str(wake_ms)
        if wake_ms is not None:
            self._remember(game_id, wake_ms)
        async with _as_store_errors():
            await self._script(_SET, self.keys_of(game_id), (game_id, version, wake))
        if wake_ms is not None:
            self._remember(game_id, wake_ms)

    async def look_again(self, game_id: str, wake_ms: int) -> None:
        wake_key, _ = self.keys_of(game_id)
        self._remember(game_id, wake_ms)
        async with _as_store_errors():
            await self._redis.zadd(wake_key, {game_id: wake_ms}, xx=True)
        self._remember(game_id, wake_ms)

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> Due:
        if not self._cluster:
            wake_key, _ = self.keys_of("")
            async with _as_store_errors():
                reply = await self._script(_CLAIM, [wake_key], (now_ms, lease_ms, limit))
            return _due(reply)
        return await self._claim_on_cluster(now_ms, lease_ms, limit)

    async def _claim_on_cluster(
        self, now_ms: int, lease_ms: int, limit: int, *, every_bucket: bool = False
    ) -> Due:
        """Claim on every master at once, over the buckets due of the slots it serves and the
        rolling look's slice (all of them at the first claim, or when `every_bucket`). What the
        masters found within `CLAIM_PATIENCE_S` is handed out; a slower master's claim goes on
        (bounded by `CALL_TIMEOUT_S`), is handed out by a later claim, and its master is not
        named again until it is done (meanwhile the sweeper is told to come back in
        `CLAIM_PATIENCE_S`). A master that
        fails is skipped (its games' wake-ups wait for it), and only when none answers and
        none is still at it is the claim unavailable."""
        assert isinstance(self._redis, RedisCluster)
        if self._legacy_left:
            await self._move_legacy()
        async with _as_store_errors():
            await self._redis.initialize()
        if every_bucket or self._rolled_at is None:
            self._rolled_at = self._monotonic()
            named = slots_by_primary(self._redis)
        else:
            looked_at = {*self._earliest.due(now_ms), *self._rolling_slice()}
            named = primaries_of(self._redis, list(looked_at)) if looked_at else []
        asking = [(node, slots) for node, slots in named if node.name not in self._pending]
        started = self._sets
        for node, slots in asking:
            claim = self._claim_on(node, slots, now_ms, lease_ms, limit)
            self._pending[node.name] = (asyncio.ensure_future(claim), slots, started)
        fresh = [self._pending[node.name][0] for node, _ in asking]
        if fresh:
            await asyncio.wait(fresh, timeout=CLAIM_PATIENCE_S)
        games: list[str] = []
        failures: list[BaseException] = []
        answered = 0
        for name in [name for name, (task, _, _) in self._pending.items() if task.done()]:
            task, slots, began = self._pending.pop(name)
            if task.cancelled():
                continue
            outcome = task.exception()
            if outcome is not None:
                failures.append(outcome)
                continue
            claimed, earliest_of = task.result()
            answered += 1
            games += claimed
            self._learn(slots, earliest_of, began)
        for failure in failures:
            log.warning("turn timers: a master did not answer the claim: %r", failure)
        if failures and not answered and not self._pending:
            raise StoreUnavailable(f"turn timers unreachable: {failures[0]!r}")
        if self._pending:
            # Back in a moment for what the slow master's claim finds, and not sooner: its
            # buckets due would otherwise have the sweeper claim again at once, over and over.
            return Due(games, now_ms + int(1000 * CLAIM_PATIENCE_S))
        return Due(games, self._earliest.first())

    def _rolling_slice(self) -> list[int]:
        """The slots the rolling look at every bucket names now: as many as the time since it
        last advanced is of `FULL_SWEEP_S` (all of them at most), after the last it named. So
        every bucket is named once in every `FULL_SWEEP_S`, and a claim names them all only
        when the sweeper was away a whole round."""
        assert self._rolled_at is not None
        now = self._monotonic()
        count = min(SLOTS, int(SLOTS * (now - self._rolled_at) / self._full_sweep_s))
        if count < ROLLING_SLICE_MIN:
            return []  # a script for a few buckets at each of many claims a second costs more
        # Keep the fraction of a slot not yet due, unless the sweeper was away a whole round.
        self._rolled_at = (
            now if count == SLOTS else (self._rolled_at + count * self._full_sweep_s / SLOTS)
        )
        start, self._cursor = self._cursor, (self._cursor + count) % SLOTS
        return [(start + step) % SLOTS for step in range(count)]

    def _learn(self, slots: list[int], earliest_of: dict[int, int], started: int) -> None:
        """Remember the earliest wake-up of each bucket a claim named (none: empty), keeping
        what this replica set in one since the claim began (the reply may predate its write:
        a write done before the claim began is in the reply)."""
        for slot in slots:
            seen = earliest_of.get(slot)
            touched = self._touched.get(slot, 0) > started
            if touched and (mine := self._earliest.get(slot)) is not None:
                seen = mine if seen is None else min(seen, mine)
            if seen is None:
                self._earliest.drop(slot)
            else:
                self._earliest.set(slot, seen)

    async def _claim_on(
        self, node: Any, slots: list[int], now_ms: int, lease_ms: int, limit: int
    ) -> tuple[list[str], dict[int, int]]:
        """Claim on one master over these slots' buckets: the games claimed, and each
        non-empty bucket's earliest wake-up left (by slot)."""
        games: list[str] = []
        earliest_of: dict[int, int] = {}
        async with _as_store_errors():
            for start in range(0, len(slots), BUCKETS_PER_CALL):
                part = tuple(slots[start : start + BUCKETS_PER_CALL])
                room = max(0, limit - len(games))
                reply = await self._script(
                    _CLAIM_ACROSS_SLOTS,
                    (),
                    (now_ms, lease_ms, room, self._prefix, _bucket_tags(part), "each"),
                    target_nodes=node,
                )
                count = int(reply[1])
                games += [_text(game) for game in reply[2 : 2 + count]]
                pairs = reply[2 + count :]
                for place, wake in zip(pairs[::2], pairs[1::2], strict=True):
                    earliest_of[part[int(place) - 1]] = int(wake)
        return games, earliest_of

    async def _move_legacy(self) -> None:
        """Move the wake-ups of the old single ``{timers}`` bucket to their games' buckets
        (each with its version, so a newer one set meanwhile stands), then drop them there.
        Best effort: a master that cannot be reached now is tried again at the next claim."""
        old_wake, old_versions = self._keys(STANDALONE_TAG)
        try:
            while True:
                async with _as_store_errors():
                    entries = cast(
                        list[tuple[bytes, float]],
                        await self._redis.zrange(old_wake, 0, MIGRATE_BATCH - 1, withscores=True),
                    )
                    if not entries:
                        await self._redis.delete(old_versions)
                        break
                    names = [_text(name) for name, _ in entries]
                    versions = await self._redis.hmget(old_versions, names)
                for (name, wake), version in zip(entries, versions, strict=True):
                    game_id = _text(name)
                    self._remember(game_id, int(wake))
                    async with _as_store_errors():
                        await self._script(
                            _SET, self.keys_of(game_id), (game_id, int(version or 0), int(wake))
                        )
                async with _as_store_errors():
                    await self._redis.zrem(old_wake, *names)
                    await self._redis.hdel(old_versions, *names)
            self._legacy_left = False
        except StoreUnavailable as error:
            log.warning("turn timers: the old {timers} bucket is not reachable yet: %s", error)

    async def next_wake_ms(self) -> int | None:
        """The earliest wake time set: a claim of nothing over every bucket."""
        if self._cluster:
            return (await self._claim_on_cluster(0, 0, 0, every_bucket=True)).next_wake_ms
        return (await self.claim_due(0, 0, 0)).next_wake_ms

    async def close(self) -> None:
        for task, _, _ in self._pending.values():
            task.cancel()
        await asyncio.gather(
            *(task for task, _, _ in self._pending.values()), return_exceptions=True
        )
        self._pending.clear()
        await self._redis.aclose()


def _due(reply: Any) -> Due:
    earliest = _text(reply[0])
    return Due([_text(game) for game in reply[1:]], int(earliest) if earliest else None)
