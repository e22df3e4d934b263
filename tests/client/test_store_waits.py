"""The terminal client when the server answers but its game's store does not (a Redis Cluster
master failing over): it sends the same call again, at most a second apart, and says why it
waits instead of calling the connection lost (docs/CLIENTS.md, REPLICATION_UNCONFIRMED)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from services.api.verrater.v1 import game_pb2, game_pb2_grpc
from services.client.connection import Backoff, Connection
from services.errors import Reason, ServiceError
from services.rpc import classified


class _StoreFailingOver(game_pb2_grpc.GameServiceServicer):
    """A game service whose store confirms the game's last move on the third look."""

    def __init__(self) -> None:
        self.looks = 0

    def GetView(  # noqa: N802 (the RPC's name)
        self, request: game_pb2.GetViewRequest, context: grpc.ServicerContext
    ) -> game_pb2.GetViewResponse:
        self.looks += 1
        if self.looks < 3:
            refusal = classified(
                ServiceError(Reason.REPLICATION_UNCONFIRMED, "not yet confirmed", game_id="g")
            )
            assert refusal is not None
            context.abort_with_status(refusal.status())
        return game_pb2.GetViewResponse()


@pytest.fixture
def server() -> Iterator[tuple[str, _StoreFailingOver]]:
    servicer = _StoreFailingOver()
    running = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    game_pb2_grpc.add_GameServiceServicer_to_server(servicer, running)
    port = running.add_insecure_port("127.0.0.1:0")
    running.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        running.stop(None)


def test_a_move_its_store_has_not_confirmed_is_asked_again_and_said_so(
    server: tuple[str, _StoreFailingOver],
) -> None:
    address, servicer = server
    told: list[str] = []
    connection = Connection(
        address, notify=told.append, backoff=lambda: Backoff(first_s=4.0, cap_s=8.0)
    )
    try:
        connection.call(connection.game.GetView, game_pb2.GetViewRequest(game_id="g"))
    finally:
        connection.close()
    assert servicer.looks == 3
    waits = [line for line in told if "asking again" in line]
    assert len(waits) == 2 and all("store has not confirmed" in line for line in waits)
    assert all("in 1.0 s" in line for line in waits)  # not the backoff's 4 and 8 s
    assert not any("lost" in line for line in told)
    assert told[-1] == "The server's store answers again."
