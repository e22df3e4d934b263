"""Notifications on Redis Streams: every player's notifications, shared by every replica.

Keys (``<prefix>`` is ``verrater``):

    <prefix>:{notify:<player_id>}:inbox       stream: the player's notifications, fields
                                              k (dedupe key), n (verrater.v1.Notification) and
                                              p (the cursor of the entry before)
    <prefix>:{notify:<player_id>}:once:<key>  string: the dedupe key was stored (expires)
    <prefix>:notify:outbound                  stream: the outbound feed for push gateways

A player's keys share the hash tag ``{notify:<player_id>}``, so on Redis Cluster they sit in one
slot. The inbox's entry ids are the cursors clients see. An inbox keeps about `keep` entries
(``MAXLEN ~``) and none older than `keep_seconds` (``MINID ~`` on every publish, and the whole
key expires that long after its last notification). Trimming removes the oldest entries only,
so the first entry kept names, in ``p``, the last one removed: a cursor below it has expired
(``XINFO``'s ``max-deleted-entry-id`` would say the same, but Redis 7.0 counts only ``XDEL``).

Publishing is one Lua script per notification: ``SET NX`` on the dedupe key (with a TTL), and
only when that succeeds the ``XADD`` to the player's inbox and the one to the outbound feed, so
both get a notification exactly once, atomically, however often it is published. On Redis
Cluster the outbound feed (its own slot) cannot join that script: it is written by a separate
``XADD`` once the script reports a new notification, and a crash between the two loses that
push (the inbox keeps the notification); see docs/OPERATING.md.

Live subscriptions are served by one reader per process (:mod:`.hub`).

The modules: ``store`` (:class:`RedisNotifications`: publishing, reads, the outbound feed,
subscriptions), ``publish.lua`` (the publish script), ``keys`` (the key names), ``entries``
(stream entries read back), ``calls`` (exchanges with Redis bounded in time) and ``hub`` (the
live reader).
"""

from .entries import decode_outbound
from .store import RedisNotifications

__all__ = ["RedisNotifications", "decode_outbound"]
