"""Durable turn timers: which game to look at when, shared by every replica.

A timer is only a wake-up: "look at game G at time T". What to do then is derived from the game's
events (services/game/clock.py): warn the players a timed decision waits for, let a bot decide
for them once it is due, or nothing, because the game moved on. So a timer may fire twice, late,
or on any replica, and the outcome is the same; what must not happen is that none fires. Hence:

- The replica that appends a state sets the timer that state needs just before the append, as
  of the version the append follows (so a replica killed right after its append, before it
  announced the state, still leaves one); a replica that loads a game cold sets it as of the
  game's version. Each write is guarded by its version, so a slower write for an older state
  never overrides a newer one.
- A sweeper in every replica claims due timers with a lease (the timer moves `lease_ms` into the
  future as it is claimed), so one replica handles each, and a replica that dies while handling
  one leaves it to fire again after the lease.

Turns of minutes or days (correspondence games) work the same way: nothing is held in memory or
in a broker's countdown, and a restart loses nothing. In memory for embedded mode, on Redis (a
sorted set of wake times and a hash of versions) when distributed.

Bot turns use the same wake-ups: a state where bots must act is looked at again `recheck_ms`
after the game came to rest, then at doubling intervals (up to `MAX_RECHECK_MS`); if the bots
still owe their move then, their turns are announced again (the task or its worker was lost).
So a pending bot turn is durable state any replica acts on, one entry per game, and nothing is
resent once the game moved on or ended.

A person's turn is looked at once, `recheck_ms` after it began (before its warning, on a timed
table): if the person still owes the decision, the players' notifications of that state are
published again. They are deduplicated, so this sends nothing new unless the replica that
appended the state died before it announced it; else the "your turn" push of an untimed turn
would be lost, and a game could wait for days on a person who was never told.

A game's end is looked at once too, `recheck_ms` after it: its end is announced again, which
records it in the stats (exactly once, whoever records it) and publishes the players' GameOver
notifications (deduplicated). Else a replica that died right after appending the end would
lose both, as nobody loads a finished game again.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator

from services.engine import GameState, Phase
from services.eventstore import TRANSIENT_REDIS_ERRORS, AnyRedis, StoreUnavailable, redis_client
from services.tasks import cancel_and_wait

from .clock import bot_seats_to_act, deadline_ms, human_seats_to_act, warning_ms
from .errors import GameNotFound

log = logging.getLogger("verrater.game.timers")

#: How long a claimed timer is held before another replica may take it again: what a replica
#: that dies (or whose look fails) while holding a claim delays the game by. A look takes
#: milliseconds; one that outlasts the lease is done twice, which is harmless.
DEFAULT_LEASE_MS = 10_000
#: The longest a sweeper sleeps before looking for due timers (another replica's new timer is
#: seen at most this late).
POLL_INTERVAL_S = 0.5
#: Timers handled per claim.
CLAIM_BATCH = 100
#: The longest interval between two looks at a game whose bots still owe their move.
MAX_RECHECK_MS = 60_000


@contextlib.contextmanager
def _as_store_errors() -> Iterator[None]:
    """Redis unreachable, busy loading or timing out is the store being unavailable."""
    try:
        yield
    except TRANSIENT_REDIS_ERRORS as error:
        raise StoreUnavailable(f"turn timers unreachable: {error!r}") from error


class TurnTimers(abc.ABC):
    """When to look at which game next."""

    @abc.abstractmethod
    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        """Look at the game at `wake_ms` (None: never again), as of its state at `version`;
        ignored when a newer version already set it."""

    @abc.abstractmethod
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """The games whose time has come, each moved `lease_ms` ahead so no one else takes it
        meanwhile."""

    @abc.abstractmethod
    async def next_wake_ms(self) -> int | None:
        """The earliest wake time set (None: none), for a sweeper to sleep until."""

    def changed(self) -> asyncio.Event | None:
        """Set when this process sets a timer (a sleeping sweeper looks again); None when
        other processes set timers too and only polling sees them."""
        return None

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections."""


