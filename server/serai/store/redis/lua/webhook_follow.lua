local id = ARGV[1]
if redis.call('HEXISTS', KEYS[2], id) == 1 then
  redis.call('HSET', KEYS[4], id, '1')
  return 0
end
redis.call('ZADD', KEYS[1], 'LT', tonumber(ARGV[2]), id)
return 1
