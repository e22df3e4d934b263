"""The game application service: commands in, events out, state rebuilt from the event store.

Stateless apart from a cache: any replica serves any game. A command is decided against the
cached state and appended with the cached version as the expected version; when another replica
got there first the append conflicts, the cache is topped up from the stream and the command is
decided again. Each decision records the caller's command id, so a retried command (same seat,
same id) is applied once and answers the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from itertools import accumulate

from services.codec import Record, decode_record, encode_record
from services.engine import (
    PLAYER_COUNTS,
    PLAYER_COUNTS_TEXT,
    SEED_BYTES,
    CreateGame,
    GameState,
    Phase,
    PlayerCommand,
    Ruleset,
    evolve,
    execute_steps,
    initial_state,
    new_seed,
    view,
)
from services.errors import Reason, ServiceError
from services.eventstore import (
    EventStore,
    EventStoreError,
    ReplicationUnconfirmed,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
)
from services.observability import ACTIVE_GAMES, APPEND_SECONDS, BOT_TASK_SECONDS

from .announcements import BatchAppended, GameLoaded, Publish, WatcherArrived
from .cache import CachedGame
from .clock import check_service_decision, deadline_ms
from .errors import (
    GameAlreadyExists,
    GameNotFinished,
    GameNotFound,
    HistoryChanged,
    SeatNotInGame,
    SpectatorHasNoTurns,
    StaleVersion,
    VersionOutOfRange,
)
from .resuming import Resumer
from .timers import TurnTimers, WakeUps
from .values import CommandResult, NewGame, Resting, Seen, Update, WatchMode
from .watching import catch_up, event_updates, view_updates

logger = logging.getLogger(__name__)

#: The command ids of bots' decisions begin so (services/ai/turns.py): their latency is measured.
BOT_COMMAND_PREFIX = "bot:"
#: How often one command is re-decided after losing an append race before giving up.
MAX_ATTEMPTS = 8


def _check_seat(state: GameState, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < len(state.vp):
        raise SeatNotInGame(seat, len(state.vp))


class GameApplication:
    """Create games, take commands, answer views and live updates, for any number of games."""

    def __init__(
        self,
        store: EventStore,
        *,
        cache_size: int = 10_000,
        finished_cache_size: int = 256,
        publish: Publish | None = None,
        timers: TurnTimers | None = None,
        clock: Callable[[], float] = time.time,
        bot_recheck_ms: int = 0,
    ) -> None:
        """`publish` is given what happened (services/game/announcements.py: every state this
        replica appended, each game it loads cold), so that bots, stats and notifications act
        on it (services/handlers.py); `timers` are set for every timed decision
        (services/game/timers/), and, with `bot_recheck_ms`, for every state where bots must
        act (their turns are announced again if they stay unanswered); `clock` stamps each
        batch's append time.

        At most `cache_size` games stay cached, and of those at most `finished_cache_size`
        finished ones (the most recently finished): a finished game is only read again for its
        log or a late view, and rebuilding it from the store takes a millisecond or two, while
        every cached event is an object the garbage collector walks for as long as it stays.
        """
        self.store = store
        self._cache: OrderedDict[str, CachedGame] = OrderedDict()
        self._cache_size = cache_size
        # Cached finished games, oldest finish first (watched ones leave it until unwatched).
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._finished_cache_size = finished_cache_size
        self._publish: Publish = publish or (lambda announcement: None)
        self._wake_ups = None if timers is None else WakeUps(timers, clock, bot_recheck_ms)
        self._clock = clock
        self._bot_recheck_ms = bot_recheck_ms
        self._resumer = Resumer(self._cached)
        ACTIVE_GAMES.set_function(self._active_games)

    async def close(self) -> None:
        """Stop loading again the games whose store failed (services/game/resuming.py), and
        setting the wake-ups of games loaded cold."""
        await self._resumer.close()
        if self._wake_ups is not None:
            await self._wake_ups.close()

    def _active_games(self) -> int:
        return sum(1 for game in self._cache.values() if game.state.phase is not Phase.GAME_OVER)

    @property
    def cached_games(self) -> int:
        """How many games this replica holds in its cache."""
        return len(self._cache)

    @property
    def waiting_for_store(self) -> int:
        """Games this replica loads again once their store answers (services/game/resuming)."""
        return self._resumer.waiting

    # --- loading -------------------------------------------------------------------------

    async def _cached(self, game_id: str) -> CachedGame:
        game = self._cache.get(game_id)
        if game is None:
            game = CachedGame(initial_state())
            try:
                await self._top_up(game_id, game)
            except StoreUnavailable:
                self._resumer.add(game_id)  # announced once its store answers again
                raise
            if game.state.version == 0:
                raise GameNotFound(game_id)
            self._cache[game_id] = game
            # A replica that appended may have died before announcing or setting its timer: do
            # both again (a bot turn is applied at most once per seat and version, a timer is
            # set by version, notifications are deduplicated, so repeats are harmless).
            state = game.state
            deadline = deadline_ms(state, game.rest_since_ms)
            self._publish(GameLoaded(game_id, state, game.last_decision, deadline))
            game.announced = state.version
            if self._wake_ups is not None:
                self._wake_ups.after_load(game_id, game)
            self._evict()
            self._retire_if_finished(game_id, game)
        else:  # (a game just loaded went in last; others' loads may have evicted it since)
            self._cache.move_to_end(game_id)
        return game

    async def _current(self, game_id: str) -> CachedGame:
        """The game as its store holds it now: read on first use (the load is the read),
        else the cached game topped up."""
        if game_id not in self._cache:
            return await self._cached(game_id)
        game = await self._cached(game_id)
        async with game.lock:
            await self._top_up(game_id, game)
        return game

    def _evict(self) -> None:
        """Drop the least recently used games beyond the cache size, but never a watched one:
        its watchers and the commands of this replica must share one `CachedGame`."""
        while len(self._cache) > self._cache_size:
            victim = next((gid for gid, game in self._cache.items() if not game.watchers), None)
            if victim is None:
                return
            del self._cache[victim]
            self._finished.pop(victim, None)

    def _retire_if_finished(self, game_id: str, game: CachedGame) -> None:
        """Count a cached game that is over among the finished ones, and drop the oldest
        finished games beyond `finished_cache_size` that nobody watches (a watched one is
        counted again when its last watcher leaves)."""
        if game.state.phase is not Phase.GAME_OVER or self._cache.get(game_id) is not game:
            return
        self._finished[game_id] = None
        self._finished.move_to_end(game_id)
        while len(self._finished) > self._finished_cache_size:
            oldest, _ = self._finished.popitem(last=False)
            cached = self._cache.get(oldest)
            if cached is not None and not cached.watchers:
                del self._cache[oldest]

    async def _top_up(self, game_id: str, game: CachedGame) -> None:
        """Fold whatever other replicas appended since the cached version."""
        known = game.state.version
        # Read from our last event on: the store must still hold it, or it went back in time
        # (restored from an older copy, lost its last writes) and our copy must go.
        after = known - 1 if known and game.head_hash else known
        stored = await self.store.read(game_id, after_version=after)
        if after < known:
            if not stored or stored[0].hash != game.head_hash:
                self._drop(game_id, game, stored[-1].version if stored else 0)
                raise HistoryChanged(game_id)
            stored = stored[1:]
        if stored:
            if self.store.confirms_replication:
                # Another replica appended these, or an append of ours whose replication was
                # not confirmed: nothing is built on, shown or acknowledged before they are on
                # the replicas appends wait for (ReplicationUnconfirmed leaves the cache as is).
                await self.store.confirm(game_id)
            records = [decode_record(item.payload) for item in stored]
            events = (record.event for record in records)
            states = list(accumulate(events, evolve, initial=game.state))[1:]
            game.apply(records, [item.payload for item in stored], states)
            game.head_hash = stored[-1].hash
            self._retire_if_finished(game_id, game)

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    async def _appended(
        self,
        game_id: str,
        game: CachedGame,
        decision: Record,
        *,
        before: int,
        wake: int | None,
        bot_waited_ms: int | None = None,
    ) -> None:
        """Announce the state this replica appended (from version `before`), then settle its
        wake-up (`wake`: what `WakeUps.ahead` set for it)."""
        state = game.state
        deadline = deadline_ms(state, game.rest_since_ms)
        self._publish(BatchAppended(game_id, state, decision, deadline, bot_waited_ms))
        game.announced = state.version
        if self._wake_ups is not None:
            await self._wake_ups.appended(game_id, game, before, wake)

    async def resting(self, game_id: str) -> Resting:
        """The game's current state, when it came to rest (for its turn timer), and the batch
        that led there: what the turn timers' looks read (once a cold load's wake-up is set,
        so that the look's stands over it)."""
        game = await self._current(game_id)
        if self._wake_ups is not None:
            await self._wake_ups.loaded_set(game_id)
        return Resting(game.state, game.rest_since_ms, game.last_decision)

    async def state(self, game_id: str, *, fresh: bool = True) -> GameState:
        """The game's current state (topped up from the store unless `fresh` is False)."""
        game = await (self._current(game_id) if fresh else self._cached(game_id))
        return game.state

    async def view(self, game_id: str, seat: int | None) -> Seen:
        """What `seat` (None: a spectator) sees now, and when the awaited decision is due."""
        game = await self._current(game_id)
        state, rest_since = game.state, game.rest_since_ms
        _check_seat(state, seat)
        return Seen(view(state, seat), deadline_ms(state, rest_since))

    # --- commands --------------------------------------------------------------------------

    async def start_game(self, game: NewGame) -> tuple[str, GameState]:
        """Create `game` (its id chosen here when empty): its seed, ruleset and setup events."""
        if game.players not in PLAYER_COUNTS:
            raise ServiceError(
                Reason.INVALID_TABLE_OPTION,
                f"players must be {PLAYER_COUNTS_TEXT}",
                field="players",
            )
        if game.seed is not None and len(game.seed) != SEED_BYTES:
            raise ServiceError(
                Reason.MALFORMED_REQUEST, f"seed must be exactly {SEED_BYTES} bytes", field="seed"
            )
        game_id = game.game_id or secrets.token_hex(8)
        command = CreateGame(
            Ruleset.standard(game.players, builder_may_move=game.builder_may_move),
            new_seed() if game.seed is None else game.seed,
            game.setup,
            game.seats,
            game.ranked,
            game.turn_seconds,
        )
        return game_id, await self.create_game(game_id, command)

    async def create_game(self, game_id: str, command: CreateGame) -> GameState:
        """Create a game: its first events (setup) are appended at version 0."""
        events, states = execute_steps(initial_state(), command)
        state = states[-1]
        now = self._now_ms()
        records = [Record(events[0], recorded_at_ms=now)]
        records.extend(Record(event) for event in events[1:])
        payloads = [encode_record(r) for r in records]
        game = CachedGame(initial_state(), wake=(0, None))
        wake = await self._wake_ups.ahead(game_id, game, state, now, 0) if self._wake_ups else None
        try:
            stored = await self.store.append(game_id, 0, payloads)
        except VersionConflict as conflict:
            raise GameAlreadyExists(game_id) from conflict
        game.apply(records, payloads, states[1:])
        game.head_hash = stored[-1].hash
        self._cache[game_id] = game
        self._evict()
        await self._appended(game_id, game, records[0], before=0, wake=wake)
        return state

    async def submit(
        self,
        game_id: str,
        seat: int,
        command: PlayerCommand,
        *,
        expected_version: int | None,
        command_id: str,
        turn_timer_expired: bool = False,
        by_service: bool = False,
    ) -> CommandResult:
        """Decide and append one player command; RuleViolation and StaleVersion change nothing.
        `by_service`: a service (the AI's workers) decides (`check_service_decision`)."""
        for _ in range(MAX_ATTEMPTS):
            game = await self._cached(game_id)
            async with game.lock:
                if game.dropped:
                    continue  # the store went back in time meanwhile: load the game again
                with contextlib.suppress(HistoryChanged):
                    result = await self._attempt(
                        game_id,
                        game,
                        seat,
                        command,
                        expected_version=expected_version,
                        command_id=command_id,
                        turn_timer_expired=turn_timer_expired,
                        by_service=by_service,
                    )
                    if result is not None:
                        return result
        raise StaleVersion(expected_version or game.state.version, game.state.version)

    async def _attempt(
        self,
        game_id: str,
        game: CachedGame,
        seat: int,
        command: PlayerCommand,
        *,
        expected_version: int | None,
        command_id: str,
        turn_timer_expired: bool,
        by_service: bool,
    ) -> CommandResult | None:
        """One try at a command under the game's lock: its result, or None to try again."""
        replayed = game.replayed(seat, command_id, command)
        if replayed is not None:
            return replayed
        current = game.state.version
        if expected_version is not None and expected_version != current:
            if expected_version < current:
                raise StaleVersion(expected_version, current)
            await self._top_up(game_id, game)  # another replica may be ahead of us
            if expected_version != game.state.version:
                raise StaleVersion(expected_version, game.state.version)
            return None
        now = self._now_ms()
        if by_service:
            check_service_decision(game.state, seat, turn_timer_expired, game.rest_since_ms, now)
        events, states = execute_steps(game.state, command)
        state = states[-1]
        records = [Record(events[0], command_id, turn_timer_expired, now)]
        records.extend(Record(event) for event in events[1:])
        payloads = [encode_record(r) for r in records]
        wake_ups = self._wake_ups  # the wake-up the new state needs: set before the append
        try:
            wake = await wake_ups.ahead(game_id, game, state, now, current) if wake_ups else None
        except StoreUnavailable:
            # Nothing was appended, but the caller may leave the move to this replica (a worker
            # does, for a bot's): load the game again once the store answers, and announce it.
            self._forget(game_id, game)
            self._resumer.add(game_id)
            raise
        try:
            with APPEND_SECONDS.time():
                stored = await self.store.append(game_id, current, payloads)
        except StoreUnavailable as error:
            # The append may have landed all the same (its reply was lost, or no replica
            # confirmed it in time): forget the game, so that whoever uses it next reads it
            # from the store and, once what landed is confirmed, announces its state again
            # (bot turns, timer, notifications: repeats are harmless). Else nobody would
            # announce the next turn. Landed but unconfirmed: the game waits for its replicas,
            # and is looked at again soon, so that it goes on by itself once they confirm it.
            self._forget(game_id, game)
            self._resumer.add(game_id)
            if isinstance(error, ReplicationUnconfirmed) and self._wake_ups is not None:
                await self._wake_ups.look_soon(game_id, current)
            raise
        except VersionConflict as conflict:
            if conflict.actual <= current:
                # The store lost or rewrote what the cache holds (restored from an older copy,
                # or it lost its last writes): go on from what the store holds.
                self._drop(game_id, game, conflict.actual)
            else:
                await self._top_up(game_id, game)
            return None
        waited_since = game.rest_since_ms
        game.apply(records, payloads, states[1:])
        game.head_hash = stored[-1].hash
        bot = command_id.startswith(BOT_COMMAND_PREFIX) and waited_since
        waited = max(0, now - waited_since) if bot else None  # for a bot's move: since the state
        if waited is not None:
            BOT_TASK_SECONDS.observe(waited / 1000)
        await self._appended(
            game_id, game, records[0], before=current, wake=wake, bot_waited_ms=waited
        )
        self._retire_if_finished(game_id, game)
        return CommandResult(current + 1, tuple(events), tuple(states), False, records[0])

    def _drop(self, game_id: str, game: CachedGame, stored_version: int) -> None:
        """Forget a cached game the store no longer agrees with; its watchers are told to
        reconnect (they read the game again from the store)."""
        logger.warning(
            "game %s: the store (at version %d) lost or rewrote this replica's version %d: "
            "reloading it from the store",
            game_id,
            stored_version,
            game.state.version,
        )
        self._forget(game_id, game)

    def _forget(self, game_id: str, game: CachedGame) -> None:
        """Drop a cached game: the next use reads it from the store; its watchers are told to
        reconnect."""
        game.dropped = True
        if self._cache.get(game_id) is game:
            del self._cache[game_id]
            self._finished.pop(game_id, None)
        game.feed_error = HistoryChanged(game_id)
        game.notify()

    async def check_history(self, only: set[str] | None = None) -> tuple[int, set[str]]:
        """Compare the cached games (`only` those, when given) with the store and drop those
        the store holds less of, or another history of (after a restart or failover of the
        store: it may have been restored from an older copy, or have lost its last writes).
        How many were dropped, and the games that could not be compared (their part of the
        store away: a Redis Cluster master failing over), for the caller to compare later."""
        dropped = 0
        unchecked: set[str] = set()
        for game_id, game in list(self._cache.items()):
            if only is not None and game_id not in only:
                continue
            async with game.lock:
                if game.dropped:
                    continue
                # The store's event at our version: missing, or another, and ours is gone
                # (the store may have gone on past it since, on another history).
                known = game.state.version
                try:
                    held = await self.store.read(game_id, after_version=known - 1, limit=1)
                except StoreUnavailable:
                    unchecked.add(game_id)
                    continue
                if not held or held[0].hash != game.head_hash:
                    self._drop(game_id, game, held[0].version if held else 0)
                    dropped += 1
        return dropped, unchecked

    # --- reading ---------------------------------------------------------------------------

    async def log(self, game_id: str) -> list[tuple[StoredEvent, Record]]:
        """The full log with every hidden fact: only for finished games."""
        state = await self.state(game_id)
        if state.phase is not Phase.GAME_OVER:
            raise GameNotFinished(game_id)
        stored = await self.store.read(game_id)
        return [(item, decode_record(item.payload)) for item in stored]

    async def updates(
        self,
        game_id: str,
        seat: int | None,
        after_version: int,
        mode: WatchMode = WatchMode.EVENTS,
    ) -> AsyncIterator[Update]:
        """What `seat` may see of the game after `after_version`, live, in `mode`.

        Every watcher of a game in this process reads the one cached game: this replica's own
        appends reach them the moment they are made, and one follower per watched game (on the
        store's shared tail reader) brings in what other replicas append. So a watcher costs a
        wake-up per batch and what its mode sends, never a connection, a read or a decode.
        A watcher's arrival announces a bots' state this replica has not announced
        (`CachedGame.announce_on_arrival`).
        """
        game = await self._current(game_id)
        _check_seat(game.state, seat)
        if seat is None and mode is WatchMode.TURNS:
            raise SpectatorHasNoTurns
        if after_version > game.state.version:
            raise VersionOutOfRange(after_version, game.state.version)
        if game.state.phase is Phase.GAME_OVER and after_version == game.state.version:
            return  # the game is over and the caller has seen all of it
        if self._bot_recheck_ms and game.announce_on_arrival():
            deadline = deadline_ms(game.state, game.rest_since_ms)
            self._publish(WatcherArrived(game_id, game.state, game.last_decision, deadline))
        with self._watching(game_id, game, mode):
            if mode is WatchMode.EVENTS:
                async for update in event_updates(game, seat, after_version):
                    yield update
                    del update  # not held while the next is awaited
            else:
                async for update in view_updates(game, seat, after_version, mode):
                    yield update
                    del update

    @contextlib.contextmanager
    def _watching(self, game_id: str, game: CachedGame, mode: WatchMode) -> Iterator[None]:
        """Count a watcher in; the first starts the game's follower, the last stops it."""
        every_event = mode is WatchMode.EVENTS
        game.watchers += 1
        game.event_watchers += every_event
        if game.follower is None or game.follower.done():
            game.feed_error = None
            game.follower = asyncio.create_task(
                self._follow(game_id, game), name=f"follow-{game_id}"
            )
        try:
            yield
        finally:
            game.watchers -= 1
            game.event_watchers -= every_event
            if game.event_watchers == 0:
                game.latest = None
            if game.watchers == 0:
                game.public.clear()
                if game.follower is not None:
                    game.follower.cancel()
                    game.follower = None
                self._retire_if_finished(game_id, game)

    async def _follow(self, game_id: str, game: CachedGame) -> None:
        """Top the cache up whenever the store shows a version this replica has not applied.

        The store's tail is only a doorbell: what rings it is read back in whole batches by
        `_top_up` under the game's lock, so this replica's own appends (already applied when
        their echo arrives) cost a comparison, and a batch is never applied twice or in part.
        """
        try:
            async with contextlib.aclosing(
                self.store.subscribe(game_id, game.state.version)
            ) as stream:
                async for stored in stream:
                    if stored.version > game.state.version:
                        await catch_up(
                            game, stored.version, functools.partial(self._top_up, game_id)
                        )
        except EventStoreError as error:
            logger.warning("following game %s stopped: %s", game_id, error)
            game.feed_error = error
            game.notify()
