local held = redis.call('HGET', KEYS[5], ARGV[1])
if held then
  local pairing = string.sub(held, 1, string.find(held, '\n', 1, true) - 1)
  if pairing ~= ARGV[5] then
    return held
  end
  redis.call('HDEL', KEYS[5], ARGV[1])
  redis.call('ZREM', KEYS[6], ARGV[1])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[2], 'NX', ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
return false
