local now, lease_ms = tonumber(ARGV[1]), tonumber(ARGV[2])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], now + lease_ms, id)
  redis.call('HSET', KEYS[2], id, ARGV[4])
  redis.call('HDEL', KEYS[4], id)
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
end
return out
