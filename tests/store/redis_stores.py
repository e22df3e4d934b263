"""Helpers of the Redis store tests: stores made per test, and watching the live reader."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import redis.asyncio as aioredis

from services.eventstore import RedisEventStore

GAME = "game-1"
StoreFactory = Callable[..., RedisEventStore]


async def wait_for_blocked_reader(admin: aioredis.Redis, client_name: str) -> None:
    """Wait until the live reader's connection of the store (or wire) named ``client_name`` is
    blocked inside ``XREAD`` on the server."""
    hub_name = f"{client_name}-hub"
    async with asyncio.timeout(10):
        while not any(
            client["name"] == hub_name and "b" in client["flags"]
            for client in await admin.client_list()
        ):
            await asyncio.sleep(0.01)
