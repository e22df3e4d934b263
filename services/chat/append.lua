-- Store one chat message at the end of its table's stream, unless the table's rate is spent
-- (bucket.lua's take, prepended).
-- KEYS[1] the table's chat stream, KEYS[2] the table's rate bucket, and with a request id
-- KEYS[3] its record (one slot: the table's).
-- ARGV: now_ms, per_second, burst, maxlen, keep_ms, the request record's lifetime (ms) and the
-- message's fingerprint, then the entry's fields (name, value, ...).
-- Answers {1, id} when stored, {0, retry_after_ms} when the rate is spent (nothing stored),
-- {2, '<id> <fingerprint>'} when a copy under the request id stored one (nothing stored).
if KEYS[3] then
  local earlier = redis.call('GET', KEYS[3])
  if earlier then
    return {2, earlier}
  end
end
local now = tonumber(ARGV[1])
local wait = take(KEYS[2], now, tonumber(ARGV[2]), tonumber(ARGV[3]))
if wait > 0 then
  return {0, tostring(wait)}
end
-- Each entry names the one before it ('p'): the first entry kept says what retention dropped.
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local previous = '0-0'
local millis = now
if last[1] then
  previous = last[1][1]
  -- Numbered by the server's clock (every replica's, as in memory), never before the last.
  local last_millis = tonumber(string.match(previous, '^(%d+)'))
  if last_millis > millis then millis = last_millis end
end
local fields = {'p', previous}
for i = 8, #ARGV do fields[#fields + 1] = ARGV[i] end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], string.format('%d-*', millis),
  unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if KEYS[3] then
  redis.call('SET', KEYS[3], id .. ' ' .. ARGV[7], 'PX', ARGV[6])
end
return {1, id}
