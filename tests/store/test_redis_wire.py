"""The store's wire: what it relies on in redis-py and hiredis is there, and works on a real Redis.

services/eventstore/redis/wire.py uses redis-py below its public client, where an upgrade may
change things without notice. Each internal it uses is checked here by name, so that raising the
pin in pyproject.toml fails here, saying what changed, rather than somewhere in production.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

import hiredis
import pytest
import redis
import redis.asyncio as aioredis
from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection, Connection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from services.eventstore.redis.wire import Wire, pack_command
from tests.store.redis_stores import wait_for_blocked_reader

NAME = "wire-test"


def _takes(function: Callable[..., Any], *keywords: str) -> None:
    """``function`` accepts ``keywords`` and requires no argument but ``self``."""
    signature = inspect.signature(function)
    missing = [keyword for keyword in keywords if keyword not in signature.parameters]
    assert not missing, f"no parameter {missing} in {signature}"
    required = [
        parameter.name
        for parameter in signature.parameters.values()
        if parameter.default is parameter.empty
        and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        and parameter.name not in ("self", *keywords)
    ]
    assert not required, f"requires {required} in {signature}"


def _makes_connections() -> None:
    _takes(ConnectionPool.make_connection)
    for url in ("redis://localhost:6379/0", "rediss://localhost:6380/0", "unix:///run/r.sock"):
        connection = ConnectionPool.from_url(url, client_name=NAME).make_connection()
        assert isinstance(connection, AbstractConnection), f"{url}: {type(connection)}"


def _sees_decode_responses() -> None:
    url = "redis://localhost:6379/0?decode_responses=true"
    kwargs = ConnectionPool.from_url(url).connection_kwargs
    assert kwargs.get("decode_responses"), f"no decode_responses among {sorted(kwargs)}"


def _switches_retries_off() -> None:
    retry = Retry(NoBackoff(), 0)
    kwargs = ConnectionPool.from_url("redis://localhost:6379/0", retry=retry).connection_kwargs
    assert kwargs.get("retry") is retry, f"no retry among {sorted(kwargs)}"


def _packs_in_one_call() -> None:
    packed = hiredis.pack_command((b"XREAD", b"COUNT", 512, "STREAMS", b"k", b"0-1"))
    assert isinstance(packed, bytes), f"returned {type(packed)}"


def _reads_the_cluster_map() -> None:
    from redis.asyncio.cluster import RedisCluster

    _takes(RedisCluster.get_node_from_key, "key")
    _takes(RedisCluster.get_primaries)
    client = RedisCluster(host="localhost", port=6379)  # no I/O until initialize()
    _takes(client.nodes_manager.initialize)


RELIED_ON: dict[str, Callable[[], None]] = {
    "ConnectionPool.from_url(url, **options).make_connection()": _makes_connections,
    "ConnectionPool.connection_kwargs": _sees_decode_responses,
    "AbstractConnection.send_packed_command(packed, check_health=False)": lambda: _takes(
        AbstractConnection.send_packed_command, "command", "check_health"
    ),
    "AbstractConnection.read_response()": lambda: _takes(AbstractConnection.read_response),
    "AbstractConnection.disconnect(nowait=True)": lambda: _takes(
        AbstractConnection.disconnect, "nowait"
    ),
    "redis.asyncio.retry.Retry(redis.backoff.NoBackoff(), 0)": _switches_retries_off,
    "hiredis.pack_command(args)": _packs_in_one_call,
    "RedisCluster.get_node_from_key(key), get_primaries(), nodes_manager.initialize()": (
        _reads_the_cluster_map
    ),
}


@pytest.mark.parametrize("internal", RELIED_ON)
def test_every_internal_the_wire_relies_on_is_there(internal: str) -> None:
    # (A module or class that is gone altogether fails sooner, at the wire's own imports.)
    try:
        RELIED_ON[internal]()
    except (AssertionError, AttributeError, TypeError, ValueError) as exc:
        broken = f"{type(exc).__name__}: {exc}"
    else:
        return
    pytest.fail(
        f"redis-py {redis.__version__} / hiredis {hiredis.__version__}: {internal} is not "
        f"what services/eventstore/redis/wire.py relies on ({broken}). Adapt wire.py to this "
        "version, or keep the pin on redis in pyproject.toml below it.",
        pytrace=False,
    )


@pytest.fixture
async def wire(fresh_redis_url: str) -> AsyncIterator[Wire]:
    opened = Wire(fresh_redis_url, client_name=NAME, max_connections=3)
    yield opened
    await opened.close()


async def test_a_command_round_trips_raw_on_a_connection_named_as_the_store(
    wire: Wire, raw_redis: aioredis.Redis
) -> None:
    assert await wire.call("SET", "key", b"\x00\xff bytes") == b"OK"
    assert await wire.call("GET", "key") == b"\x00\xff bytes"
    assert await wire.call("XADD", "stream", "0-1", "p", b"deal") == b"0-1"
    assert await wire.call("XRANGE", "stream", "-", "+") == [[b"0-1", [b"p", b"deal"]]]
    assert NAME in [client["name"] for client in await raw_redis.client_list()]


async def test_error_replies_are_raised_as_redis_py_exceptions(wire: Wire) -> None:
    with pytest.raises(NoScriptError):
        await wire.call("EVALSHA", "0" * 40, 0)
    await wire.call("SET", "key", "not a stream")
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        await wire.call("XRANGE", "key", "-", "+")
    assert await wire.call("PING") == b"PONG"  # the connection survived both


async def test_the_reader_reads_streams_raw_on_its_own_named_connection(
    wire: Wire, raw_redis: aioredis.Redis
) -> None:
    reader_id = await wire.reader.client_id()
    clients = {client["name"]: int(client["id"]) for client in await raw_redis.client_list()}
    assert clients[f"{NAME}-hub"] == reader_id

    assert await wire.reader.xread([b"stream"], [b"0-0"], count=10, block_ms=10) is None
    await raw_redis.xadd("stream", {"p": b"deal"}, id="0-1")
    await raw_redis.xadd("stream", {"p": b"bid"}, id="0-2")
    reply = await wire.reader.xread([b"stream", b"other"], [b"0-0", b"0-0"], count=1, block_ms=10)
    # A map under RESP3 (redis-py's default from 8.0 on), [stream, entries] pairs under RESP2.
    assert dict(reply) == {b"stream": [[b"0-1", [b"p", b"deal"]]]}


async def test_a_blocked_read_ends_when_another_connection_unblocks_it(
    wire: Wire, raw_redis: aioredis.Redis
) -> None:
    reader_id = await wire.reader.client_id()
    blocked = asyncio.ensure_future(wire.reader.xread([b"s"], [b"0-0"], count=1, block_ms=60_000))
    await wait_for_blocked_reader(raw_redis, NAME)
    assert await wire.call("CLIENT", "UNBLOCK", reader_id) == 1
    assert await asyncio.wait_for(blocked, timeout=10) is None


async def test_after_a_connection_error_the_next_commands_all_get_fresh_connections(
    wire: Wire, raw_redis: aioredis.Redis
) -> None:
    # Three connections, left idle (as after a burst), then all killed (as by a Redis restart).
    await asyncio.gather(*[wire.call("BLPOP", "nothing", 0.05) for _ in range(3)])
    ids = [c["id"] for c in await raw_redis.client_list() if c["name"] == NAME]
    assert len(ids) == 3
    for client_id in ids:
        await raw_redis.execute_command("CLIENT", "KILL", "ID", client_id)

    with pytest.raises(RedisConnectionError):
        await wire.call("PING")
    assert await asyncio.gather(*[wire.call("PING") for _ in range(3)]) == [b"PONG"] * 3


async def test_more_calls_at_once_than_connections_wait_for_one(
    wire: Wire, raw_redis: aioredis.Redis
) -> None:
    replies = await asyncio.gather(*[wire.call("INCR", "calls") for _ in range(50)])
    assert sorted(replies) == list(range(1, 51))
    names = [c["name"] for c in await raw_redis.client_list() if c["name"] == NAME]
    assert 1 <= len(names) <= 3


def test_hiredis_packs_byte_for_byte_as_redis_py_would() -> None:
    command = ("EVALSHA", "ab12", 1, "verrater:{g-1}:events", 7, b"\x00\xffpayload", "0" * 64)
    assert pack_command(command) == b"".join(Connection().pack_command(*command))
    assert pack_command(("XREAD", "STREAMS", "verrater:{gäme}:events", "0-0")) == b"".join(
        Connection().pack_command("XREAD", "STREAMS", "verrater:{gäme}:events", "0-0")
    )
