"""Counting the round trips a piece of code waits for, one after the other, without timing it.

Every call (a Redis command, a pipeline, a fake service's answer) is noted as an interval on
a logical clock that ticks when a call starts and when it ends. Calls that overlap (sent
together with asyncio.gather) are one wait; a call that starts after another ended is one
more. :meth:`RoundTrips.sequential` is the longest chain of calls each started after the one
before it ended: what the caller waits for on a busy event loop, where every wait costs a turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from redis.commands.core import AsyncScript

from services.eventstore import AnyRedis

T = TypeVar("T")


class RoundTrips:
    """The calls made since the last :meth:`clear`, as (start, end) ticks."""

    def __init__(self) -> None:
        self._ticks = itertools.count()
        self.calls: list[tuple[int, int]] = []

    async def timed(self, call: Awaitable[T]) -> T:
        start = next(self._ticks)
        try:
            return await call
        finally:
            self.calls.append((start, next(self._ticks)))

    def clear(self) -> None:
        self.calls.clear()

    def sequential(self) -> int:
        """The most calls that followed one another (earliest end first: the greedy chain is
        the longest)."""
        chain, last_end = 0, -1
        for start, end in sorted(self.calls, key=lambda call: call[1]):
            if start > last_end:
                chain, last_end = chain + 1, end
        return chain


class _Counted:
    """Stands for a redis-py client (standalone or cluster): every command, script and
    pipeline the client sends is noted in `trips`."""

    def __init__(self, client: AnyRedis, trips: RoundTrips) -> None:
        self._client = client
        self._trips = trips

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        """The wrapped client's class, for ``isinstance``: a store tells a cluster from one
        Redis by it."""
        return type(self._client)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            return self._trips.timed(result) if isinstance(result, Awaitable) else result

        return counted

    def register_script(self, script: str) -> AsyncScript:
        # Bound to the stand-in, so that the script's EVALSHA (and SCRIPT LOAD) are counted.
        return AsyncScript(cast(AnyRedis, self), script)

    def pipeline(self, *args: Any, **kwargs: Any) -> _CountedPipeline:
        return _CountedPipeline(self._client.pipeline(*args, **kwargs), self._trips)


class _CountedPipeline:
    """A pipeline whose execution (one round trip per node it reaches, all at once) is noted."""

    def __init__(self, pipe: Any, trips: RoundTrips) -> None:
        self._pipe = pipe
        self._trips = trips

    async def __aenter__(self) -> _CountedPipeline:
        await self._pipe.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._pipe.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipe, name)

    async def execute(self, *args: Any, **kwargs: Any) -> list[Any]:
        execute: Callable[..., Awaitable[list[Any]]] = self._pipe.execute
        return await self._trips.timed(execute(*args, **kwargs))


def counted(client: AnyRedis, trips: RoundTrips) -> AnyRedis:
    """`client`, with every round trip it makes noted in `trips`."""
    return cast(AnyRedis, _Counted(client, trips))
