local leaves = tonumber(ARGV[3])
for i = 1, leaves do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = leaves + 1, #KEYS do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1]) end
return 1
