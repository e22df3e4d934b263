"""Where the Redis adapter keeps notifications: every key's name, in one place.

A player's keys share the hash tag ``{notify:<player_id>}``, so on a Redis Cluster they sit in
one slot and the publish script may touch them all. The outbound feed is one stream on a
standalone Redis; on a cluster it is :data:`OUTBOUND_SHARDS` streams with hash tags of their
own, and a player's notifications all go to the shard of their slot.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.crc import key_slot

#: The outbound feed's shards on a Redis Cluster. Fixed: push gateways read every one of them,
#: and a player's notifications go to shard ``slot mod OUTBOUND_SHARDS`` (docs/OPERATING.md).
OUTBOUND_SHARDS = 16


@dataclass(frozen=True, slots=True)
class Keys:
    """The key names under ``prefix`` (``verrater``)."""

    prefix: str

    def inbox(self, player_id: str) -> str:
        """The player's inbox stream, hash-tagged by player for Redis Cluster."""
        return f"{self.prefix}:{{notify:{player_id}}}:inbox"

    def dedupe(self, player_id: str, key: str) -> str:
        """Where the player's dedupe key is remembered (in the player's slot)."""
        return f"{self.prefix}:{{notify:{player_id}}}:once:{key}"

    @property
    def outbound(self) -> str:
        """The outbound feed for push gateways on a standalone Redis (on a cluster, the key
        releases before the shards wrote: nothing writes it there any more)."""
        return f"{self.prefix}:notify:outbound"

    def outbound_shard(self, shard: int) -> str:
        """Shard `shard` (0 to ``OUTBOUND_SHARDS - 1``) of the outbound feed on a cluster."""
        return f"{self.prefix}:{{notify-outbound:{shard}}}:feed"

    def shard_of(self, player_id: str) -> int:
        """The outbound shard of the player's notifications on a cluster: their inbox's slot
        (``CLUSTER KEYSLOT``) modulo ``OUTBOUND_SHARDS``."""
        return int(key_slot(self.inbox(player_id).encode())) % OUTBOUND_SHARDS
