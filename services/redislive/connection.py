"""The live reader's connection to one Redis server: the one module of this package that knows
redis-py's internals (the event store's wire, services/eventstore/redis/wire.py, is the other).

Why below the public client: a live reader's ``XREAD`` names every watched stream, and redis-py's
asyncio connections pack a command in Python one argument at a time (with 200 watched streams,
0.54 ms against 0.08 ms with hiredis, several hundred times a second); its ``execute_command``
adds a retry loop and observability hooks on top (docs/BENCHMARKS.md). So the reader's commands
are packed by hiredis in one call and sent on a connection of its own, and replies come back raw.

What it relies on beyond the public client (tests/store/test_redis_wire.py checks each by name):
``redis.asyncio.ConnectionPool.from_url(url, **options).make_connection()`` as a factory of a
connection no pool tracks; a connection's ``send_packed_command(packed, check_health=False)``
(which connects on first use and after a disconnect), ``read_response()`` and ``disconnect()``;
``redis.asyncio.retry.Retry`` with ``redis.backoff.NoBackoff``; ``hiredis.pack_command``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis.asyncio import ConnectionPool
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


def connection_options() -> dict[str, Any]:
    """redis-py options for connections whose calls their owner times and retries itself.

    No ``socket_timeout``: with one, redis-py sends through ``asyncio.wait_for``, which on
    Python 3.11 can swallow a cancellation, and a cancelled reader would then run on. No
    retries inside redis-py either: the reader owns reconnecting with backoff."""
    return {"socket_timeout": None, "retry": Retry(NoBackoff(), 0)}


class ReaderConnection:
    """A live reader's one connection to a server, named ``<client_name>-hub`` in ``CLIENT
    LIST`` (the name is the caller's: see :meth:`from_url`).

    A blocking ``XREAD`` holds its connection for up to the block time, so it gets its own; the
    connection's id (:meth:`client_id`) is what ``CLIENT UNBLOCK``, sent on another connection,
    names to end that block early.
    """

    def __init__(self, factory: ConnectionPool) -> None:
        self._connection: AbstractConnection = factory.make_connection()  # type: ignore[no-untyped-call]

    @classmethod
    def from_url(cls, url: str, *, client_name: str) -> ReaderConnection:
        """A reader connection to the server at ``url`` (``redis://``, ``rediss://``,
        ``unix://``), named ``client_name``; it connects on first use."""
        return cls(ConnectionPool.from_url(url, client_name=client_name, **connection_options()))

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

    async def xread_each(
        self, groups: Sequence[tuple[Sequence[bytes], Sequence[bytes]]], *, count: int
    ) -> list[Reply]:
        """One ``XREAD COUNT count STREAMS ...`` per group (streams of one cluster slot each),
        without blocking, all pipelined in one round trip: the raw replies, in order."""
        packed = b"".join(
            pack_command((b"XREAD", b"COUNT", count, b"STREAMS", *streams, *after))
            for streams, after in groups
        )
        connection = self._connection
        await connection.send_packed_command(packed, check_health=False)
        replies: list[Reply] = []
        refused: Exception | None = None
        for _ in groups:
            try:
                replies.append(await connection.read_response())
            except RedisConnectionError:
                raise
            except Exception as exc:  # a MOVED reply, say: read the rest before raising it
                refused = refused or exc
        if refused is not None:
            raise refused
        return replies

    async def _round_trip(self, packed: bytes) -> Reply:
        connection = self._connection
        await connection.send_packed_command(packed, check_health=False)
        return await connection.read_response()

    async def close(self) -> None:
        await self._connection.disconnect()
