"""`verrater.compute_move`, the pure task anyone with the broker may call for their own bots: a
real `verrater worker` answers it through the result backend."""

from __future__ import annotations

import base64

import pytest
from celery.signals import worker_init

from services.ai import value
from services.ai.worker import WorkerSettings, make_app
from services.api.verrater.v1 import commands_pb2
from services.codec import command_from_proto, ruleset_to_proto, view_to_proto
from services.engine import (
    CreateGame,
    Ruleset,
    execute,
    initial_state,
    legal_commands,
    new_seed,
    to_act,
)
from services.engine import view as view_of
from tests.bots.test_bot_seats import celery_worker


def test_a_worker_computes_a_legal_move_from_a_view_and_a_ruleset(fresh_redis_url: str) -> None:
    ruleset = Ruleset.standard(3)
    _, state = execute(initial_state(), CreateGame(ruleset, new_seed(), None, (), False, 0))
    seat = to_act(state)[0]
    view = view_to_proto(view_of(state, seat), "any-game").SerializeToString()
    app = make_app(WorkerSettings(broker_url=fresh_redis_url))
    with celery_worker(fresh_redis_url, "127.0.0.1:1"):
        answer = app.send_task(
            "verrater.compute_move",
            kwargs={
                "view": base64.b64encode(view).decode(),
                "ruleset": base64.b64encode(ruleset_to_proto(ruleset).SerializeToString()).decode(),
                "level": "normal",
                "seed": 7,
            },
        ).get(timeout=60)
    command = command_from_proto(
        commands_pb2.Command.FromString(base64.b64decode(answer["command"])), seat
    )
    assert command in legal_commands(state, seat)
    assert answer["reason"]


def test_a_worker_reads_the_experts_weights_before_its_pool_forks(
    fresh_redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's first stand-in on a worker process does not wait for them to be read."""
    monkeypatch.setattr(value, "_SHIPPED", None)
    app = make_app(WorkerSettings(broker_url=fresh_redis_url))
    worker_init.send(sender=app)
    assert value._SHIPPED is not None
