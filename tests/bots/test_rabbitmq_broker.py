"""Bots on RabbitMQ, the production broker: quorum queues, late acknowledgement, and a killed
worker's turn redelivered as soon as its connection drops (not after a visibility timeout)."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import kombu

from services.audit.export import LogEntry
from services.audit.verify import audit
from tests.bots.test_bot_seats import (
    _decisions,
    bot_table,
    celery_worker,
    follow_to_the_end,
    guest,
    stack,
)
from tests.support.rabbitmq import private_queue


def queue_state(broker: str, queue: str) -> tuple[int, int]:
    """(ready messages, consumers) of the queue as RabbitMQ reports them; (0, 0) while it does
    not exist yet."""
    try:
        with kombu.Connection(broker) as connection:
            declared = connection.default_channel.queue_declare(queue, passive=True)
            return declared.message_count, declared.consumer_count
    except Exception:  # NOT_FOUND closes the channel
        return 0, 0


def declared_as_quorum(broker: str, queue: str) -> bool:
    """Whether the existing queue is a quorum queue: RabbitMQ refuses to declare it again with
    another type (PRECONDITION_FAILED)."""
    with kombu.Connection(broker) as connection:
        quorum = kombu.Queue(
            queue, queue_arguments={"x-queue-type": "quorum"}, channel=connection.default_channel
        )
        try:
            quorum.declare()
        except Exception:
            return False
    return True


async def test_bots_play_a_whole_game_through_rabbitmq(
    fresh_redis_url: str, rabbitmq_url: str
) -> None:
    with private_queue(rabbitmq_url) as queue:
        async with stack(fresh_redis_url, broker_url=rabbitmq_url, bot_queue=queue) as s:
            with celery_worker(
                fresh_redis_url,
                s.address,
                VERRATER_BROKER_URL=rabbitmq_url,
                VERRATER_BOT_QUEUE=queue,
            ):
                organiser = await guest(s, "Organiser")
                table = await bot_table(s, organiser, 4, sits_out=True)
                final = await asyncio.wait_for(
                    follow_to_the_end(s, table.game_id, organiser, {}), timeout=180
                )
        assert declared_as_quorum(rabbitmq_url, queue)
    assert list(final.winners)


async def test_a_killed_workers_turn_is_redelivered_at_once_and_played_once(
    fresh_redis_url: str, rabbitmq_url: str
) -> None:
    worker_env = {"VERRATER_BROKER_URL": rabbitmq_url}
    with private_queue(rabbitmq_url) as queue:
        worker_env["VERRATER_BOT_QUEUE"] = queue
        # The game service announces nothing again for ten minutes: only the broker can save
        # the turn the killed worker held.
        async with stack(
            fresh_redis_url, broker_url=rabbitmq_url, bot_queue=queue, bot_resend_seconds=600
        ) as s:
            organiser = await guest(s, "Organiser")
            table = await bot_table(s, organiser, 4, sits_out=True)
            async with asyncio.timeout(30):
                while queue_state(rabbitmq_url, queue)[0] < 1:
                    await asyncio.sleep(0.05)  # the first turn is in the queue
            with celery_worker(
                fresh_redis_url, s.address, VERRATER_BOT_MIN_THINK_MS="60000", **worker_env
            ) as slow:
                async with asyncio.timeout(30):
                    while queue_state(rabbitmq_url, queue)[0] > 0:
                        await asyncio.sleep(0.05)  # the slow worker holds it, unacknowledged
                os.killpg(slow.pid, signal.SIGKILL)
                slow.wait()
                killed = time.monotonic()
            assert s.backend.game is not None
            store = s.backend.game.store
            assert await _decisions(store, table.game_id) == []
            with celery_worker(fresh_redis_url, s.address, **worker_env):
                async with asyncio.timeout(60):
                    while not await _decisions(store, table.game_id):
                        await asyncio.sleep(0.05)
                redelivered_after = time.monotonic() - killed
                final = await asyncio.wait_for(
                    follow_to_the_end(s, table.game_id, organiser, {}), timeout=180
                )
            assert list(final.winners)
            # Seconds (a worker's start included), where a Redis broker's sweep took 114 s.
            assert redelivered_after < 30, redelivered_after
            decisions = await _decisions(store, table.game_id)
            versions = [version for version, _ in decisions]
            assert len(versions) == len(set(versions))
            stored = await store.read(table.game_id)
            report = audit([LogEntry.from_stored(item) for item in stored])
            assert report.ok, report.summary()
