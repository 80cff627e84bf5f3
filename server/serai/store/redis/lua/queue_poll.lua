local held = redis.call('HGET', KEYS[4], ARGV[1])
if held then
  return {'assigned', held}
end
local rank = redis.call('ZRANK', KEYS[2], ARGV[1])
if not rank then
  return {'absent'}
end
redis.call('ZADD', KEYS[3], 'XX', ARGV[2], ARGV[1])
return {
  'waiting', rank, redis.call('ZCARD', KEYS[2]), redis.call('ZSCORE', KEYS[2], ARGV[1]),
  redis.call('LRANGE', KEYS[5], 0, -1)
}