class InMemoryTurnTimers(TurnTimers):
    """Timers of one process (embedded mode, tests)."""

    def __init__(self) -> None:
        self._wake: dict[str, int] = {}
        self._versions: dict[str, int] = {}
        self._changed = asyncio.Event()

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        if self._versions.get(game_id, 0) > version:
            return
        self._versions[game_id] = version
        if wake_ms is None:
            self._wake.pop(game_id, None)
            self._versions.pop(game_id, None)
        else:
            self._wake[game_id] = wake_ms
        self._changed.set()

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        due = sorted((wake, game) for game, wake in self._wake.items() if wake <= now_ms)
        games = [game for _, game in due[:limit]]
        for game in games:
            self._wake[game] = now_ms + lease_ms
        return games

    async def next_wake_ms(self) -> int | None:
        return min(self._wake.values(), default=None)

    def changed(self) -> asyncio.Event:
        return self._changed

    async def close(self) -> None:
        """Nothing to release: the timers live in this process."""


# KEYS[1]: the wake times (sorted set), KEYS[2]: the versions (hash).
# ARGV[1]: game id, ARGV[2]: version, ARGV[3]: wake time, or "-" for none.
_SET_SCRIPT = """
local known = redis.call('HGET', KEYS[2], ARGV[1])
if known and tonumber(known) > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '-' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""
# KEYS[1]: the wake times. ARGV[1]: now, ARGV[2]: lease, ARGV[3]: limit.
_CLAIM_SCRIPT = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, game in ipairs(due) do redis.call('ZADD', KEYS[1], until_ms, game) end
return due
"""


