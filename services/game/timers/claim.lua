-- Claim due wake-ups from the buckets named (see redis_timers.py): each due game's wake time
-- moves a lease ahead, so no other sweeper takes it meanwhile.
-- KEYS: wake-time buckets (sorted sets: game id -> wake time in ms); or none, and the buckets
-- are ARGV[4] .. ':{' .. tag .. '}:wake' for each tag in ARGV[5] (separated by spaces: one
-- argument, not one per bucket, which the client would pack one by one; on a cluster: buckets
-- of many slots of the one master the script runs on, which a cluster accepts only
-- undeclared, in a script flagged allow-cross-slot-keys).
-- ARGV[1]: now (ms), ARGV[2]: lease (ms), ARGV[3]: the most games to claim.
-- Replies {earliest wake time left, or '' when none; the claimed game ids...}. An empty bucket
-- costs one ZRANGE, so a sweep costs what is due plus one call per bucket, not per game.
-- With ARGV[6] = 'each' (buckets named by ARGV[5]) it replies {earliest, how many games claimed,
-- the game ids..., then for each bucket left non-empty: its place in ARGV[5] (1-based) and its
-- earliest wake time}: what a sweeper remembers so as to claim from only the buckets due.
local now, lease, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local buckets = KEYS
if #buckets == 0 then
  buckets = {}
  for tag in string.gmatch(ARGV[5], '%S+') do
    buckets[#buckets + 1] = ARGV[4] .. ':{' .. tag .. '}:wake'
  end
end
local claimed = {''}
local earliest = nil
local each = {}
for place, key in ipairs(buckets) do
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if #first > 0 then
    local score = tonumber(first[2])
    if score <= now and #claimed - 1 < limit then
      local due = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, limit - (#claimed - 1))
      for _, game in ipairs(due) do
        redis.call('ZADD', key, now + lease, game)
        claimed[#claimed + 1] = game
      end
      first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      score = #first > 0 and tonumber(first[2]) or nil
    end
    if score and (earliest == nil or score < earliest) then earliest = score end
    if score then
      each[#each + 1] = place
      each[#each + 1] = string.format('%d', score)
    end
  end
end
if earliest ~= nil then claimed[1] = string.format('%d', earliest) end
if ARGV[6] ~= 'each' then return claimed end
local reply = {claimed[1], #claimed - 1}
for index = 2, #claimed do reply[#reply + 1] = claimed[index] end
for _, value in ipairs(each) do reply[#reply + 1] = value end
return reply
