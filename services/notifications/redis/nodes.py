"""Writing on a Redis Cluster master by master, so that one master away holds up only its own
keys.

redis-py's cluster client sends a pipeline to every master it names at once and answers when
the last one has: one master that does not answer (paused, or dead until its replica takes
over) holds up the keys of every other. Here each master has a client of its own
(:meth:`ClusterNodes.client_at`), found through redis-py's slot map (:meth:`address_of`), and
every call is bounded by its caller (its clients have no socket timeout, as no client here has:
see services/eventstore/redis/urls.py). A call that failed, or met a slot that moved, asks for
the map to be read again (:meth:`refresh_soon`), in the background, so that the callers' retries
go where the slots now are while nothing waits for the read.

What it relies on beyond redis-py's public clients: ``RedisCluster.get_node_from_key`` (public)
and ``nodes_manager.initialize()``, as the event store's cluster wire does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import urlsplit, urlunsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    ResponseError,
)

from services.eventstore import TRANSIENT_REDIS_ERRORS, standalone_client
from services.tasks import cancel_and_wait

logger = logging.getLogger(__name__)

#: Error replies that mean "not now" rather than "never": a replica not promoted yet, or a
#: master without the replicas `min-replicas-to-write` asks for.
_TRANSIENT_CODES = ("NOREPLICAS", "MASTERDOWN", "LOADING", "READONLY", "TRYAGAIN", "CLUSTERDOWN")


def transient(error: BaseException) -> bool:
    """Whether `error` (raised, or one command's reply) may pass: the store is away, failing
    over, or its slot moved. Anything else (a key of a foreign type, say) would recur."""
    if isinstance(error, (*TRANSIENT_REDIS_ERRORS, AskError, ReadOnlyError)):
        return True  # (AskError covers MovedError)
    return isinstance(error, ResponseError) and str(error).startswith(_TRANSIENT_CODES)


def node_url(cluster_url: str, address: str) -> str:
    """The URL of one node (``host:port``) of the cluster `cluster_url` names: its scheme
    without ``+cluster``, its credentials and options, no database."""
    parts = urlsplit(cluster_url)
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@{address}" if userinfo else address
    return urlunsplit((parts.scheme.removesuffix("+cluster"), netloc, "", parts.query, ""))


class ClusterNodes:
    """A client per master of the cluster `cluster` (built from `url`) serves, for writing."""

    def __init__(
        self, cluster: RedisCluster, url: str, *, client_name: str, timeout: float
    ) -> None:
        self._cluster = cluster
        self._url = url
        self._client_name = client_name
        self._timeout = timeout
        self._clients: dict[str, Redis] = {}
        self._ready = False
        self._refresh: asyncio.Task[None] | None = None

    async def ready(self) -> None:
        """Read the slot map, the first time (bounded)."""
        if not self._ready:
            async with asyncio.timeout(self._timeout):
                await self._cluster.initialize()
            self._ready = True

    def address_of(self, key: str) -> str:
        """The master serving `key`'s slot, as ``host:port`` ("" before the map is read, or
        when no master serves it)."""
        if not self._ready:
            return ""
        try:
            node = self._cluster.get_node_from_key(key)
        except (RedisError, RedisClusterException):  # no master serves the slot
            return ""
        return "" if node is None else f"{node.host}:{node.port}"

    def client_at(self, address: str) -> Redis:
        """The client of the node at `address` (made on first use): no retries of its own, no
        socket timeout; the caller bounds each call."""
        client = self._clients.get(address)
        if client is None:
            client = self._clients[address] = standalone_client(
                node_url(self._url, address),
                client_name=self._client_name,
                socket_timeout=None,
                retry=Retry(NoBackoff(), 0),
            )
        return client

    def refresh_soon(self) -> None:
        """Read the slot map again, in the background (once at a time, bounded)."""
        if self._ready and (self._refresh is None or self._refresh.done()):
            self._refresh = asyncio.get_running_loop().create_task(
                self._read_map(), name="notify-cluster-map"
            )

    async def _read_map(self) -> None:
        try:
            async with asyncio.timeout(self._timeout):
                await self._cluster.nodes_manager.initialize()
        except Exception as exc:  # the next failure asks again
            logger.info("reading the cluster's slot map failed (%r); asked again later", exc)

    async def close(self) -> None:
        if self._refresh is not None:
            await cancel_and_wait(self._refresh)
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()
        self._clients.clear()
