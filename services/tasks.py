"""Stopping the background loops of a process (live readers, projectors, sweepers).

A loop that retries after `TimeoutError` can swallow a cancellation: when its `asyncio.timeout`
expires in the same turn of the event loop as the task is cancelled, Python 3.11 may raise the
`TimeoutError` instead, the loop catches it as a slow Redis and goes on, and whoever awaits
the task to stop it waits forever (seen as a hung shutdown under load). `cancel_and_wait`
cancels again until the task has ended.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("verrater.tasks")

#: How long one cancellation is given before it is sent again.
CANCEL_GRACE_S = 0.5


async def cancel_and_wait(task: asyncio.Task[object], grace_s: float = CANCEL_GRACE_S) -> None:
    """Cancel `task` and wait until it has ended, cancelling again if a cancellation was
    swallowed. An exception the task ended with is logged, not raised: it is being stopped."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=grace_s)
    if not task.cancelled() and task.exception() is not None:
        log.warning("task %s ended with %r while stopping", task.get_name(), task.exception())
