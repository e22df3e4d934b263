"""The event store's wire to Redis: with the live reader's connection
(services/redislive/connection.py), the one module that knows redis-py's internals.

Why it exists: on the store's hot paths, redis-py's own machinery was measured as a cost worth
avoiding (docs/BENCHMARKS.md). Its ``execute_command`` wraps every command in a retry loop,
observability hooks and a pool checkout that validates the connection: a third of an append's
client time, about 4% of a decision's CPU. Its asyncio connections pack commands in Python, one
argument at a time: the live reader's ``XREAD`` names every watched stream, and with 200 games
it took 0.54 ms to pack in Python against 0.08 ms with hiredis, several hundred times a second
(with ``execute_command``, 5% of the service). So here every command is packed by hiredis in one
call (services.redislive's ``pack_command``), sent on a connection this module keeps, and its
reply returned raw (stream entries are parsed by :mod:`.entries`, not by redis-py's callbacks).
The live reader's connection to each server (:class:`~services.redislive.ReaderConnection`) is
made here too, so that the store's wire is the reader's :class:`~services.redislive.Nodes`.

What it relies on beyond the public client (``redis.asyncio.Redis``) and ``redis.exceptions``;
tests/store/test_redis_wire.py checks each, by name, so that an upgrade breaking one fails there
and not in production. pyproject.toml pins the redis-py versions it is known to work with.

- ``redis.asyncio.ConnectionPool.from_url(url, **options)`` and its ``connection_kwargs``, and
  ``make_connection()`` as a factory: a connection set up as the URL says (TCP, TLS or unix
  socket; client name, credentials, database, protocol) that no pool tracks.
- A connection's ``send_packed_command(packed, check_health=False)``, which connects (and names
  the connection) on first use and again after a disconnect; ``read_response()``, which raises
  the server's error replies as ``redis.exceptions`` and disconnects on an interrupted read;
  ``disconnect(nowait=True)``.
- ``redis.asyncio.retry.Retry`` and ``redis.backoff.NoBackoff``, to switch redis-py's retries off,
  and ``hiredis.pack_command`` (both through services.redislive).
- ``redis._parsers.base.BaseParser.EXCEPTION_CLASSES``, the table from an error reply's first
  word to the exception redis-py raises: ``NOREPLICAS`` is added to it (as
  :class:`~.urls.NoReplicasError`), so that every client of ours, the store's own connections
  and redis-py's clients alike, tells a master without its replicas from a refused command.
- On a Redis Cluster (:class:`ClusterWire`): ``redis.asyncio.cluster.RedisCluster``'s
  ``get_node_from_key`` and ``get_primaries`` (public) and ``nodes_manager.initialize()``, which
  reads the slot map again after a ``MOVED`` reply or a failover; and, for
  :func:`slots_by_primary` and :func:`read_many`, ``nodes_manager.slots_cache`` (slot
  -> its nodes, primary first).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from redis._parsers.base import BaseParser
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.crc import key_slot
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.redislive import Arg, ReaderConnection, Reply, connection_options, pack_command

from .urls import NoReplicasError, is_cluster_url, plain_url

log = logging.getLogger(__name__)

BaseParser.EXCEPTION_CLASSES.setdefault("NOREPLICAS", NoReplicasError)

_ASKING = pack_command((b"ASKING",))


class _Connections:
    """A bounded set of connections to one Redis server, made by ``factory`` outside any pool.

    redis-py's asyncio pool fails a command outright when all its connections are in use; a
    burst of appends across many games waits for a free one here instead.
    """

    def __init__(self, factory: ConnectionPool, max_connections: int) -> None:
        self._factory = factory
        self._idle: list[AbstractConnection] = []
        self._slots = asyncio.Semaphore(max_connections)

    async def call(
        self, args: tuple[Arg, ...], then: tuple[Arg, ...] = (), *, asking: bool = False
    ) -> Reply:
        """``args`` on one connection, and ``then`` right after it on the same connection
        (pipelined: one round trip); the raw reply of ``args`` (and of ``then``, as a pair).
        ``asking``: preceded by ``ASKING`` (a cluster node importing the slot serves the one
        command after it).

        A connection error disconnects every idle connection too: after a Redis restart they
        are all dead, and the store's one retry must get a fresh one. redis-py disconnects a
        connection itself when a command is interrupted mid-reply (a timeout, a cancellation),
        and the next command on it reconnects.
        """
        async with self._slots:
            idle = self._idle
            connection = idle.pop() if idle else self._factory.make_connection()  # type: ignore[no-untyped-call]
            try:
                packed = pack_command(args)
                if asking:
                    packed = _ASKING + packed
                if then:
                    packed += pack_command(then)
                await connection.send_packed_command(packed, check_health=False)
                if asking:
                    await connection.read_response()  # OK
                if not then:
                    return await connection.read_response()
                try:
                    first = await connection.read_response()
                except RedisConnectionError:
                    raise
                except Exception:
                    await connection.read_response()  # the second reply is on its way: drain it
                    raise
                return first, await connection.read_response()
            except RedisConnectionError:
                for other in idle:
                    await other.disconnect(nowait=True)
                raise
            finally:
                idle.append(connection)

    async def close(self) -> None:
        for connection in self._idle:
            await connection.disconnect()
        self._idle.clear()


class StoreWire(Protocol):
    """What the store and its live reader need of their connections, on a standalone Redis
    (:class:`Wire`) or a Redis Cluster (:class:`ClusterWire`).

    Commands name their key first where they have one (``EVALSHA sha 1 key``, ``XRANGE key``):
    that is where a cluster sends them. The live reader reads per *address* (a server) and, on
    a cluster, per slot within it: :meth:`locate` says where a stream lives.
    """

    @property
    def redis(self) -> Redis | RedisCluster: ...

    async def call(self, *args: Arg) -> Reply: ...

    async def call_then_wait(
        self, args: tuple[Arg, ...], replicas: int, timeout_ms: int
    ) -> tuple[Reply, int]: ...

    async def run_ids(self) -> list[str]: ...

    def locate(self, key: bytes) -> tuple[str, int]: ...

    def reader_at(self, address: str) -> ReaderConnection: ...

    async def unblock(self, address: str, client_id: int) -> None: ...

    async def refresh(self) -> None: ...

    async def close(self) -> None: ...


def open_wire(url: str, *, client_name: str, max_connections: int) -> StoreWire:
    """The wire for ``url``: a :class:`ClusterWire` for ``redis+cluster://``, else a
    :class:`Wire`."""
    if is_cluster_url(url):
        return ClusterWire(url, client_name=client_name, max_connections=max_connections)
    return Wire(url, client_name=client_name, max_connections=max_connections)


# Timeouts are the store's (asyncio.timeout around each call), not redis-py's socket_timeout, and
# no retries inside redis-py: the store retries, so append knows when it did, and the live
# reader owns reconnecting with backoff (services.redislive.connection_options says why).
_options = connection_options


def _run_id(info: Reply) -> str:
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith("run_id:"):
            return line.removeprefix("run_id:").strip()
    return ""


class Wire:
    """The store's connections to one standalone Redis: a bounded set for its commands
    (:meth:`call`) and the live reader's own (:attr:`reader`).

    ``redis`` is redis-py's public client on the same URL, with the same options, for whatever
    is not on a hot path (operators' scans, say); the wire takes its connections from that
    client's pool factory, outside the pool.
    """

    def __init__(self, url: str, *, client_name: str, max_connections: int) -> None:
        self.redis: Redis = Redis.from_url(
            url, client_name=client_name, max_connections=max_connections, **_options()
        )
        factory = self.redis.connection_pool
        if factory.connection_kwargs.get("decode_responses"):
            raise ValueError("the event store reads raw payload bytes: drop decode_responses")
        self._connections = _Connections(factory, max_connections)
        self.reader = ReaderConnection(
            ConnectionPool.from_url(url, client_name=f"{client_name}-hub", **_options())
        )

    async def call(self, *args: Arg) -> Reply:
        """One command on one of the store's own connections; the raw reply.

        Waits for a free connection while ``max_connections`` are in use.
        """
        return await self._connections.call(args)

    async def call_then_wait(
        self, args: tuple[Arg, ...], replicas: int, timeout_ms: int
    ) -> tuple[Reply, int]:
        """``args``, then ``WAIT replicas timeout_ms`` on the same connection: the command's
        reply and how many replicas acknowledged every write made on that connection so far."""
        reply, acknowledged = await self._connections.call(args, (b"WAIT", replicas, timeout_ms))
        return reply, int(acknowledged)

    async def run_ids(self) -> list[str]:
        return [_run_id(await self.call("INFO", "server"))]

    def locate(self, key: bytes) -> tuple[str, int]:
        return "", 0

    def reader_at(self, address: str) -> ReaderConnection:
        return self.reader

    async def unblock(self, address: str, client_id: int) -> None:
        await self.call("CLIENT", "UNBLOCK", client_id)

    async def refresh(self) -> None:
        """Nothing to learn: a standalone Redis is always where the URL says."""

    async def close(self) -> None:
        """Disconnect the reader, every command connection and the public client."""
        await self.reader.close()
        await self.redis.aclose()
        await self._connections.close()


_KEYLESS = {b"INFO", b"CLIENT", b"SCRIPT", b"PING", b"WAIT"}
#: The longest a cluster node may take to answer a read of the slot map.
MAP_TIMEOUT_S = 2.0
#: The longest a master may take to tell its run id to the health probe (and a refresh of the
#: map after one did not: the two within the probe's own timeout).
_RUN_ID_TIMEOUT_S = 0.75


def _key_of(args: tuple[Arg, ...]) -> Arg | None:
    """The key a store command is routed by: ``EVAL``/``EVALSHA``'s first key, else the first
    argument; None for the keyless commands the store sends."""
    name = args[0].upper() if isinstance(args[0], bytes) else str(args[0]).upper().encode()
    if name in (b"EVAL", b"EVALSHA"):
        return args[3]
    if name in _KEYLESS:
        return None
    return args[1]


class ClusterWire:
    """The store's connections to a Redis Cluster: per master, a bounded set for commands and
    (once something is watched there) one live reader connection, so a replica holds one reader
    per node, whatever the number of watchers.

    Each command goes to the master of its key's slot, read from redis-py's slot map
    (``redis``, the public cluster client, which the lobby-style callers use too). A ``MOVED``
    reply (resharding done) or a node that went away (failover) re-reads the map; a ``MOVED``
    command is sent again at once, the rest is the store's retry. An ``ASK`` reply (a slot half
    migrated, this key moved already) sends the command to the importing node after
    ``ASKING``, without touching the map.
    """

    def __init__(self, url: str, *, client_name: str, max_connections: int) -> None:
        self._url = plain_url(url)
        self._client_name = client_name
        self._max_connections = max_connections
        # The public client reads the slot map (and serves operators' scans): with timeouts, so
        # that a paused node (its port open, nothing answering) cannot hold up a refresh of
        # the map while the cluster promotes its replica. The store's own connections have none
        # (see _options): the store times its calls itself.
        self.redis: RedisCluster = RedisCluster.from_url(
            self._url,
            client_name=client_name,
            socket_timeout=MAP_TIMEOUT_S,
            socket_connect_timeout=MAP_TIMEOUT_S,
        )
        self._nodes: dict[str, _Connections] = {}
        self._readers: dict[str, ReaderConnection] = {}
        self._started = False

    def _node_url(self, address: str) -> str:
        parts = urlsplit(self._url)
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo}@{address}" if userinfo else address
        return urlunsplit((parts.scheme, netloc, "", parts.query, ""))

    def _connections_at(self, address: str) -> _Connections:
        connections = self._nodes.get(address)
        if connections is None:
            factory = ConnectionPool.from_url(
                self._node_url(address), client_name=self._client_name, **_options()
            )
            if factory.connection_kwargs.get("decode_responses"):
                raise ValueError("the event store reads raw payload bytes: drop decode_responses")
            connections = self._nodes[address] = _Connections(factory, self._max_connections)
        return connections

    async def _ensure_map(self) -> None:
        if not self._started:
            await self.redis.initialize()
            self._started = True

    async def _address_of(self, key: Arg) -> str:
        await self._ensure_map()
        raw = key if isinstance(key, bytes) else str(key).encode()
        node = self.redis.get_node_from_key(raw.decode())
        if node is None:
            raise ClusterDownError(f"no node serves the slot of {raw!r}")
        return f"{node.host}:{node.port}"

    async def _routed(self, args: tuple[Arg, ...], then: tuple[Arg, ...] = ()) -> Reply:
        key = _key_of(args)
        if key is None:
            raise ValueError(f"{args[0]!r} names no key: the cluster wire cannot route it")
        for _attempt in range(3):
            address = await self._address_of(key)
            try:
                return await self._connections_at(address).call(args, then)
            except MovedError:
                # The slot moved (resharding, failover): read the map again and send the
                # command where it now belongs.
                await self.refresh()
            except AskError as ask:
                # The slot is migrating and this key has gone already: the importing node
                # serves it after ASKING. The map stays as it is until the slot has moved.
                return await self._connections_at(f"{ask.host}:{ask.port}").call(
                    args, then, asking=True
                )
            except (RedisConnectionError, RedisTimeoutError, ClusterDownError, TryAgainError):
                # A node went away: the map will tell who took over its slots once the
                # cluster has promoted a replica; the caller's retry goes there.
                with contextlib.suppress(Exception):
                    await self.refresh()
                raise
        raise ClusterDownError(f"slot of {key!r} kept moving")

    async def call(self, *args: Arg) -> Reply:
        return await self._routed(args)

    async def call_then_wait(
        self, args: tuple[Arg, ...], replicas: int, timeout_ms: int
    ) -> tuple[Reply, int]:
        reply, acknowledged = await self._routed(args, (b"WAIT", replicas, timeout_ms))
        return reply, int(acknowledged)

    async def run_ids(self) -> list[str]:
        """The run id of every master that answers within ``_RUN_ID_TIMEOUT_S``, all asked at
        once: a failover or a restart anywhere changes the list, and so does a master that
        stops answering. Raises the first master's error only when none answers: a cluster
        with one master away still serves the games of the others."""
        await self._ensure_map()
        nodes = self.redis.get_primaries()
        answers = await asyncio.gather(
            *(self._run_id_of(f"{node.host}:{node.port}") for node in nodes),
            return_exceptions=True,
        )
        ids = [answer for answer in answers if isinstance(answer, str)]
        if len(ids) < len(answers):
            # A master went away: the next probe asks the masters the map then names (after a
            # failover, the promoted replica).
            with contextlib.suppress(Exception):
                async with asyncio.timeout(_RUN_ID_TIMEOUT_S):
                    await self.refresh()
        if not ids:
            failure = next(a for a in answers if isinstance(a, BaseException))
            raise failure
        return sorted(ids)

    async def _run_id_of(self, address: str) -> str:
        async with asyncio.timeout(_RUN_ID_TIMEOUT_S):
            return _run_id(await self._connections_at(address).call((b"INFO", b"server")))

    def locate(self, key: bytes) -> tuple[str, int]:
        """The master serving ``key`` and its slot (the map must have been read: a reader only
        locates keys after a command, and :meth:`refresh` reads it again)."""
        node = self.redis.get_node_from_key(key.decode())
        if node is None:
            return "", key_slot(key)
        return f"{node.host}:{node.port}", key_slot(key)

    def reader_at(self, address: str) -> ReaderConnection:
        reader = self._readers.get(address)
        if reader is None:
            reader = self._readers[address] = ReaderConnection(
                ConnectionPool.from_url(
                    self._node_url(address), client_name=f"{self._client_name}-hub", **_options()
                )
            )
        return reader

    async def unblock(self, address: str, client_id: int) -> None:
        await self._connections_at(address).call((b"CLIENT", b"UNBLOCK", client_id))

    async def refresh(self) -> None:
        """Read the slot map again (after a ``MOVED``, or when a node went away)."""
        await self._ensure_map()
        await self.redis.nodes_manager.initialize()

    async def close(self) -> None:
        for reader in self._readers.values():
            await reader.close()
        self._readers.clear()
        for connections in self._nodes.values():
            await connections.close()
        self._nodes.clear()
        await self.redis.aclose()


def slots_by_primary(cluster: RedisCluster) -> list[tuple[Any, list[int]]]:
    """Every master of the cluster as the client's slot map names it (a ``ClusterNode``, for
    ``execute_command(..., target_nodes=node)``), with the slots it serves, in slot order: for
    work done per master over keys of many slots (the turn timers' sweep)."""
    return primaries_of(cluster, list(cluster.nodes_manager.slots_cache))


def primaries_of(cluster: RedisCluster, slots: list[int]) -> list[tuple[Any, list[int]]]:
    """These slots grouped by the master that serves each in the client's slot map, in slot
    order (a slot no master serves there is left out)."""
    by_name: dict[str, tuple[Any, list[int]]] = {}
    cache = cluster.nodes_manager.slots_cache
    for slot in sorted(slots):
        nodes = cache.get(slot)
        if nodes:
            by_name.setdefault(nodes[0].name, (nodes[0], []))[1].append(slot)
    return list(by_name.values())


# ARGV: a hash's field ('': the keys are strings), then the keys, undeclared: on a cluster they
# are on many slots of the one master this runs on (grouped by the client's slot map), which a
# cluster allows only with allow-cross-slot-keys (Redis 7). A key that master no longer serves
# (its slot moved since) fails the script, and its caller reads those keys again by redis-py's
# pipeline, which follows the redirections.
_READ_MANY = """#!lua flags=no-writes,allow-cross-slot-keys
local field, values = ARGV[1], {}
for i = 2, #ARGV do
  if field == '' then values[i - 1] = redis.call('GET', ARGV[i])
  else values[i - 1] = redis.call('HGET', ARGV[i], field) end
end
return values
"""
# On one Redis the keys need no flag: the same script without its first line, which a Redis
# before 7 would refuse.
_READ_MANY_UNFLAGGED = _READ_MANY.partition("\n")[2]
#: What sends a master's keys to the pipeline instead: the script refused (a slot that moved),
#: the master away.
_READ_FALLS_BACK = (ResponseError, RedisConnectionError, RedisTimeoutError, ClusterDownError)


async def read_many(
    client: Redis | RedisCluster, names: Sequence[str], field: str | None = None
) -> list[Any]:
    """Each key's value (its hash's ``field``, else the string), None where there is none, in
    the order of ``names``, in one round trip: on a standalone Redis one ``MGET`` (strings) or
    one script (hash fields); on a cluster, where the keys are on many slots, one script per
    master, the masters asked at once.

    Why: redis-py packs and parses every command in Python, so a pipeline of a command per key
    costs the client most of the read: on a cluster 5.4 ms of CPU for a hundred tables and a
    hundred summaries (ListMyGames) against 1.1 ms as one script a master (docs/BENCHMARKS.md).
    On a cluster the keys go to the master the client's slot map names; where that fails (a
    slot that moved, a master away) those keys are read by the pipeline, which follows
    ``MOVED`` and reads the slot map again. Errors a read still meets are the caller's to
    answer."""
    if not names:
        return []
    if not isinstance(client, RedisCluster):
        if field is None:
            return list(await client.mget(names))
        return list(await client.eval(_READ_MANY_UNFLAGGED, 0, field, *names))
    return await _read_across_slots(client, names, field)


async def _read_across_slots(
    cluster: RedisCluster, names: Sequence[str], field: str | None
) -> list[Any]:
    """:func:`read_many` on a cluster."""
    indexes_of: dict[int, list[int]] = {}
    for index, name in enumerate(names):
        indexes_of.setdefault(key_slot(name.encode()), []).append(index)
    values: list[Any] = [None] * len(names)
    groups: list[tuple[Any, list[int]]] = [
        (node, [index for slot in slots for index in indexes_of[slot]])
        for node, slots in primaries_of(cluster, list(indexes_of))
    ]
    mapped = {index for _, indexes in groups for index in indexes}
    if len(mapped) < len(names):  # slots the client's map names no master for (a master away)
        groups.append((None, [index for index in range(len(names)) if index not in mapped]))

    async def read(node: Any, indexes: list[int]) -> None:
        """One master's keys by script; by the pipeline where that fails or no master is
        known."""
        keys = [names[index] for index in indexes]
        reply: list[Any] | None = None
        if node is not None:
            try:
                reply = await cluster.execute_command(
                    "EVAL", _READ_MANY, 0, field or "", *keys, target_nodes=node
                )
            except _READ_FALLS_BACK as error:
                log.info("reading %d keys on %s by pipeline (%s)", len(keys), node.name, error)
        if reply is None:
            reply = await _pipelined(cluster, keys, field)
        for index, value in zip(indexes, reply, strict=True):
            values[index] = value

    await asyncio.gather(*(read(node, indexes) for node, indexes in groups))
    return values


async def _pipelined(cluster: RedisCluster, keys: Sequence[str], field: str | None) -> list[Any]:
    async with cluster.pipeline(transaction=False) as pipe:
        for key in keys:
            if field is None:
                pipe.get(key)
            else:
                pipe.hget(key, field)
        replies: list[Any] = await pipe.execute()
    return replies
