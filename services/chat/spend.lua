-- Spend one token of a player's chat rate (bucket.lua's take, prepended).
-- KEYS[1] the player's bucket (the player's slot). ARGV: now_ms, per_second, burst.
-- Answers 0 when spent, else the milliseconds until a token is there (nothing spent).
return take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
