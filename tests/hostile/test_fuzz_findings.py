"""What the fuzzing found, each pinned where it was fixed: a hostile request the server answered
with INTERNAL (a fault of ours), now refused with the reason a client can act on."""

from __future__ import annotations

import grpc

from services.api.verrater.v1 import events_pb2, lobby_pb2
from tests.lobby.harness import guest, refused, running


async def test_a_sandbox_setup_on_a_table_of_no_possible_size_is_a_bad_size_not_a_fault() -> None:
    # The setup was checked against a ruleset for the requested size before the size itself,
    # and the ruleset of seven players raised ValueError: INTERNAL, with an incident logged.
    async with running("memory", None) as stack:
        _, host = await guest(stack, "Host")
        for size in (7, -1, 0):
            info = await refused(
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_TABLE_OPTION",
                stack.lobby.CreateTable(
                    lobby_pb2.CreateTableRequest(
                        size=size, setup=events_pb2.ExplicitSetup(start_player=0)
                    ),
                    metadata=host,
                ),
            )
            assert info.metadata["field"] == "size"


async def test_an_invite_code_with_letters_beyond_ascii_is_a_wrong_code_not_a_fault() -> None:
    # secrets.compare_digest raises TypeError for a str with a non-ASCII character: INTERNAL.
    async with running("memory", None) as stack:
        _, host = await guest(stack, "Host")
        _, other = await guest(stack, "Other")
        table = (
            await stack.lobby.CreateTable(
                lobby_pb2.CreateTableRequest(size=3, private=True), metadata=host
            )
        ).table
        for code in ("\x80", "Grüße", "🂡"):
            await refused(
                grpc.StatusCode.PERMISSION_DENIED,
                "WRONG_INVITE_CODE",
                stack.lobby.JoinTable(
                    lobby_pb2.JoinTableRequest(table_id=table.table_id, invite_code=code),
                    metadata=other,
                ),
            )
