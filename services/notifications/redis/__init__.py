"""Notifications on Redis Streams: every player's notifications, shared by every replica.

Keys (``<prefix>`` is ``verrater``):

    <prefix>:{notify:<player_id>}:inbox       stream: the player's notifications, fields
                                              k (dedupe key), n (verrater.v1.Notification) and
                                              p (the cursor of the entry before)
    <prefix>:{notify:<player_id>}:once:<key>  string: the dedupe key was stored (expires); for
                                              your_turn, timer_running_out and bot_took_over
                                              the key is <kind>:<game>:<seat> and holds the
                                              newest version told (kinds.versioned)
    <prefix>:notify:outbound                  stream: the outbound feed for push gateways, on a
                                              standalone Redis
    <prefix>:{notify-outbound:<n>}:feed       stream: shard n (0 to 15) of the outbound feed, on
                                              a Redis Cluster

A player's keys share the hash tag ``{notify:<player_id>}``, so on Redis Cluster they sit in one
slot. The inbox's entry ids are the cursors clients see. An inbox keeps about `keep` entries
(``MAXLEN ~``) and none older than `keep_seconds` (``MINID ~`` on every publish, and the whole
key expires that long after its last notification). Trimming removes the oldest entries only,
so the first entry kept names, in ``p``, the last one removed: a cursor below it has expired
(``XINFO``'s ``max-deleted-entry-id`` would say the same, but Redis 7.0 counts only ``XDEL``).

Publishing is one Lua script call per player (``publish.lua``): for each of the player's
notifications, in order, ``SET NX`` on the dedupe key (with a TTL; a versioned record is set
when the version is newer), and only when that succeeds
the ``XADD`` to the player's inbox and, on a standalone Redis, the one to the outbound feed: both
get a notification exactly once, atomically, however often it is published. On a Redis Cluster
the calls go master by master, each bounded in time, so a master away fails its own players'
notifications only (:mod:`.nodes`); the outbound feed is sharded over the masters by player, and
written behind the inboxes (:mod:`.feed`): a crash between the two loses that push (the inbox
keeps the notification); see docs/OPERATING.md.

Live subscriptions are served by the process's live reader (services.redislive: on a
standalone Redis one blocking ``XREAD`` over every watched inbox, on a cluster one reader per
master), :mod:`.live` keeping what is the notifications' own.

The modules: ``store`` (:class:`RedisNotifications`: publishing, reads, the outbound feed,
subscriptions), ``publish.lua`` and ``publishing`` (the publish script, its calls and replies),
``keys`` (the key names), ``entries`` (stream entries read back, and the feed's written),
``nodes`` (writing on a cluster master by master), ``feed`` (the cluster's feed shards),
``calls`` (exchanges with Redis bounded in time) and ``live`` (live subscriptions).
"""

from .entries import decode_outbound
from .store import RedisNotifications

__all__ = ["RedisNotifications", "decode_outbound"]
