"""The event store's wire to Redis: the one module that knows redis-py's internals.

Why it exists: on the store's hot paths, redis-py's own machinery was measured as a cost worth
avoiding (docs/BENCHMARKS.md). Its ``execute_command`` wraps every command in a retry loop,
observability hooks and a pool checkout that validates the connection: a third of an append's
client time, about 4% of a decision's CPU. Its asyncio connections pack commands in Python, one
argument at a time: the live reader's ``XREAD`` names every watched stream, and with 200 games
it took 0.54 ms to pack in Python against 0.08 ms with hiredis, several hundred times a second
(with ``execute_command``, 5% of the service). So here every command is packed by hiredis in one
call, sent on a connection this module keeps, and its reply returned raw (stream entries are
parsed by :mod:`.entries`, not by redis-py's callbacks).

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
- ``redis.asyncio.retry.Retry`` and ``redis.backoff.NoBackoff``, to switch redis-py's retries off.
- ``hiredis.pack_command``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

Arg = bytes | str | int
"""A command's name or argument, as hiredis packs it (``str`` as UTF-8)."""

Reply = Any
"""A raw reply as the connection's parser returns it: ``bytes``, ``int``, ``None``, lists of
those (maps too, under RESP3). Error replies are raised as ``redis.exceptions`` instead."""


def pack_command(args: tuple[Arg, ...]) -> bytes:
    """``args`` as one RESP command, packed by hiredis in one call."""
    # (hiredis's stub types the tuple as one element long)
    packed: bytes = hiredis.pack_command(cast(Any, args))
    return packed


class Wire:
    """The store's connections to one Redis: a bounded set for its commands (:meth:`call`) and
    the live reader's own (:attr:`reader`).

    ``redis`` is redis-py's public client on the same URL, with the same options, for whatever
    is not on a hot path (operators' scans, say); the wire takes its connections from that
    client's pool factory, outside the pool.
    """

    def __init__(self, url: str, *, client_name: str, max_connections: int) -> None:
        # Timeouts are the store's (asyncio.timeout around each call), not redis-py's
        # socket_timeout: with one set, redis-py sends through asyncio.wait_for, which on Python
        # 3.11 can swallow a cancellation, and a cancelled subscriber or hub would then run on.
        # No retries inside redis-py either: the store retries, so append knows when it did, and
        # the hub owns reconnecting with backoff.
        options: dict[str, Any] = {"socket_timeout": None, "retry": Retry(NoBackoff(), 0)}
        self.redis: Redis = Redis.from_url(
            url, client_name=client_name, max_connections=max_connections, **options
        )
        self._factory = self.redis.connection_pool
        if self._factory.connection_kwargs.get("decode_responses"):
            raise ValueError("the event store reads raw payload bytes: drop decode_responses")
        self._idle: list[AbstractConnection] = []
        # redis-py's asyncio pool fails a command outright when all its connections are in use;
        # a burst of appends across many games waits for a free one here instead.
        self._slots = asyncio.Semaphore(max_connections)
        self.reader = ReaderConnection(
            ConnectionPool.from_url(url, client_name=f"{client_name}-hub", **options)
        )

    async def call(self, *args: Arg) -> Reply:
        """One command on one of the store's own connections; the raw reply.

        Waits for a free connection while ``max_connections`` are in use. A connection error
        disconnects every idle connection too: after a Redis restart they are all dead, and the
        store's one retry must get a fresh one. redis-py disconnects a connection itself when a
        command is interrupted mid-reply (a timeout, a cancellation), and the next command on
        it reconnects.
        """
        async with self._slots:
            idle = self._idle
            connection = idle.pop() if idle else self._factory.make_connection()  # type: ignore[no-untyped-call]
            try:
                await connection.send_packed_command(pack_command(args), check_health=False)
                return await connection.read_response()
            except RedisConnectionError:
                for other in idle:
                    await other.disconnect(nowait=True)
                raise
            finally:
                idle.append(connection)

    async def close(self) -> None:
        """Disconnect the reader, every command connection and the public client."""
        await self.reader.close()
        await self.redis.aclose()
        for connection in self._idle:
            await connection.disconnect()
        self._idle.clear()


class ReaderConnection:
    """The live reader's one connection, named ``<client_name>-hub`` in ``CLIENT LIST``.

    A blocking ``XREAD`` holds its connection for up to the block time, so it gets its own; the
    connection's id (:meth:`client_id`) is what ``CLIENT UNBLOCK``, sent on another connection,
    names to end that block early.
    """

    def __init__(self, factory: ConnectionPool) -> None:
        self._connection: AbstractConnection = factory.make_connection()  # type: ignore[no-untyped-call]

    async def client_id(self) -> int:
        """The connection's id, connecting first if it is not (a reconnect gets a new id)."""
        return int(await self._round_trip(pack_command((b"CLIENT", b"ID"))))

    async def xread(
        self, streams: Sequence[bytes], after: Sequence[bytes], *, count: int, block_ms: int
    ) -> Reply:
        """``XREAD COUNT count BLOCK block_ms STREAMS *streams *after``: the raw reply, ``None``
        when the block ran out (or was ended by ``CLIENT UNBLOCK``) with nothing new."""
        return await self._round_trip(
            pack_command(
                (b"XREAD", b"COUNT", count, b"BLOCK", block_ms, b"STREAMS", *streams, *after)
            )
        )

    async def _round_trip(self, packed: bytes) -> Reply:
        connection = self._connection
        await connection.send_packed_command(packed, check_health=False)
        return await connection.read_response()

    async def close(self) -> None:
        await self._connection.disconnect()
