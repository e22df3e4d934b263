-- Set one game's wake-up, guarded by version (see redis_timers.py).
-- KEYS[1]: the wake times of the game's bucket (sorted set), KEYS[2]: its versions (hash).
-- ARGV[1]: game id, ARGV[2]: version, ARGV[3]: wake time (ms), or "-" for none.
-- Replies 1 when it set (or cleared) the wake-up, 0 when a newer version had set it.
local known = redis.call('HGET', KEYS[2], ARGV[1])
if known and tonumber(known) > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '-' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
