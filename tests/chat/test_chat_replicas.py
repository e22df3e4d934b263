"""Chat on Redis and Redis Cluster, with two replicas of the backend: what one stores the
other's watchers receive, the table's and the player's rates are shared, and the game's log is
left alone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from services.api.verrater.v1 import game_pb2, game_pb2_grpc, lobby_pb2
from services.chat import PER_PLAYER, PER_TABLE, RedisChat
from services.lobby.model import game_id_of
from services.rpc import bearer
from tests.chat.harness import ChatStack, running
from tests.lobby.harness import refused


@pytest.fixture(params=["redis", "redis-cluster"])
async def replicas(request: pytest.FixtureRequest) -> AsyncIterator[tuple[ChatStack, ChatStack]]:
    fixture = "fresh_redis_url" if request.param == "redis" else "fresh_cluster_url"
    url = request.getfixturevalue(fixture)
    async with running("redis", url) as one, running("redis", url) as two:
        yield one, two


async def test_a_message_stored_by_one_replica_reaches_the_watchers_of_another(
    replicas: tuple[ChatStack, ChatStack],
) -> None:
    one, two = replicas
    ada, bea, cem = [await one.player(name) for name in ("Ada", "Bea", "Cem")]
    fan = await two.player("Fan")
    table_id = await one.table(ada, bea, cem)
    async with two.watching(bea, table_id) as seated, two.watching(fan, table_id) as stands:
        await one.say(ada, table_id, "from replica one")
        await one.say(fan, table_id, "from the stands")
        await two.say(cem, table_id, "from replica two")
        await seated.got("from replica two")
        await stands.got("from replica two")
    assert seated.texts == ["from replica one", "from replica two"]
    assert stands.texts == ["from replica one", "from the stands", "from replica two"]


async def test_the_tables_rate_is_shared_by_the_replicas_and_the_log_is_untouched(
    replicas: tuple[ChatStack, ChatStack],
) -> None:
    one, two = replicas
    people = [await one.player(f"Player{n}") for n in range(4)]
    fans = [await two.player(f"Fan{n}") for n in range(2)]
    table_id = await one.table(*people)
    seat = await one.lobby.GetSeatToken(
        lobby_pb2.GetSeatTokenRequest(table_id=table_id),
        metadata=people[0].metadata,
    )
    game = game_pb2_grpc.GameServiceStub(one.channel)  # type: ignore[arg-type]
    before = await game.GetView(
        game_pb2.GetViewRequest(game_id=seat.game_id), metadata=bearer(seat.token)
    )
    senders = people + fans
    for n in range(int(PER_TABLE.burst)):  # spread over both replicas, both channels
        stack = one if n % 2 else two
        await stack.say(senders[n % len(senders)], table_id, f"m{n}")
    info = await refused(
        grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", one.say(fans[1], table_id, "more")
    )
    assert info.metadata["scope"] == "table"
    after = await game.GetView(
        game_pb2.GetViewRequest(game_id=seat.game_id), metadata=bearer(seat.token)
    )
    assert after.view.version == before.view.version  # chat is not an event of the game
    chat = one.store
    assert isinstance(chat, RedisChat)
    events = f"verrater:{{{game_id_of(table_id)}}}:events"
    assert await chat.redis.type(events) == b"stream"
    assert await chat.redis.xlen(chat.chat_key(table_id)) == PER_TABLE.burst
    logged = await chat.redis.xrange(events, "-", "+")
    assert not any(b"m0" in value for _, fields in logged for value in fields.values())


async def test_a_players_rate_is_shared_by_the_replicas_over_every_table(
    replicas: tuple[ChatStack, ChatStack],
) -> None:
    """A client that reaches another replica for each message (a load balancer's round robin)
    gets one player's rate, not one per replica."""
    one, two = replicas
    ada, bea, cem = [await one.player(name) for name in ("Ada", "Bea", "Cem")]
    tables = [await one.table(ada, bea, cem), await two.table(ada, cem, bea)]
    for n in range(int(PER_PLAYER.burst)):
        stack = one if n % 2 else two
        await stack.say(ada, tables[n % 2], f"m{n}")
    for stack, table_id in ((one, tables[0]), (two, tables[1])):
        info = await refused(
            grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", stack.say(ada, table_id, "more")
        )
        assert info.metadata["scope"] == "player"
        assert 0 < int(info.metadata["retry_after_ms"]) <= 1000 / PER_PLAYER.per_second + 1
    await two.say(bea, tables[0], "others still talk")
