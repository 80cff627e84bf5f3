
local meta, log, events, requests, archive = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'status') ~= 'finished' then return 0 end
local old = redis.call('GET', archive)
if old and string.byte(old, 1) == 3 then return 0 end
return {redis.call('HGETALL', meta), redis.call('LRANGE', log, 0, -1),
        redis.call('XRANGE', events, '-', '+'), redis.call('HGETALL', requests), old or ''}
