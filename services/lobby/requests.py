"""Request ids: a retried lobby call answers what its first copy answered, and changes nothing more.

A mutating call may carry a `request_id` (1-64 letters, digits, '-' or '_'; empty: no
idempotency). Per caller (the player; for RegisterGuest, which has none, the id alone) the
first copy claims the id atomically in the store (Redis `SET NX`), runs, and keeps its answer's
bytes for ANSWER_TTL_MS. A copy that finds the id claimed:

- with another request (the hash of the request without its request_id differs):
  FAILED_PRECONDITION REQUEST_ID_REUSED, nothing done;
- answered: the kept answer;
- still running (two copies racing): waits for the answer, at most WAIT_S, then BUSY.

A first copy that fails releases its claim, so a retry runs again. The first copy runs to its
end even when its caller hangs up meanwhile, so a retry finds the answer instead of a half-done
change. The answers of RegisterGuest and RotateCredential hold a credential: the store keeps it
for the same ten minutes.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from google.protobuf.message import Message

from services.errors import Reason, ServiceError
from services.rpc import checked_id

from .store import LobbyStore, RequestRecord

#: How long answers are kept: a retry within ten minutes answers the same.
ANSWER_TTL_MS = 10 * 60 * 1000
#: How long a claim holds without an answer: longer than any lobby call takes (a game's
#: creation times out after 10 s), so a copy that died mid-way frees its id after this.
CLAIM_TTL_MS = 60 * 1000
#: How long a second copy waits for the first one's answer.
WAIT_S = 15.0
POLL_S = 0.01
POLL_MAX_S = 0.2
#: The scope of RegisterGuest's request ids (no player yet; never a player id).
GUEST_SCOPE = "guest"

Response = TypeVar("Response", bound=Message)


def fingerprint(request: Message) -> str:
    """The hash of a request without its request_id (and of which request it is)."""
    bare = type(request)()
    bare.CopyFrom(request)
    bare.ClearField("request_id")  # every mutating request has one
    content = bare.SerializeToString(deterministic=True)
    return hashlib.sha256(request.DESCRIPTOR.full_name.encode() + b"\0" + content).hexdigest()


class Requests:
    """Runs each (caller, request id) once; see the module."""

    def __init__(self, store: LobbyStore) -> None:
        self._store = store
        self._running: set[asyncio.Task[Any]] = set()

    async def once(
        self,
        scope: str,
        request: Message,
        response_type: type[Response],
        run: Callable[[], Awaitable[Response]],
    ) -> Response:
        """`run()`'s answer, or the answer of an earlier copy of `request` by `scope`."""
        request_id: str = getattr(request, "request_id")  # noqa: B009  # typed per message
        if not request_id:
            return await run()
        key = f"{scope}:{checked_id(request_id, 'request_id')}"
        claim = RequestRecord(fingerprint(request), secrets.token_hex(8))
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + WAIT_S
        pause = POLL_S
        while (held := await self._store.claim_request(key, claim, CLAIM_TTL_MS)) is not None:
            if held.fingerprint != claim.fingerprint:
                raise ServiceError(
                    Reason.REQUEST_ID_REUSED,
                    f"request_id {request_id!r} was used for a different request: "
                    "use a new id for each request",
                    field="request_id",
                )
            if held.answer is not None:
                return response_type.FromString(held.answer)
            if loop.time() >= give_up_at:
                raise ServiceError(
                    Reason.BUSY,
                    f"the first copy of request {request_id!r} is still running; retry",
                )
            await asyncio.sleep(pause)
            pause = min(2 * pause, POLL_MAX_S)
        first = asyncio.ensure_future(self._first(key, claim.holder, run))
        self._running.add(first)
        first.add_done_callback(_forget(self._running))
        # Shielded: a caller who hangs up does not cancel the change half-way.
        return await asyncio.shield(first)

    async def _first(
        self, key: str, holder: str, run: Callable[[], Awaitable[Response]]
    ) -> Response:
        try:
            answer = await run()
        except BaseException:
            await self._store.release_request(key, holder)
            raise
        await self._store.answer_request(
            key, holder, answer.SerializeToString(deterministic=True), ANSWER_TTL_MS
        )
        return answer


def _forget(running: set[asyncio.Task[Any]]) -> Callable[[asyncio.Task[Any]], None]:
    def done(task: asyncio.Task[Any]) -> None:
        running.discard(task)
        if not task.cancelled():
            # Marked as retrieved: when the caller has hung up, nobody else awaits the failure
            # (its claim is released all the same).
            task.exception()

    return done
