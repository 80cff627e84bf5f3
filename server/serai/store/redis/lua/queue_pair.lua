local now = tonumber(ARGV[1])
if tonumber(ARGV[6]) > 0 and not redis.call('SET', KEYS[7], '1', 'NX', 'PX', ARGV[6]) then
  return 0
end
local function drop(p)
  redis.call('ZREM', KEYS[1], p)
  redis.call('ZREM', KEYS[2], p)
  redis.call('ZREM', KEYS[3], p)
  redis.call('HDEL', KEYS[4], p)
end
for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))) do
  drop(p)
end
for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now - 86400000)) do
  redis.call('HDEL', KEYS[5], p)
  redis.call('ZREM', KEYS[6], p)
end
local seats, window, widen = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local flat = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local n = #flat / 2
local made, secret_at, i = 0, 7, 1
while i + seats - 1 <= n and secret_at <= #ARGV do
  local spread = tonumber(flat[2 * (i + seats - 1)]) - tonumber(flat[2 * i])
  local fits = true
  for j = i, i + seats - 1 do
    local since = tonumber(redis.call('ZSCORE', KEYS[2], flat[2 * j - 1])) or now
    if spread > window + widen * (now - since) then
      fits = false
      break
    end
  end
  if fits then
    local turn = redis.call('INCR', KEYS[8])
    local seated = {}
    for j = 1, seats do
      local p = flat[2 * (i + ((j - 1 + turn) % seats)) - 1]
      seated[j] = cjson.decode(redis.call('HGET', KEYS[4], p))
    end
    local pairing = ARGV[secret_at]
    for j = 1, seats do
      local p = seated[j]['p']
      local told = cjson.encode({pairing = pairing, seat = j - 1, players = seated, at = now})
      redis.call('HSET', KEYS[5], p, pairing .. '\n' .. told)
      redis.call('ZADD', KEYS[6], now, p)
      drop(p)
    end
    made = made + 1
    secret_at = secret_at + 1
    i = i + seats
  else
    i = i + 1
  end
end
return made
