"""Where the lobby's Redis keys live, and which index entries a table write changes.

The keys spread over a cluster's slots: a table's hash is a key of its own (its slot is the
hash of its name), a player's keys share the hash tag ``{p:<player id>}`` (the script that
moves a finished game from their tables to their results touches three of them), and each
index (open tables of 3 and of 4, the bot-fill schedule, the writes not yet indexed) is one
key on a slot of its own. So the lobby grows with the cluster instead of living on the one
master that owned the old ``{lobby}`` tag (see :mod:`services.lobby.redis_migrate`).

Ids are ``[A-Za-z0-9_-]`` (services/rpc/ids.py), so a client can never put a brace in a key.
"""

from __future__ import annotations

import json

from .model import Table, TableStatus
from .store import index_change

PREFIX = "verrater:lobby"
#: Every lobby replica's change signal: a small capped stream, a table id (field ``t``) per
#: change, followed by each replica's live reader (services.redislive).
CHANGES = f"{PREFIX}:changes"
#: Entries the change stream keeps, about (``MAXLEN ~``): a reader away for longer than that
#: many changes is told to re-read every watched table (it is on every reconnect anyway).
CHANGES_KEPT = 10_000
#: Writes whose index entries may not be applied yet: ``<table id>|<version>`` scored by the
#: time (ms) after which a sweep may finish them (see RedisLobbyStore.repair_indexes).
UNINDEXED = f"{PREFIX}:unindexed"
BOT_FILL = f"{PREFIX}:botfill"
#: Tables whose game is being started (a sorted set, score 0): a start that was cut off
#: half-way (its lobby died, the game service did not answer) is finished by the sweep.
STARTING = f"{PREFIX}:starting"


def table_key(table_id: str) -> str:
    return f"{PREFIX}:table:{table_id}"


def open_key(size: int) -> str:
    return f"{PREFIX}:open:{size}"


def _of_player(player_id: str, kind: str) -> str:
    """A key of the player's, hash-tagged by them: all of a player's keys share one slot."""
    return f"{PREFIX}:{{p:{player_id}}}:{kind}"


def player_key(player_id: str) -> str:
    return _of_player(player_id, "player")


def mine_key(player_id: str) -> str:
    """The player's tables (a zset by creation time), until ListMyGames sees them end."""
    return _of_player(player_id, "mine")


def finished_key(player_id: str) -> str:
    return _of_player(player_id, "finished")


def results_key(player_id: str) -> str:
    return _of_player(player_id, "results")


def hosting_key(player_id: str) -> str:
    """The waiting tables the player hosts (a set: their quota)."""
    return _of_player(player_id, "hosting")


def peer_hosting_key(peer: str) -> str:
    """The waiting tables opened from a network peer (a set: its quota)."""
    return f"{PREFIX}:peer-hosting:{peer}"


def progress_key(game_id: str) -> str:
    """Where the game stands (services/lobby/progress.py): in the game's slot, beside its log
    (whose keys share the hash tag ``{<game id>}``)."""
    return f"{PREFIX}:{{{game_id}}}:progress"


def request_key(key: str) -> str:
    return f"{PREFIX}:request:{key}"


#: One index change: (command, key, member, score). Each is absolute (add or remove this
#: member), so applying a list twice, or finishing a list another writer began, is harmless.
IndexOp = tuple[str, str, str, int]


def index_ops(previous: Table | None, table: Table) -> list[IndexOp]:
    """The index entries a write of ``table`` over ``previous`` sets: at most one op per
    (key, member), so their order does not matter (a cluster applies them per node)."""
    table_id = table.table_id
    ops: dict[tuple[str, str], tuple[str, int]] = {}
    for size in (3, 4):
        listed = table.listed and table.size == size
        ops[open_key(size), table_id] = ("ZADD", table.created_at_ms) if listed else ("ZREM", 0)
    fill = table.fill_bots_at_ms
    ops[BOT_FILL, table_id] = ("ZADD", fill) if fill else ("ZREM", 0)
    if table.status is TableStatus.STARTING:
        ops[STARTING, table_id] = ("ZADD", 0)
    elif previous is not None and previous.status is TableStatus.STARTING:
        ops[STARTING, table_id] = ("ZREM", 0)
    if previous is not None and previous.host != table.host:
        ops[hosting_key(previous.host), table_id] = ("SREM", 0)
    ops[hosting_key(table.host), table_id] = ("SADD", 0) if table.waiting else ("SREM", 0)
    if table.opened_from:
        peer = peer_hosting_key(table.opened_from)
        ops[peer, table_id] = ("SADD", 0) if table.waiting else ("SREM", 0)
    dropped, listing = index_change(previous, table)
    for player_id in dropped:
        ops[mine_key(player_id), table_id] = ("ZREM", 0)
    for player_id in listing:
        ops[mine_key(player_id), table_id] = ("ZADD", table.created_at_ms)
    return [(command, key, member, score) for (key, member), (command, score) in ops.items()]


def encode_ops(ops: list[IndexOp]) -> str:
    return json.dumps(ops, separators=(",", ":"))


def decode_ops(raw: str) -> list[IndexOp]:
    """The ops of :func:`encode_ops`; none for an empty text (no lease left any)."""
    if not raw:
        return []
    return [(str(c), str(k), str(m), int(s)) for c, k, m, s in json.loads(raw)]
