local now, player, pairing = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local since = redis.call('ZSCORE', KEYS[2], player)
if not since or not redis.call('ZSCORE', KEYS[1], player) then
  return 0
end
local entries = {redis.call('HGET', KEYS[4], player)}
for i = 5, #ARGV do
  entries[#entries + 1] = ARGV[i]
end
local seats = #entries
local turn = redis.call('INCR', KEYS[7])
local seated = {}
for j = 1, seats do
  seated[j] = cjson.decode(entries[((j - 1 + turn) % seats) + 1])
end
for j = 1, seats do
  if seated[j]['p'] == player then  -- the fill's bots: no one to tell
    local told = cjson.encode({pairing = pairing, seat = j - 1, players = seated, at = now})
    redis.call('HSET', KEYS[5], player, pairing .. '\n' .. told)
    redis.call('ZADD', KEYS[6], now, player)
  end
end
redis.call('LPUSH', KEYS[8], now - tonumber(since))
redis.call('LTRIM', KEYS[8], 0, tonumber(ARGV[4]) - 1)
redis.call('ZREM', KEYS[1], player)
redis.call('ZREM', KEYS[2], player)
redis.call('ZREM', KEYS[3], player)
redis.call('HDEL', KEYS[4], player)
return 1
