"""The services' redis-py clients (`redis_client`) under more commands at once than they keep
connections: every command waits for a connection and is answered, none fails (redis-py's own
standalone pool raises MaxConnectionsError past 100, which a replica would answer
UNAVAILABLE)."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import redis_client
from services.eventstore.redis.urls import MAX_CONNECTIONS

#: Commands at once: more than a client keeps connections (on a cluster: to one node, where
#: redis-py's cluster client waits and retries by itself).
AT_ONCE = 5 * MAX_CONNECTIONS


@pytest.mark.parametrize("kind", ["redis", "redis-cluster"])
async def test_more_commands_at_once_than_connections_all_answer(
    kind: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("fresh_redis_url" if kind == "redis" else "fresh_cluster_url")
    client = redis_client(url, client_name="verrater-test-pool")
    try:
        # One hash tag: on a cluster every command goes to the same node.
        keys = [f"verrater:{{pool}}:empty{n}" for n in range(AT_ONCE)]
        answers = await asyncio.gather(*(client.get(key) for key in keys), return_exceptions=True)
    finally:
        await client.aclose()
    failures = [repr(answer) for answer in answers if isinstance(answer, BaseException)]
    assert not failures, failures[:3]
    assert answers == [None] * AT_ONCE
