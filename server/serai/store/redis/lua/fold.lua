
local meta, log, events, requests, archive = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'version') ~= ARGV[1] then return 0 end
if redis.call('HGET', meta, 'status') ~= 'finished' then return 0 end
local old = redis.call('GET', archive)
if old and string.byte(old, 1) == 3 then return 0 end
redis.call('SET', archive, ARGV[2])
redis.call('DEL', meta, log, events, requests)
-- In slices: unpack() fails past a few thousand values (a state of 255 KB, in 64-byte pieces),
-- and a script that fails here has already deleted the record.
for i = 3, #ARGV, 512 do
  redis.call('HSET', meta, unpack(ARGV, i, math.min(i + 511, #ARGV)))
end
return 1
