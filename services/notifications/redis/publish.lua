-- Publish one player's notifications, in order: each is stored once per dedupe key, on the
-- player's inbox and (on a standalone Redis) on the outbound feed, atomically.
--
-- KEYS: 1..n the notifications' dedupe records, n+1..2n the records releases before versioned
-- records wrote for the same facts, 2n+1 the player's inbox, 2n+2 the outbound feed (absent on
-- a Redis Cluster, where the feed is another slot's).
-- ARGV: 1 dedupe ms, 2 keep (count), 3 oldest id kept (ms), 4 keep ms, 5 outbound maxlen (0: no
-- feed), 6 player id; then six per notification: dedupe key, n (Notification without
-- cursor), kind, game id, table id, version ('' for a record per fact). A versioned record
-- (one per game and seat, kinds.versioned) holds the newest version told: a notification is
-- stored when its version is newer and no record of the old kind holds its fact.
-- Replies, per notification, the new entry's id, or nil when its key was stored before.
-- The feed's copy of n gets its cursor prepended: field 1 (cursor, a string) is the byte 0x0A,
-- then its length (an entry id is at most 41 bytes: one byte), then the id. A message parser
-- merges concatenated fields, so n is then the complete Notification.
local count = (#ARGV - 6) / 6
local inbox = KEYS[2 * count + 1]
local feed = KEYS[2 * count + 2]
local feed_maxlen = tonumber(ARGV[5])
local replies = {}
local previous = nil
for i = 1, count do
  local at = 6 + (i - 1) * 6
  local key, n, version = ARGV[at + 1], ARGV[at + 2], ARGV[at + 6]
  local fresh
  if version == '' then
    fresh = redis.call('SET', KEYS[i], '1', 'NX', 'PX', ARGV[1])
  else
    local told = tonumber(redis.call('GET', KEYS[i]) or '-1') or -1
    fresh = told < tonumber(version) and redis.call('EXISTS', KEYS[count + i]) == 0
    if fresh then redis.call('SET', KEYS[i], version, 'PX', ARGV[1]) end
  end
  if fresh then
    if previous == nil then
      local before = redis.call('XREVRANGE', inbox, '+', '-', 'COUNT', 1)
      previous = '0-0'
      if #before == 1 then previous = before[1][1] end
    end
    local id = redis.call('XADD', inbox, 'MAXLEN', '~', ARGV[2], '*',
      'k', key, 'n', n, 'p', previous)
    if feed_maxlen > 0 then
      redis.call('XADD', feed, 'MAXLEN', '~', ARGV[5], '*',
        'player_id', ARGV[6], 'kind', ARGV[at + 3], 'game_id', ARGV[at + 4],
        'table_id', ARGV[at + 5], 'cursor', id, 'key', key,
        'n', '\10' .. string.char(#id) .. id .. n)
    end
    previous = id
    replies[i] = id
  else
    replies[i] = false
  end
end
if previous ~= nil then
  redis.call('XTRIM', inbox, 'MINID', '~', ARGV[3])
  redis.call('PEXPIRE', inbox, ARGV[4])
end
return replies
