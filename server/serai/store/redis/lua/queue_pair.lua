local now = tonumber(ARGV[1])
local function drop(p)
  redis.call('ZREM', KEYS[1], p)
  redis.call('ZREM', KEYS[2], p)
  redis.call('ZREM', KEYS[3], p)
  redis.call('HDEL', KEYS[4], p)
end
local stale = now - tonumber(ARGV[5])
for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', stale, 'LIMIT', 0, 100)) do
  drop(p)
end
local unread = now - 86400000
for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', unread, 'LIMIT', 0, 100)) do
  redis.call('HDEL', KEYS[5], p)
  redis.call('ZREM', KEYS[6], p)
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[6])
if not rank then
  return 0
end
local seats, window, widen = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local lo = math.max(0, rank - seats + 1)
local flat = redis.call('ZRANGE', KEYS[1], lo, rank + seats - 1, 'WITHSCORES')
local me = rank - lo + 1
local best, best_spread = nil, nil
for i = math.max(1, me - seats + 1), math.min(me, #flat / 2 - seats + 1) do
  local spread = tonumber(flat[2 * (i + seats - 1)]) - tonumber(flat[2 * i])
  if best_spread == nil or spread < best_spread then
    local fits = true
    for j = i, i + seats - 1 do
      local since = tonumber(redis.call('ZSCORE', KEYS[2], flat[2 * j - 1])) or now
      if spread > window + widen * (now - since) then
        fits = false
        break
      end
    end
    if fits then
      best, best_spread = i, spread
    end
  end
end
if not best then
  return 0
end
local turn = redis.call('INCR', KEYS[7])
local seated = {}
for j = 1, seats do
  local p = flat[2 * (best + ((j - 1 + turn) % seats)) - 1]
  seated[j] = cjson.decode(redis.call('HGET', KEYS[4], p))
end
local pairing = ARGV[7]
for j = 1, seats do
  local p = seated[j]['p']
  local told = cjson.encode({pairing = pairing, seat = j - 1, players = seated, at = now})
  redis.call('HSET', KEYS[5], p, pairing .. '\n' .. told)
  redis.call('ZADD', KEYS[6], now, p)
  redis.call('LPUSH', KEYS[8], now - tonumber(redis.call('ZSCORE', KEYS[2], p)))
  drop(p)
end
redis.call('LTRIM', KEYS[8], 0, tonumber(ARGV[8]) - 1)
return 1
