if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 1 then
  return 'duplicate'
end
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  local at = 3 + i * 6
  local stored = redis.call('HGET', KEYS[1], ARGV[at])
  local games = 0
  if stored then
    games = cjson.decode(stored)[4]
  end
  if games ~= tonumber(ARGV[at + 4]) then
    return 'conflict'
  end
end
for i = 0, n - 1 do
  local at = 3 + i * 6
  local player = ARGV[at]
  redis.call('HSET', KEYS[1], player, ARGV[at + 1])
  if ARGV[at + 3] == '1' then
    redis.call('ZADD', KEYS[3], ARGV[at + 2], player)
  else
    redis.call('ZADD', KEYS[2], ARGV[at + 2], player)
  end
  redis.call('LPUSH', KEYS[5 + i], ARGV[at + 5])
  redis.call('LTRIM', KEYS[5 + i], 0, 99)
end
redis.call('SADD', KEYS[4], ARGV[1])
return 'applied'
