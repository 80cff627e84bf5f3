-- The watch hub's shared read, second half: sent right behind its blocking XREAD on the same
-- connection, so it runs as soon as the XREAD answers, and reads each moved match's record and
-- new events at once (so they agree). KEYS: each match's record and events. ARGV: the most
-- events per match, then for each match the event id read after and the version the reader
-- holds. Replies, for each match whose last event is another now: its position (from 1),
-- "unchanged" or its record's fields, and its events after the id (at most ARGV[1]).
local found = {}
for i = 1, #KEYS / 2 do
  local now = redis.call('HMGET', KEYS[2 * i - 1], 'last_event', 'version')
  local after = ARGV[2 * i]
  if now[1] and now[1] ~= after then
    local record = 'unchanged'
    if now[2] ~= ARGV[2 * i + 1] then
      record = redis.call('HGETALL', KEYS[2 * i - 1])
    end
    if after == '' then after = '0-0' end
    local read = redis.call('XREAD', 'COUNT', ARGV[1], 'STREAMS', KEYS[2 * i], after)
    found[#found + 1] = i
    found[#found + 1] = record
    found[#found + 1] = read and read[1][2] or {}
  end
end
return found
