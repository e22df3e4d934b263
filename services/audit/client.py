"""Fetch a finished game's complete log from a game server (the GetLog RPC).

GetLog needs a valid token of the server's issuer; any player's token will do (the log opens to
everyone once the game is over). Pass one, or set VERRATER_TOKEN. A process that holds the
server's own `TokenIssuer` (an embedded server checking itself, a test) may pass that instead.
"""

from __future__ import annotations

import os

import grpc
from grpc import aio

from services.api.verrater.v1 import game_pb2, game_pb2_grpc
from services.rpc import TokenIssuer, bearer

from .export import LogEntry

DEFAULT_SERVER = "127.0.0.1:50051"
TOKEN_ENV = "VERRATER_TOKEN"
TIMEOUT_SECONDS = 30.0


class FetchError(Exception):
    """The log could not be fetched; the message says why and what to try."""


def choose_token(token: str | None = None, issuer: TokenIssuer | None = None) -> str:
    """The given token, else $VERRATER_TOKEN, else a spectator token minted by `issuer`."""
    chosen = token or os.environ.get(TOKEN_ENV)
    if chosen:
        return chosen
    if issuer is not None:
        return issuer.mint("auditor")
    raise FetchError(f"GetLog needs a token: pass --token or set {TOKEN_ENV}")


async def fetch_log(
    game_id: str,
    *,
    server: str = DEFAULT_SERVER,
    token: str | None = None,
    issuer: TokenIssuer | None = None,
) -> list[LogEntry]:
    """The game's log as stored (exact payload bytes and hash chain), first event first."""
    metadata = bearer(choose_token(token, issuer))
    async with aio.insecure_channel(server) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        try:
            log = await stub.GetLog(
                game_pb2.GetLogRequest(game_id=game_id), metadata=metadata, timeout=TIMEOUT_SECONDS
            )
        except aio.AioRpcError as error:
            raise FetchError(_explain(error, game_id, server)) from None
    return [
        LogEntry(logged.version, logged.prev_hash, logged.hash, logged.payload)
        for logged in log.events
    ]


def _explain(error: aio.AioRpcError, game_id: str, server: str) -> str:
    code = error.code()
    details = error.details() or code.name
    if code is grpc.StatusCode.UNAVAILABLE:
        return f"cannot reach the game server at {server}: {details}"
    if code is grpc.StatusCode.UNAUTHENTICATED:
        return f"the server refused the token ({details}); pass --token or set {TOKEN_ENV}"
    if code is grpc.StatusCode.NOT_FOUND:
        return f"the server at {server} has no game {game_id!r}"
    if code is grpc.StatusCode.FAILED_PRECONDITION:
        return f"{details} (the full log opens when the game is over)"
    if code is grpc.StatusCode.UNIMPLEMENTED:
        return (
            f"{server} serves no game service ({details}): name the game service with --game "
            "(a distributed backend's lobby does not serve game logs)"
        )
    return f"GetLog failed with {code.name}: {details}"
