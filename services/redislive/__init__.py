"""One Redis live reader: the tail of many streams, for every user in the process.

:class:`LiveReader` follows the streams its subscriptions name: on a standalone Redis one
blocking ``XREAD`` over all of them on one connection; on a Redis Cluster one reader per master,
reading the slots it serves (one command names keys of one slot only): one connection per node
per process, whatever the number of subscribers. It reconnects with backoff (reading a cluster's
slot map again after a failover or a ``MOVED``) and resumes where it stood, so nothing is
missed. It fans out to in-process :class:`Subscription` queues, bounded: a subscriber that falls
behind is told to :class:`Resync` (read again from its own cursor) rather than buffered without
bound.

Its users: the event store (services/eventstore/redis, game streams), the notifications
(services/notifications/redis, player inboxes), the lobby (services/lobby, its table-change
stream). Each keeps its own semantics (catching up, holes, duplicates, its errors); what is
shared is the tailing, the reconnecting and the fan-out. A new user::

    reader = LiveReader.on_client(url, redis_client, client_name="verrater-chat")
    subscription = await reader.subscribe(key, after_entry_id)   # e.g. b"0-0", or a cursor
    async for item in subscription:                                # Batch | Resync
        if isinstance(item, Resync):
            ...  # XRANGE from the last entry id handled, then go on
        else:
            for entry_id, fields in item.entries:  # fields: [name, value, name, value, ...]
                ...
    subscription.close()   # or `async with subscription:`; reader.close() at shutdown

The modules: ``reader`` (:class:`LiveReader`), ``subscription`` (what a subscriber sees),
``nodes`` (where a stream lives: :class:`Nodes`, :class:`ClientNodes`) and ``connection``
(:class:`ReaderConnection`, the one module here that knows redis-py's internals).
"""

from .connection import Arg, ReaderConnection, Reply, connection_options, pack_command
from .nodes import ClientNodes, Nodes, node_url
from .reader import RECONNECT_FIRST_DELAY, RECONNECT_MAX_DELAY, TRANSIENT, LiveReader
from .subscription import (
    Batch,
    Entry,
    EntryId,
    ReaderClosed,
    ReaderFailed,
    Resync,
    Subscription,
    fields_of,
    format_entry_id,
    parse_entry_id,
)

__all__ = [
    "RECONNECT_FIRST_DELAY",
    "RECONNECT_MAX_DELAY",
    "TRANSIENT",
    "Arg",
    "Batch",
    "ClientNodes",
    "Entry",
    "EntryId",
    "LiveReader",
    "Nodes",
    "ReaderClosed",
    "ReaderConnection",
    "ReaderFailed",
    "Reply",
    "Resync",
    "Subscription",
    "connection_options",
    "fields_of",
    "format_entry_id",
    "node_url",
    "pack_command",
    "parse_entry_id",
]
