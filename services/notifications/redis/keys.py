"""Where the Redis adapter keeps notifications: every key's name, in one place.

A player's keys share the hash tag ``{notify:<player_id>}``, so on a Redis Cluster they sit in
one slot and the publish script may touch them all.
"""

from __future__ import annotations

from dataclasses import dataclass


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
        """The outbound feed for push gateways."""
        return f"{self.prefix}:notify:outbound"
