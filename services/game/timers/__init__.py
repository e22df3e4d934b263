"""Durable turn timers: which game to look at when, shared by every replica.

A timer is only a wake-up: "look at game G at time T". What to do then is derived from the game's
events (services/game/clock.py): warn the players a timed decision waits for, let a bot decide
for them once it is due, or nothing, because the game moved on. So a timer may fire twice, late,
or on any replica, and the outcome is the same; what must not happen is that none fires. Hence:

- The replica that appends a state sets the timer that state needs just before the append, as
  of the version the append follows (so a replica killed right after its append, before it
  announced the state, still leaves one); a replica that loads a game cold sets it as of the
  game's version, in the background under the game's lock (off the path of the call that
  loaded it; a look waits for it). Each write is guarded by its version, so a slower write for
  an older state never overrides a newer one.
- A sweeper in every replica claims due timers with a lease (the timer moves `lease_ms` into the
  future as it is claimed), so one replica handles each, and a replica that dies while handling
  one leaves it to fire again after the lease. A game whose store cannot be read (or whose last
  events are not yet confirmed on its replicas) is looked at again a second later.

Turns of minutes or days (correspondence games) work the same way: nothing is held in memory or
in a broker's countdown, and a restart loses nothing. In memory for embedded mode, on Redis
when distributed: on a Redis Cluster each game's wake-up lives in its own slot, on the master
that holds its events, so one master's failure stops no other master's timers.

The modules: `port` (what a timer store does, and the in-memory one), `policy` (when a state
wants looking at), `wakeups` (what a replica writes around its appends and cold loads),
`redis_timers` (the Redis one, and its scripts) and `sweeper` (the loop that claims what is due,
looks at each game and publishes what it finds).
"""

from .policy import (
    MAX_RECHECK_MS,
    ends_look_at,
    next_wake,
    nothing_to_clear,
    persons_look_at,
    recheck_at,
    wake_stands,
)
from .port import Due, InMemoryTurnTimers, TurnTimers
from .redis_timers import FULL_SWEEP_S, RedisTurnTimers, bucket_tag
from .sweeper import (
    CLAIM_BATCH,
    DEFAULT_LEASE_MS,
    POLL_INTERVAL_S,
    RETRY_MS,
    StateOf,
    TimerSweeper,
)
from .wakeups import UNCONFIRMED_LOOK_MS, WakeUps

__all__ = [
    "CLAIM_BATCH",
    "DEFAULT_LEASE_MS",
    "FULL_SWEEP_S",
    "MAX_RECHECK_MS",
    "POLL_INTERVAL_S",
    "RETRY_MS",
    "UNCONFIRMED_LOOK_MS",
    "Due",
    "InMemoryTurnTimers",
    "RedisTurnTimers",
    "StateOf",
    "TimerSweeper",
    "TurnTimers",
    "WakeUps",
    "bucket_tag",
    "ends_look_at",
    "next_wake",
    "nothing_to_clear",
    "persons_look_at",
    "recheck_at",
    "wake_stands",
]
