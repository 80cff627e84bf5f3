local id, mode = ARGV[1], ARGV[6]
if redis.call('HGET', KEYS[2], id) ~= ARGV[2] then return 0 end
if mode == 'drop' then
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  return 1
end
redis.call('HSET', KEYS[3], id, ARGV[3])
if mode == 'keep' then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[5]), id)
  return 1
end
redis.call('HDEL', KEYS[2], id)
local due = ARGV[5]
if redis.call('HDEL', KEYS[4], id) == 1 then due = ARGV[4] end
redis.call('ZADD', KEYS[1], tonumber(due), id)
return 1
