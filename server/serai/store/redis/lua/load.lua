
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return false end
if version == ARGV[1] then return 'unchanged' end
return redis.call('HGETALL', KEYS[1])
