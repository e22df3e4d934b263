-- The event store's append: check the expected version and the hash it chains onto against the
-- stream's last entry, then write the batch, all in one atomic step (see store.py).
--
-- KEYS[1]: the game's stream. ARGV[1]: expected version. ARGV[2]: hash of the event at that
-- version (GENESIS for 0), i.e. the prev hash the client chained onto. ARGV[3..]: payload, hash
-- pairs. Replies {"ok", new_version} or {"conflict" | "stale-hash", actual_version, head_hash}.

-- services.eventstore.base.GENESIS_HASH, the head hash of an empty stream (Lua cannot import
-- it; tests/store/test_redis_event_store.py checks the two agree).
local GENESIS_HASH = '0000000000000000000000000000000000000000000000000000000000000000'

local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local version = 0
local head_hash = GENESIS_HASH
if #last == 1 then
  local seq = string.match(last[1][1], '^0%-(%d+)$')
  if not seq then
    return redis.error_reply('stream ' .. KEYS[1] .. ' holds foreign entry ' .. last[1][1])
  end
  version = tonumber(seq)
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'h' then head_hash = fields[i + 1] end
  end
end
if version ~= tonumber(ARGV[1]) then
  return {'conflict', version, head_hash}
end
if head_hash ~= ARGV[2] then
  return {'stale-hash', version, head_hash}
end
local prev = ARGV[2]
for i = 3, #ARGV, 2 do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 'p', ARGV[i], 'h', ARGV[i + 1], 'ph', prev)
  prev = ARGV[i + 1]
end
return {'ok', version}
