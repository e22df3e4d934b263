-- Publish one notification: stored once per dedupe key, on the player's inbox and (on a
-- standalone Redis) on the outbound feed, atomically.
--
-- KEYS: 1 the dedupe key, 2 the player's inbox, 3 the outbound feed.
-- ARGV: 1 dedupe ms, 2 keep (count), 3 oldest id kept (ms), 4 keep ms, 5 outbound maxlen (0: no
-- feed), 6 dedupe key, 7 n (Notification without cursor), 8 player id, 9 kind, 10 game id,
-- 11 table id. Replies the new entry's id, or nil when the key was stored before.
-- The feed's copy of n gets its cursor prepended: field 1 (cursor, a string) is the byte 0x0A,
-- then its length (an entry id is at most 41 bytes: one byte), then the id. A message parser
-- merges concatenated fields, so n is then the complete Notification.
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return false
end
local before = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local previous = '0-0'
if #before == 1 then previous = before[1][1] end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*',
  'k', ARGV[6], 'n', ARGV[7], 'p', previous)
redis.call('XTRIM', KEYS[2], 'MINID', '~', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if tonumber(ARGV[5]) > 0 then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*',
    'player_id', ARGV[8], 'kind', ARGV[9], 'game_id', ARGV[10], 'table_id', ARGV[11],
    'cursor', id, 'key', ARGV[6], 'n', '\10' .. string.char(#id) .. id .. ARGV[7])
end
return id
