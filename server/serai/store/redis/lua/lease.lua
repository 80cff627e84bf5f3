local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', until_ms, id)
end
return due