class RedisTurnTimers(TurnTimers):
    """Timers on Redis, shared by every game replica: `<prefix>:{timers}:wake` (sorted set, game
    id -> wake time in ms) and `<prefix>:{timers}:version` (hash, game id -> the version that
    set it). Both keys share a hash tag, so the scripts run on one Redis Cluster slot."""

    def __init__(self, client: AnyRedis, key_prefix: str = "verrater") -> None:
        self._redis = client
        self._wake_key = f"{key_prefix}:{{timers}}:wake"
        self._version_key = f"{key_prefix}:{{timers}}:version"
        self._set = client.register_script(_SET_SCRIPT)
        self._claim = client.register_script(_CLAIM_SCRIPT)

    @classmethod
    def from_url(cls, url: str) -> RedisTurnTimers:
        return cls(redis_client(url))

    async def set(self, game_id: str, version: int, wake_ms: int | None) -> None:
        wake = "-" if wake_ms is None else str(wake_ms)
        with _as_store_errors():
            await self._set(keys=[self._wake_key, self._version_key], args=[game_id, version, wake])

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        with _as_store_errors():
            due = await self._claim(keys=[self._wake_key], args=[now_ms, lease_ms, limit])
        return [game.decode() if isinstance(game, bytes) else str(game) for game in due]

    async def next_wake_ms(self) -> int | None:
        with _as_store_errors():
            first = await self._redis.zrange(self._wake_key, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def close(self) -> None:
        await self._redis.aclose()


def next_wake(state: GameState, rest_since_ms: int, now_ms: int, recheck_ms: int = 0) -> int | None:
    """When to look at a game next, as of `state`: at the warning, else at the deadline of a
    person's timed decision; when bots must act (and `recheck_ms` is set), at their next
    recheck; when a person must, at the one look at their turn (`persons_look_at`) while it is
    ahead; once the game is over, at the one look at its end (`ends_look_at`) while it is
    ahead; None when nothing is awaited."""
    if state.phase is Phase.GAME_OVER:
        end = ends_look_at(rest_since_ms or now_ms, recheck_ms)
        return end if end is not None and now_ms < end else None
    wakes = []
    deadline = deadline_ms(state, rest_since_ms)
    if human_seats_to_act(state):
        if deadline is not None:
            warning = warning_ms(state, deadline)
            wakes.append(warning if now_ms < warning else deadline)
        look = persons_look_at(state, rest_since_ms or now_ms, recheck_ms, deadline)
        if look is not None and now_ms < look:
            wakes.append(look)
    if recheck_ms > 0 and bot_seats_to_act(state):
        wakes.append(recheck_at(rest_since_ms or now_ms, now_ms, recheck_ms))
    return min(wakes, default=None)


def persons_look_at(
    state: GameState, rest_since_ms: int, recheck_ms: int, deadline: int | None
) -> int | None:
    """When a person's turn pending since `rest_since_ms` is looked at, once: `recheck_ms`
    after it began, and on a timed table only if that comes before the warning (which tells
    the person anyway); None: no look (`recheck_ms` 0, or the warning comes first)."""
    if recheck_ms <= 0:
        return None
    look = rest_since_ms + recheck_ms
    if deadline is not None and look >= warning_ms(state, deadline):
        return None
    return look


def ends_look_at(ended_ms: int, recheck_ms: int) -> int | None:
    """When the end of a game that ended at `ended_ms` is looked at, once: `recheck_ms` after
    it; None: no look (`recheck_ms` 0)."""
    return ended_ms + recheck_ms if recheck_ms > 0 else None


def wake_stands(known: tuple[int, int | None] | None, before: int, wake: int | None) -> bool:
    """Whether the wake-up this replica set for the state at `before` (the state the new one
    follows, so no other replica has appended since) may stand for a state due at `wake`: it
    comes no later (looking early is harmless) and there is one."""
    return (
        known is not None
        and known[0] == before
        and known[1] is not None
        and (wake is not None and known[1] <= wake)
    )


def nothing_to_clear(known: tuple[int, int | None] | None, before: int) -> bool:
    """Whether this replica left no wake-up for the state at `before` (the state the new one
    follows, so no other replica has appended since): a next state that awaits nothing timed
    needs no Redis call. (Should another replica's sweep have set one meanwhile, it fires once,
    finds nothing due and clears itself.)"""
    return known is not None and known[0] == before and known[1] is None


def recheck_at(rest_since_ms: int, now_ms: int, recheck_ms: int) -> int:
    """When to look again at bots' turns pending since `rest_since_ms`: `recheck_ms` after it,
    then after as long again as they have waited (doubling), at most `MAX_RECHECK_MS` apart."""
    waited = now_ms - rest_since_ms
    if waited < recheck_ms:
        return rest_since_ms + recheck_ms
    return now_ms + min(waited, MAX_RECHECK_MS)


#: Asks for the game's current state and when it came to rest (fresh from the store).
StateOf = Callable[[str], Awaitable[tuple[GameState, int]]]
#: A person's timed decision is due: a bot decides for (game, seat, version).
OnExpired = Callable[[str, int, int], None]
#: A person's timed decision is due soon: warn them (game, seat, version, deadline ms).
OnWarning = Callable[[str, int, int, int], Awaitable[None]]
#: Bots still owe their move in this state: announce their turns again (game, state, the
#: deadline ms of a person's decision awaited beside theirs, or None).
OnBotsOverdue = Callable[[str, GameState, int | None], object]
#: Persons still owe their decision in this state: (game, state, the decision's deadline ms or
#: None when untimed).
OnPersonsWaiting = Callable[[str, GameState, int | None], object]
#: The game is over: announce its end again (game, final state).
OnGameOver = Callable[[str, GameState], object]


class TimerSweeper:
    """Claims due timers and acts on each game's current state (see the module docstring)."""

    def __init__(
        self,
        timers: TurnTimers,
        state_of: StateOf,
        *,
        on_expired: OnExpired,
        on_warning: OnWarning | None = None,
        on_bots_overdue: OnBotsOverdue | None = None,
        on_persons_waiting: OnPersonsWaiting | None = None,
        on_game_over: OnGameOver | None = None,
        recheck_ms: int = 0,
        clock: Callable[[], float] = time.time,
        lease_ms: int = DEFAULT_LEASE_MS,
    ) -> None:
        """`recheck_ms` (with `on_bots_overdue`): how long bots may owe a move before their
        turns are announced again (the game service sets the same on its wake-ups);
        `on_persons_waiting` hears, once, of a state whose persons still owe their decision
        that long after it began (to publish their notifications again); `on_game_over`, once,
        of a game over that long (to announce its end again)."""
        self._timers = timers
        self._state_of = state_of
        self._on_expired = on_expired
        self._on_warning = on_warning
        self._on_bots_overdue = on_bots_overdue
        self._on_persons_waiting = on_persons_waiting
        self._on_game_over = on_game_over
        self._recheck_ms = recheck_ms if on_bots_overdue is not None else 0
        self._clock = clock
        self._lease_ms = lease_ms
        self._task: asyncio.Task[None] | None = None

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def sweep(self) -> int:
        """Handle every due timer once; how many were due."""
        now = self._now_ms()
        due = await self._timers.claim_due(now, self._lease_ms, CLAIM_BATCH)
        for game_id in due:
            try:
                await self._handle(game_id, now)
            except Exception:  # one game's failure must not stop the others; its lease expires
                log.exception("turn timer of game %s failed; it fires again later", game_id)
        return len(due)

    async def _handle(self, game_id: str, now: int) -> None:
        try:
            state, rest_since = await self._state_of(game_id)
        except GameNotFound:
            await self._timers.set(game_id, 2**62, None)
            return
        wakes: list[int] = []
        deadline = deadline_ms(state, rest_since)
        seats = human_seats_to_act(state)
        since = rest_since or now
        end = ends_look_at(since, self._recheck_ms) if state.phase is Phase.GAME_OVER else None
        if end is not None and self._on_game_over is not None:
            if now < end:  # swept early (the last state's wake-up, a lease): keep the look
                wakes.append(end)
            else:
                self._on_game_over(game_id, state)
        look = persons_look_at(state, since, self._recheck_ms, deadline) if seats else None
        if look is not None and self._on_persons_waiting is not None:
            if now < look:  # swept early (a bot's recheck, a lease): keep the look
                wakes.append(look)
            elif deadline is None or now < warning_ms(state, deadline):  # not once more later
                self._on_persons_waiting(game_id, state, deadline)
        if deadline is not None and seats:
            if now >= deadline:
                for seat in seats:
                    self._on_expired(game_id, seat, state.version)
                # Held until the stand-in's decision moves the game on (which resets the timer);
                # if it never comes, the timer fires again after the lease.
                wakes.append(now + self._lease_ms)
            elif now >= warning_ms(state, deadline) and self._on_warning is not None:
                for seat in seats:
                    await self._on_warning(game_id, seat, state.version, deadline)
                wakes.append(deadline)
            else:
                warning = warning_ms(state, deadline)
                wakes.append(warning if now < warning else deadline)
        if self._recheck_ms and bot_seats_to_act(state):
            if now - since >= self._recheck_ms and self._on_bots_overdue is not None:
                log.warning("bots of game %s still owe their move: announcing again", game_id)
                self._on_bots_overdue(game_id, state, deadline)
            wakes.append(recheck_at(since, now, self._recheck_ms))
        await self._timers.set(game_id, state.version, min(wakes, default=None))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="turn-timers")

    async def _run(self) -> None:
        delay = POLL_INTERVAL_S
        while True:
            changed = self._timers.changed()
            if changed is not None:
                changed.clear()
            try:
                await self.sweep()
                upcoming = await self._timers.next_wake_ms()
                delay = POLL_INTERVAL_S
                if upcoming is not None:
                    delay = min(delay, max(0.0, (upcoming - self._now_ms()) / 1000))
            except TRANSIENT_REDIS_ERRORS + (StoreUnavailable, OSError) as error:
                log.warning("turn timers unreachable (%s); retrying", error)
                delay = min(delay * 2, 5.0)
            if changed is None:
                await asyncio.sleep(delay)
            else:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await changed.wait()

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
