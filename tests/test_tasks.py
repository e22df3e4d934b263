"""Stopping background loops: a swallowed cancellation must not hang a shutdown."""

from __future__ import annotations

import asyncio

import pytest

from services.tasks import cancel_and_wait


async def test_a_loop_that_swallows_a_cancellation_is_cancelled_again_until_it_ends() -> None:
    swallowed = 0

    async def retrying_loop() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                # What a loop that retries after TimeoutError does when asyncio.timeout turns
                # the cancellation into one: it goes round again.
                if swallowed == 2:
                    raise
                swallowed += 1

    task = asyncio.get_running_loop().create_task(retrying_loop())
    await asyncio.sleep(0)
    await cancel_and_wait(task, grace_s=0.01)
    assert task.cancelled()
    assert swallowed == 2


async def test_a_task_that_fails_while_stopping_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def failing_on_cancel() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    task = asyncio.get_running_loop().create_task(failing_on_cancel(), name="failing")
    await asyncio.sleep(0)
    await cancel_and_wait(task)
    assert task.done() and not task.cancelled()
    assert "failing ended with RuntimeError('cleanup failed')" in caplog.text


async def test_a_finished_task_is_left_as_it_is() -> None:
    async def done() -> int:
        return 1

    task = asyncio.get_running_loop().create_task(done())
    await task
    await cancel_and_wait(task)
    assert task.result() == 1
