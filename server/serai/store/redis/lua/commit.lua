
local meta, log, events, requests = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local expected, rid, answer = ARGV[1], ARGV[2], ARGV[3]
local nf, nl, ne = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local seat, window = ARGV[7], tonumber(ARGV[8])
local idle, finishing = tonumber(ARGV[9]), ARGV[10]
local match_keys = {meta, log, events, requests}  -- any keys after them are index keys
if rid ~= '' then
  local prefix = rid .. '\n'
  for slot = 0, window - 1 do
    local prior = redis.call('HGET', requests, seat .. ':' .. slot)
    if prior and string.sub(prior, 1, #prefix) == prefix then
      return {'duplicate', string.sub(prior, #prefix + 1)}
    end
  end
end
local current = redis.call('HGET', meta, 'version')
if not current then return {'missing'} end
if current ~= expected then return {'conflict', redis.call('HGETALL', meta)} end
local version = tostring(tonumber(current) + 1)
local i = 11
local sets = {'version', version}
for _ = 1, nf do
  sets[#sets + 1] = ARGV[i]
  sets[#sets + 1] = ARGV[i + 1]
  i = i + 2
end
local created_log = false
if nl > 0 then
  local entries = {}
  for _ = 1, nl do
    entries[#entries + 1] = ARGV[i]
    i = i + 1
  end
  created_log = redis.call('RPUSH', log, unpack(entries)) == nl
end
-- A watch hub listening to the match (SUBSCRIBE on the events key's name) is sent the commit
-- (the last event before it, its version, events and the record after it), so that it need
-- not wait for its next read; with no listener this costs one PUBSUB NUMSUB. Never on a Redis
-- Cluster (a PUBLISH goes to every node there): its hubs do not listen.
local pushing = ne > 0 and redis.call('PUBSUB', 'NUMSUB', events)[2] > 0
local previous = pushing and (redis.call('HGET', meta, 'last_event') or '')
local ids = {}
for _ = 1, ne do
  ids[#ids + 1] = redis.call('XADD', events, '*', 'v', version, 'k', ARGV[i], 'd', ARGV[i + 1])
  i = i + 2
end
if #ids > 0 then
  sets[#sets + 1] = 'last_event'
  sets[#sets + 1] = ids[#ids]
end
redis.call('HSET', meta, unpack(sets))
if pushing then
  local pushed = {}
  for n, id in ipairs(ids) do
    local at = 11 + 2 * nf + nl + 2 * (n - 1)
    pushed[#pushed + 1] = id
    pushed[#pushed + 1] = ARGV[at]
    pushed[#pushed + 1] = ARGV[at + 1]
  end
  local push = {previous, version, pushed, redis.call('HGETALL', meta)}
  redis.call('PUBLISH', events, cmsgpack.pack(push))
end
local first_request = false
if rid ~= '' then
  local n = redis.call('HINCRBY', requests, seat .. ':n', 1)
  first_request = n == 1
  local slot = seat .. ':' .. ((n - 1) % window)
  local last = ids[#ids] or ''
  redis.call('HSET', requests, slot, rid .. '\n' .. version .. '\n' .. last .. '\n' .. answer)
end
if finishing == '1' then
  for _, key in ipairs(match_keys) do redis.call('PERSIST', key) end
elseif idle > 0 then
  -- The keys live idle + idle/64 from when their time was last set, which is set again only once
  -- less than idle is left: never before idle after the last commit, and one PTTL a commit
  -- instead of four PEXPIREs (each written to the append-only file). A key this commit made
  -- gets the others' time.
  local left = redis.call('PTTL', meta)
  if left < idle then
    local life = idle + math.floor(idle / 64)
    for _, key in ipairs(match_keys) do redis.call('PEXPIRE', key, life) end
  else
    if created_log then redis.call('PEXPIRE', log, left) end
    if first_request and redis.call('PTTL', requests) < 0 then
      redis.call('PEXPIRE', requests, left)
    end
  end
end
-- Indexed at once when asked (index.lua's work, the same keys after the match's four): the match
-- id, its score and how many keys it leaves follow the events.
if #KEYS > 4 then
  local member, score, leaves = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  for k = 5, 4 + leaves do redis.call('ZREM', KEYS[k], member) end
  for k = 5 + leaves, #KEYS do redis.call('ZADD', KEYS[k], score, member) end
end
local reply = {'ok', version}
for _, id in ipairs(ids) do reply[#reply + 1] = id end
return reply
