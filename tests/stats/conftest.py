"""The stats tests on Redis run on a standalone Redis and on a Redis Cluster alike."""

from __future__ import annotations

import pytest
import redis


@pytest.fixture(params=["redis", "redis-cluster"])
def fresh_redis_url(request: pytest.FixtureRequest) -> str:
    """A flushed standalone Redis's URL, or a flushed cluster's (``redis+cluster://``)."""
    if request.param == "redis-cluster":
        cluster_url: str = request.getfixturevalue("fresh_cluster_url")
        return cluster_url
    url: str = request.getfixturevalue("redis_url")
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return url
