"""Event store on Redis Streams: the production store, shared by every game service replica.

Layout: one stream per game at ``<prefix>:{<game_id>}:events``. The braces are a Redis Cluster
hash tag, so every key of one game lands in one slot and the append script stays single-slot.
Entry ids are explicit: the event at version ``n`` has id ``0-<n>``, so a stream's last id *is*
the game's version and ``XRANGE``/``XREAD`` from ``0-<n>`` are reads "after version n". Each
entry has the fields ``p`` (payload bytes), ``h`` (hash) and ``ph`` (previous hash); see
:mod:`services.eventstore.base` for the chain rule.

Appends are one ``EVALSHA`` in the common case: the client computes the hashes (Redis Lua has no
sha256) on top of the predecessor hash it remembers from its own last append or read, and the
script checks both the version *and* that hash against the stream's last entry before writing,
so neither a stale writer nor a stale cache can ever produce a gap, a duplicate or a broken link.

Live tails are served by the store's live reader (:class:`services.redislive.LiveReader`, the one
reader every Redis user of the process builds on): a single blocking ``XREAD`` over all games
that have subscribers, on one dedicated connection per server, fanned out to in-process queues,
so a replica with thousands of watching clients holds two Redis connections, not thousands.

The modules: ``store`` (:class:`RedisEventStore`: appends, reads, subscriptions, the head cache,
retries and errors), ``append.lua`` (the append script), ``entries`` (stream entries read back
as events) and ``wire`` (packing, sending and reading on connections of the store's own, and the
live reader's: with services/redislive/connection.py, the only module that knows redis-py's
internals).
"""

from .store import RedisEventStore

__all__ = ["RedisEventStore"]
