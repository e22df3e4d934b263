"""Fixtures of the hostile-client tests: the fuzzing arena on each store, and the canary's
figures in the terminal summary."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.hostile.arena import Arena

_CANARY = pytest.StashKey[dict[str, float]]()


@pytest.fixture(scope="module", params=["memory", "redis"])
def arena(request: pytest.FixtureRequest) -> Iterator[Arena]:
    """A whole backend with the fuzzing's targets, once in memory and once on a fresh Redis."""
    url = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        with redis.Redis.from_url(url) as client:
            client.flushdb()
    running = Arena(request.param, url)
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def record_canary(request: pytest.FixtureRequest) -> Iterator[dict[str, float]]:
    """Figures of the canary games, shown in the terminal summary."""
    figures: dict[str, float] = {}
    yield figures
    request.config.stash.setdefault(_CANARY, {}).update(figures)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    for name, value in sorted(config.stash.get(_CANARY, {}).items()):
        terminalreporter.write_line(f"{name}: {value}")
