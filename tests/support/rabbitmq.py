"""A real RabbitMQ for tests of the production broker.

:func:`find_test_rabbitmq` picks, in order: ``RABBITMQ_URL`` if set, else the RabbitMQ that
machines of this project run (``amqp://guest:guest@127.0.0.1:5672//``) when it accepts a
connection; a testcontainers RabbitMQ when a Docker engine answers; else none, and the tests that
need one are skipped with the reason (the terminal summary says it too).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import kombu

from .redis_server import docker_engine_answers

DEFAULT_URL = "amqp://guest:guest@127.0.0.1:5672//"


@dataclass(frozen=True)
class RabbitSource:
    """A RabbitMQ the tests may use (url None: none was found, and `description` says why)."""

    url: str | None
    description: str
    stop: Callable[[], None]


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether an AMQP broker at `url` accepts a connection."""
    try:
        with kombu.Connection(url, connect_timeout=timeout) as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
    except Exception:
        return False
    return True


def _start_container() -> RabbitSource:
    # The generic container (testcontainers' RabbitMQ module needs pika, which we do not use).
    from testcontainers.core.container import DockerContainer

    container = DockerContainer("rabbitmq:3.13-alpine").with_exposed_ports(5672)
    container.start()
    host, port = container.get_container_host_ip(), container.get_exposed_port(5672)
    url = f"amqp://guest:guest@{host}:{port}//"
    deadline = time.monotonic() + 60
    while not answers(url):
        if time.monotonic() > deadline:
            container.stop()
            raise TimeoutError(f"the RabbitMQ container at {host}:{port} never answered")
        time.sleep(0.5)
    return RabbitSource(
        url, f"testcontainers rabbitmq:3.13-alpine at {host}:{port}", container.stop
    )


def find_test_rabbitmq() -> RabbitSource:
    """The RabbitMQ for this test session, or why there is none."""
    url = os.environ.get("RABBITMQ_URL") or DEFAULT_URL
    if answers(url):
        where = "RABBITMQ_URL" if os.environ.get("RABBITMQ_URL") else "the machine's"
        return RabbitSource(url, f"{where} RabbitMQ at {url.rsplit('@', 1)[-1]}", lambda: None)
    if docker_engine_answers():
        try:
            return _start_container()
        except Exception as exc:  # image pull or engine failure
            return RabbitSource(None, f"none: testcontainers failed ({exc!r})", lambda: None)
    return RabbitSource(
        None,
        f"NONE: nothing answers at {url} (set RABBITMQ_URL) and no Docker engine answers; "
        "the RabbitMQ broker tests are SKIPPED",
        lambda: None,
    )


@contextlib.contextmanager
def private_queue(url: str) -> Iterator[str]:
    """A queue name of the test's own (a machine's RabbitMQ is shared), deleted afterwards."""
    name = f"verrater.test.{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        with contextlib.suppress(Exception), kombu.Connection(url) as connection:
            kombu.Queue(name, channel=connection.default_channel).delete()
