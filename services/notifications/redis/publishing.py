"""Publishing: the publish script (``publish.lua``), one call per player, and what each call's
reply says of every notification in it.

A call holds all of one player's notifications of a publish, in order, so a player's
notifications are stored in that order and either the call ran (each was stored, or found
stored before) or it did not (none was): a notification not stored is never followed by a
stored one of the same player. Calls go out pipelined: on a standalone Redis all in one
round trip; on a cluster one pipeline per master (:mod:`.nodes`), each bounded in time, so
that a master away fails its own players' calls only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.typing import EncodableT

from ..kinds import Notification, Received, versioned
from ..messages import notification_to_proto
from ..port import NotificationRefused, NotificationsUnavailable, Published
from .entries import position_of
from .keys import Keys
from .nodes import transient

PUBLISH_SCRIPT = resources.files(__package__).joinpath("publish.lua").read_text()
"""The publish script (package data beside this module); its keys, arguments and reply are
described at its top."""


@dataclass(frozen=True, slots=True)
class Retention:
    """What the script keeps, and for how long."""

    keep: int
    keep_ms: int
    dedupe_ms: int


@dataclass(frozen=True, slots=True)
class PlayerCall:
    """One call of the publish script: a player's notifications (their places in the publish,
    in order), its keys and its arguments."""

    player_id: str
    places: tuple[int, ...]
    keys: tuple[str, ...]
    args: tuple[EncodableT, ...]


def player_calls(
    keys: Keys,
    notifications: Sequence[Notification],
    retention: Retention,
    *,
    now_ms: int,
    feed_maxlen: int,
) -> list[PlayerCall]:
    """The script calls that publish `notifications`, a call per player (in the order their
    first notification comes); `feed_maxlen` 0 leaves the outbound feed out of the script."""
    places: dict[str, list[int]] = {}
    for place, notification in enumerate(notifications):
        places.setdefault(notification.player_id, []).append(place)
    calls = []
    for player_id, theirs in places.items():
        # Per notification its dedupe record: one per (game, seat) for versioned kinds, one per
        # fact for the others; and the record a release before versioned records wrote for
        # the same fact (the fact's own key), which still counts as told.
        records, versions, legacy = [], [], []
        for place in theirs:
            key = notifications[place].key
            found = versioned(key)
            records.append(keys.dedupe(player_id, found[0] if found else key))
            versions.append(str(found[1]) if found else "")
            legacy.append(keys.dedupe(player_id, key))
        call_keys = [*records, *legacy, keys.inbox(player_id)]
        if feed_maxlen > 0:
            call_keys.append(keys.outbound)
        args: list[EncodableT] = [
            retention.dedupe_ms,
            retention.keep,
            now_ms - retention.keep_ms,
            retention.keep_ms,
            feed_maxlen,
            player_id,
        ]
        for place, version in zip(theirs, versions, strict=True):
            notification = notifications[place]
            args += [
                notification.key,
                notification_to_proto(notification).SerializeToString(),
                notification.kind_name,
                notification.game_id,
                notification.table_id,
                version,
            ]
        calls.append(PlayerCall(player_id, tuple(theirs), tuple(call_keys), tuple(args)))
    return calls


def settle(
    call: PlayerCall,
    reply: Any,
    notifications: Sequence[Notification],
    published: list[Published],
) -> None:
    """Write what `reply` (the call's reply, or the exception that stood for it) says of each
    of the call's notifications into `published`, at their places."""
    if isinstance(reply, BaseException):
        failure: Published = (
            NotificationsUnavailable(f"redis unreachable: {reply!r}")
            if transient(reply)
            else NotificationRefused(repr(reply))
        )
        for place in call.places:
            published[place] = failure
        return
    for place, entry_id in zip(call.places, reply, strict=True):
        published[place] = (
            Received(position_of(entry_id), notifications[place]) if entry_id else None
        )


async def run_pipelined(
    client: Redis, calls: Sequence[PlayerCall], timeout: float, script: AsyncScript | None
) -> list[Any]:
    """The calls on one server, pipelined, bounded by `timeout`: a reply per call, or the
    exception that stood for it (the same one for all when the server could not be reached).
    With `script` they go as ``EVALSHA`` in one round trip (the calls the server refuses for
    lack of the script are sent again once it is loaded: nothing ran for them), without as
    ``EVAL`` (a replica promoted on a cluster may not have it cached).

    Sent once more when its connection had dropped (after a restart, every pooled connection
    is dead and only its first use finds out): the dedupe keys make that harmless."""

    async def run() -> list[Any]:
        replies = await _pipelined(client, calls, script)
        refused = [place for place, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if refused:  # a restarted or flushed server: load the script, send what it refused
            await client.script_load(PUBLISH_SCRIPT)
            again = await _pipelined(client, [calls[place] for place in refused], script)
            for place, reply in zip(refused, again, strict=True):
                replies[place] = reply
        return replies

    try:
        async with asyncio.timeout(timeout):
            try:
                return await run()
            except RedisConnectionError:
                return await run()
    except Exception as exc:
        if not transient(exc):
            raise
        return [exc] * len(calls)


async def _pipelined(
    client: Redis, calls: Sequence[PlayerCall], script: AsyncScript | None
) -> list[Any]:
    """One pipeline of the calls, a reply or an error per call. Not through redis-py's script
    objects: a pipeline holding them asks ``SCRIPT EXISTS`` first, a round trip each time."""
    pipe = client.pipeline(transaction=False)
    for call in calls:
        if script is None:
            pipe.eval(PUBLISH_SCRIPT, len(call.keys), *call.keys, *call.args)
        else:
            pipe.evalsha(script.sha, len(call.keys), *call.keys, *call.args)
    replies: list[Any] = await pipe.execute(raise_on_error=False)
    return replies
