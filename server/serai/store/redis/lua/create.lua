
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local version = ARGV[1]
local nf, ne, idle = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local i = 5
local sets = {}
for _ = 1, nf do
  sets[#sets + 1] = ARGV[i]
  sets[#sets + 1] = ARGV[i + 1]
  i = i + 2
end
local last = ''
for _ = 1, ne do
  last = redis.call('XADD', KEYS[2], '*', 'v', version, 'k', ARGV[i], 'd', ARGV[i + 1])
  i = i + 2
end
sets[#sets + 1] = 'last_event'
sets[#sets + 1] = last
redis.call('HSET', KEYS[1], unpack(sets))
if idle > 0 then
  redis.call('PEXPIRE', KEYS[1], idle)
  redis.call('PEXPIRE', KEYS[2], idle)
end
-- Listed at once when asked (index.lua's work, the same keys after the first two): the match
-- id, its score and how many keys it leaves follow the events.
if #KEYS > 2 then
  local member, score, leaves = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  for k = 3, 2 + leaves do redis.call('ZREM', KEYS[k], member) end
  for k = 3 + leaves, #KEYS do redis.call('ZADD', KEYS[k], score, member) end
end
return last
