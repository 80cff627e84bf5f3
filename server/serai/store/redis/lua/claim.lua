
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return -1 end
local open = redis.call('ZCARD', KEYS[1])
if open >= tonumber(ARGV[3]) then return open end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return -1
