"""Where a stream lives and the reader's connection there: on a standalone Redis one server
(address ``""``), on a Redis Cluster the master serving the stream's slot.

:class:`Nodes` is what the live reader needs; the event store's wire provides it itself (it has
its own connections and slot map), and :class:`ClientNodes` provides it for a user that holds
one of redis-py's public clients (the notifications, the lobby, table chat).
"""

from __future__ import annotations

from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import ClusterDownError, RedisClusterException, RedisError

from .connection import ReaderConnection


class Nodes(Protocol):
    """What the live reader needs to know of the servers.

    ``locate`` says on which server (its address, ``""`` on a standalone Redis) and in which
    slot a stream lives; ``reader_at`` gives the reader's one connection to that server;
    ``unblock`` sends ``CLIENT UNBLOCK client_id`` to it on another connection; ``refresh``
    reads a cluster's slot map again (after a ``MOVED``, or a server gone).
    """

    def locate(self, key: bytes) -> tuple[str, int]: ...

    def reader_at(self, address: str) -> ReaderConnection: ...

    async def unblock(self, address: str, client_id: int) -> None: ...

    async def refresh(self) -> None: ...


def node_url(url: str, address: str) -> str:
    """The URL of the server at ``address`` (``host:port``) of the Redis ``url`` names: its
    scheme without ``+cluster``, its credentials and options, no database on a cluster."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{address}" if userinfo else address
    return urlunsplit((parts.scheme.removesuffix("+cluster"), netloc, "", parts.query, ""))


class ClientNodes:
    """:class:`Nodes` for a user of redis-py's public client ``client`` on ``url``: its slot
    map (a :class:`~redis.asyncio.cluster.RedisCluster`'s) says where streams live, and it
    sends ``CLIENT UNBLOCK``; the reader's own connections are made here, one per server, named
    ``client_name``.

    What it relies on beyond the public client: ``RedisCluster.get_node_from_key``,
    ``get_node`` and ``initialize`` (public) and ``nodes_manager.initialize()``, which reads
    the slot map again, as the event store's cluster wire does.
    """

    def __init__(self, url: str, client: Redis | RedisCluster, *, client_name: str) -> None:
        self._url = url
        self._client = client
        self._client_name = client_name
        self._readers: dict[str, ReaderConnection] = {}
        self._map_read = False

    def locate(self, key: bytes) -> tuple[str, int]:
        client = self._client
        if not isinstance(client, RedisCluster):
            return "", 0
        slot = key_slot(key)
        try:
            node = client.get_node_from_key(key.decode())
        except (RedisError, RedisClusterException, IndexError, KeyError):
            node = None  # the map is not read yet, or no master serves the slot
        return ("", slot) if node is None else (f"{node.host}:{node.port}", slot)

    def reader_at(self, address: str) -> ReaderConnection:
        reader = self._readers.get(address)
        if reader is None:
            if isinstance(self._client, RedisCluster):
                if not address:
                    # Located before the slot map was read: the reader refreshes and retries.
                    raise ClusterDownError("no master known for the slot yet")
                url = node_url(self._url, address)
            else:
                url = self._url
            reader = self._readers[address] = ReaderConnection.from_url(
                url, client_name=self._client_name
            )
        return reader

    async def unblock(self, address: str, client_id: int) -> None:
        client = self._client
        if isinstance(client, RedisCluster):
            host, _, port = address.rpartition(":")
            node = client.get_node(host=host, port=int(port))
            if node is None:
                return
            await client.client_unblock(client_id, target_nodes=node)
        else:
            await client.client_unblock(client_id)

    async def refresh(self) -> None:
        client = self._client
        if not isinstance(client, RedisCluster):
            return
        if not self._map_read:
            await client.initialize()
            self._map_read = True
        else:
            await client.nodes_manager.initialize()

    async def close(self) -> None:
        for reader in self._readers.values():
            await reader.close()
        self._readers.clear()
