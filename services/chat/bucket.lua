-- A token bucket in a hash (fields 'tokens', 'at'): prepended to each script that spends one
-- (services/chat/redis_store.py), so that the table's and the player's count alike.
-- take(key, now_ms, per_second, burst): 0 when a token was taken, else the milliseconds until
-- there is one (nothing taken).
local function take(key, now, rate, burst)
  local bucket = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(bucket[1]) or burst
  local at = tonumber(bucket[2]) or now
  if now > at then
    tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
    at = now
  end
  if tokens < 1 then
    return math.floor((1 - tokens) / rate * 1000) + 1
  end
  redis.call('HSET', key, 'tokens', tostring(tokens - 1), 'at', tostring(at))
  redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
  return 0
end
