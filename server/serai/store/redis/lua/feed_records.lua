-- The watch hub's shared read, second half: sent right behind its blocking XREAD on the same
-- connection, so it runs as soon as the XREAD answers, and reads each moved match's record and
-- new events at once (so they agree). KEYS: each match's record and events. ARGV: the most
-- events per match, then for each match the event id read after and the version the reader
-- holds ('': none wanted). Replies, for each match with events after the id: its position (from
-- 1), "unchanged", "gone", "unasked" or its record's fields, and its events after the id (at most
-- ARGV[1]). Which streams have news is asked of XREAD itself, 500 streams a call: no command per
-- quiet match.
local matches = #KEYS / 2
local found = {}
for first = 1, matches, 500 do
  local last = math.min(first + 499, matches)
  local read = {'XREAD', 'COUNT', 1, 'STREAMS'}
  local position = {}
  for i = first, last do
    read[#read + 1] = KEYS[2 * i]
    position[KEYS[2 * i]] = i
  end
  for i = first, last do
    local after = ARGV[2 * i]
    if after == '' then after = '0-0' end
    read[#read + 1] = after
  end
  local news = redis.call(unpack(read))
  for _, stream in ipairs(news or {}) do
    local i = position[stream[1]]
    local after = ARGV[2 * i]
    if after == '' then after = '0-0' end
    local held = ARGV[2 * i + 1]
    local record = 'unasked'
    if held ~= '' then
      local version = redis.call('HGET', KEYS[2 * i - 1], 'version')
      if not version then
        record = 'gone'
      elseif version ~= held then
        record = redis.call('HGETALL', KEYS[2 * i - 1])
      else
        record = 'unchanged'
      end
    end
    local events = redis.call('XREAD', 'COUNT', ARGV[1], 'STREAMS', KEYS[2 * i], after)
    found[#found + 1] = i
    found[#found + 1] = record
    found[#found + 1] = events[1][2]
  end
end
return found
