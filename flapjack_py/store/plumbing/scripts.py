"""Lua scripts run by the data layer, each atomic on the server.

Every script names its KEYS and ARGV in a header comment.
"""

from __future__ import annotations

_CLAIM_KEY = r"""
-- The claim key of a raw event: its entity and check folded so that every two events the executive
-- parses as one check (entity lower-cased, invalid UTF-8 and lone surrogates read as '?') share a key.
-- Folding drops '?' and non-ASCII bytes, and 'i'/'k' from the entity (U+0130 and U+212A lower-case to
-- them in Python): two checks may share a key, which only serialises them. The fast path matches the
-- unescaped `"entity":"..."` and `"check":"..."`; anything else (\\u escapes, escaped or repeated
-- values) is decoded with cjson, surrogate escapes read as '?'. Not a JSON object with string entity and check: false (no claim; the
-- executive rejects such an event).
local FIELDS = {}
for _, name in ipairs({'entity', 'check'}) do
  FIELDS[name] = {'"' .. name .. '"', '^"' .. name .. '"%s*:%s*"([^"\\]*)"'}
end
local function json_field(raw, name)
  local quoted, pattern = FIELDS[name][1], FIELDS[name][2]
  local at = string.find(raw, quoted, 1, true)  -- a plain search, then the pattern only where it can match
  while at do
    local s, e, value = string.find(raw, pattern, at)
    if s then
      if string.find(raw, quoted, e + 1, true) then return nil end
      return value
    end
    at = string.find(raw, quoted, at + 1, true)
  end
  return nil
end
local function claim_key(raw)
  local entity, check
  if not string.find(raw, '\\u', 1, true) then
    entity, check = json_field(raw, 'entity'), json_field(raw, 'check')
  end
  if not (entity and check) then
    local text = string.gsub(raw, '(\\*)\\u[dD][89a-fA-F]%x%x', function(bs)
      if #bs % 2 == 0 then return bs .. '?' end  -- a surrogate escape (cjson refuses lone ones)
    end)
    local ok, data = pcall(cjson.decode, text)
    if not ok or type(data) ~= 'table' or type(data.entity) ~= 'string' or type(data.check) ~= 'string' then
      return false
    end
    entity, check = data.entity, data.check
  end
  return string.gsub(string.lower(entity), '[ik?\128-\255]', '') .. ':' .. string.gsub(check, '[?\128-\255]', '')
end
"""

TAKE_EVENTS = _CLAIM_KEY + """
-- KEYS[1] event queue, KEYS[2] this executive's in-flight list, KEYS[3] its hand-off list,
-- KEYS[4] event_claims (claim key -> owner), KEYS[5] event_counters, KEYS[6] event_counter_sequence,
-- KEYS[7] executives_taking, KEYS[8..] hand-off lists of the executives named in ARGV[3..]
-- ARGV[1] this executive's id, ARGV[2] the most events to take, ARGV[3..] ids of other executives
-- Takes up to ARGV[2] events, oldest first: first from the hand-off list (events of checks this
-- executive holds, handed over by others), then from the right of the queue (one RPOP of what is
-- left of ARGV[2], taken or handed over; the owners of their checks read with one HMGET). A queued event whose
-- check another executive holds goes onto that executive's hand-off list instead (so one check's
-- events are applied in queue order by one executive at a time); an unclaimed check is claimed.
-- Taken events go onto the in-flight list and reserve their event counters (HINCRBY all); the taker is
-- added to executives_taking (recovery looks there for in-flight lists).
-- If an owner is not among ARGV[3..], its event and those popped after it go back to the head of the
-- queue, in order, and taking stops.
-- Returns {counter before the first taken event, unknown owner or false, events handed over,
--          raw, claim key or '', raw, claim key or '', ...}.
local me, most = ARGV[1], tonumber(ARGV[2])
local handoff = {}
for i = 3, #ARGV do handoff[ARGV[i]] = KEYS[i + 5] end
local out, taken, claimed, owners, handed, unknown = {0, false, 0}, {}, {}, {}, {}, false
local function keep(raw, key)
  taken[#taken + 1] = raw
  out[#out + 1] = raw
  out[#out + 1] = key or ''
end
local function each_chunk(command, key, values)
  for i = 1, #values, 1000 do
    local found = redis.call(command, key, unpack(values, i, math.min(i + 999, #values)))
    if command == 'HMGET' then
      for j, owner in ipairs(found) do owners[values[i + j - 1]] = owner end
    end
  end
end
local function pop(key, count)  -- up to count events from the right of a list, oldest first
  if count < 1 then return {} end
  return redis.call('RPOP', key, count) or {}
end
for _, raw in ipairs(pop(KEYS[3], most)) do keep(raw, claim_key(raw)) end
local popped = pop(KEYS[1], most - #taken)  -- at most ARGV[2] moved per call: never the whole queue to others
local claim_keys, asked, seen = {}, {}, {}
for i, raw in ipairs(popped) do
  claim_keys[i] = claim_key(raw)
  if claim_keys[i] and not seen[claim_keys[i]] then
    seen[claim_keys[i]] = true
    asked[#asked + 1] = claim_keys[i]
  end
end
each_chunk('HMGET', KEYS[4], asked)
for i, raw in ipairs(popped) do
  local key = claim_keys[i]
  local owner = key and owners[key]
  if owner and owner ~= me then
    if not handoff[owner] then  -- this event and those after it go back to the head of the queue, in order
      local back = {}
      for j = #popped, i, -1 do back[#back + 1] = popped[j] end
      each_chunk('RPUSH', KEYS[1], back)
      unknown = owner
      break
    end
    handed[owner] = handed[owner] or {}
    table.insert(handed[owner], raw)
    out[3] = out[3] + 1
  else
    if key and not owner then
      owners[key] = me
      claimed[#claimed + 1] = key
      claimed[#claimed + 1] = me
    end
    keep(raw, key)
  end
end
out[2] = unknown
for owner, raws in pairs(handed) do each_chunk('LPUSH', handoff[owner], raws) end
each_chunk('HSET', KEYS[4], claimed)
if #taken > 0 then
  each_chunk('LPUSH', KEYS[2], taken)
  redis.call('SADD', KEYS[7], me)
  local all = redis.call('HINCRBY', KEYS[5], 'all', #taken)
  local first = math.max(all - #taken, tonumber(redis.call('GET', KEYS[6])) or 0)
  redis.call('SET', KEYS[6], first + #taken)
  out[1] = first
end
return out
"""

RELEASE_CLAIMS = _CLAIM_KEY + """
-- KEYS[1] event_claims, KEYS[2] this executive's hand-off list
-- ARGV: claim keys none of this executive's uncommitted taken events has
-- Runs inside the commit's MULTI: drops the claims, but those of checks with events on the hand-off list.
local handed = {}
for _, raw in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  local key = claim_key(raw)
  if key then handed[key] = true end
end
local free = {}
for _, key in ipairs(ARGV) do
  if not handed[key] then free[#free + 1] = key end
end
for i = 1, #free, 1000 do redis.call('HDEL', KEYS[1], unpack(free, i, math.min(i + 999, #free))) end
return #free
"""

REQUEUE_ORPHANS = """
-- KEYS[1] an executive's in-flight list, KEYS[2] its hand-off list, KEYS[3] the event queue,
-- KEYS[4] its heartbeat key, KEYS[5] event_claims, KEYS[6] event_counters, KEYS[7] executives_taking
-- ARGV[1] '1' to requeue even if the heartbeat key exists (its process is known dead, or it is us),
-- ARGV[2] its id
-- Puts its in-flight events, then its hand-off events, back at the right (next to be taken) end of the
-- queue in their order, gives back the counters the in-flight ones reserved, drops its claims and
-- removes it from executives_taking (it has no list left; its next take adds it again).
-- Returns how many events were moved.
if ARGV[1] ~= '1' and redis.call('EXISTS', KEYS[4]) == 1 then
  return 0
end
local moved = 0
while redis.call('LMOVE', KEYS[2], KEYS[3], 'LEFT', 'RIGHT') do
  moved = moved + 1
end
local reserved = 0
while redis.call('LMOVE', KEYS[1], KEYS[3], 'LEFT', 'RIGHT') do
  reserved = reserved + 1
end
if reserved > 0 then redis.call('HINCRBY', KEYS[6], 'all', -reserved) end
local claims = redis.call('HGETALL', KEYS[5])
for i = 1, #claims, 2 do
  if claims[i + 1] == ARGV[2] then redis.call('HDEL', KEYS[5], claims[i]) end
end
redis.call('DEL', KEYS[4])
redis.call('SREM', KEYS[7], ARGV[2])
return moved + reserved
"""

LOAD_SNAPSHOTS = """
-- KEYS[1] entity ids hash, KEYS[2] all_checks, KEYS[3] check_hashes_by_id, KEYS[4] failed_checks,
-- then per check 11 keys: check hash, scheduled_maintenances zset, E:C:check_tags set,
--   8 keys to MGET (6 last_*_notification, scheduled and unscheduled in-force keys)
-- ARGV: per check 3 values: E:C, entity name, '1' when the caller needs neither the check's notification times
--   nor its tags if its state is ok (the executive's ok events on an ok check read neither: they stop at the ok
--   filter), else '0'
-- Returns one array per check: {entity id, registered (1/0), ack hash stored (1/0), {state, last_change,
-- last_update, initial_failure_delay, repeat_failure_delay, interval, flap_history, flapping}, MGET values,
-- scheduled windows (ZRANGE WITHSCORES, only for a new check or when no window is in force),
-- failed_checks score, its check tags}.
-- The executive keeps check state, all_checks, failed_checks and the ack hashes in step, so a check
-- with a state is registered, and only a failing one can be in failed_checks or have an ack hash.
-- The cost is per check, whatever the number of tags in use; callers pass a bounded number of checks.
-- Every redis.call costs more than its command, so the in-force keys of all the checks are read with one
-- MGET, and one ZUNION of all their window sets tells whether any check has a window at all (usually
-- none has: then no check's windows are read one by one).
local failing = {warning = true, critical = true, unknown = true}
local entity_ids = {}
local out = {}
local checks = #ARGV / 3
local in_force_keys, window_keys = {}, {}
for n = 1, checks do
  local k = 4 + 11 * (n - 1)
  in_force_keys[2 * n - 1], in_force_keys[2 * n] = KEYS[k + 10], KEYS[k + 11]
  window_keys[n] = KEYS[k + 2]
end
local in_force = checks > 0 and redis.call('MGET', unpack(in_force_keys)) or {}
local any_windows = checks > 0 and #redis.call('ZUNION', checks, unpack(window_keys)) > 0
for n = 1, checks do
  local cid, entity, light = ARGV[3 * n - 2], ARGV[3 * n - 1], ARGV[3 * n] == '1'
  local k = 4 + 11 * (n - 1)
  if entity_ids[entity] == nil then entity_ids[entity] = redis.call('HGET', KEYS[1], entity) end
  local hm = redis.call('HMGET', KEYS[k + 1], 'state', 'last_change', 'last_update', 'initial_failure_delay',
                        'repeat_failure_delay', 'interval', 'flap_history', 'flapping')
  local state = hm[1]
  light = light and state == 'ok'
  local mget
  if light then
    mget = {false, false, false, false, false, false, in_force[2 * n - 1], in_force[2 * n]}
  else
    mget = redis.call('MGET', unpack(KEYS, k + 4, k + 11))
  end
  local registered, hashed, failed = 1, 0, false
  if not state then
    registered = redis.call('ZSCORE', KEYS[2], cid) and 1 or 0
  end
  if not state or failing[state] then
    hashed = redis.call('HEXISTS', KEYS[3], cid)
    failed = redis.call('ZSCORE', KEYS[4], cid)
  end
  local windows = {}
  if any_windows and (not mget[7] or not state) then
    windows = redis.call('ZRANGE', KEYS[k + 2], 0, -1, 'WITHSCORES')
  end
  out[n] = {entity_ids[entity], registered, hashed, hm, mget, windows, failed,
            light and {} or redis.call('SMEMBERS', KEYS[k + 3])}
end
return out
"""

CONTACT_DETAILS = """
-- KEYS: per contact 6 keys: contact hash, contact_media hash, contact_media_intervals hash,
--   contact_media_rollup_thresholds hash, contact_tz, contact_notification_rules set
-- Returns per contact {contact fields and values, media, intervals, thresholds (each HGETALL's flat array),
-- timezone or false, rule ids}: the notifier's contact reads in one call (one reply, not six per contact).
local out = {}
for k = 1, #KEYS, 6 do
  out[#out + 1] = {redis.call('HGETALL', KEYS[k]), redis.call('HGETALL', KEYS[k + 1]),
                   redis.call('HGETALL', KEYS[k + 2]), redis.call('HGETALL', KEYS[k + 3]),
                   redis.call('GET', KEYS[k + 4]), redis.call('SMEMBERS', KEYS[k + 5])}
end
return out
"""

CHECK_FACTS = """
-- KEYS[1] contacts_for:ALL, then per check 6 keys: check hash, current_checks:E, scheduled in-force key,
--   unscheduled in-force key, contacts_for:EID, contacts_for:EID:C
-- ARGV: per check its name (its member of current_checks:E)
-- Returns per check {state, last_change, summary, current_checks score, scheduled?, unscheduled?, contact ids}.
local out = {}
for n = 1, #ARGV do
  local k = 1 + 6 * (n - 1)
  local h = redis.call('HMGET', KEYS[k + 1], 'state', 'last_change', 'summary')
  out[n] = {
    h[1], h[2], h[3], redis.call('ZSCORE', KEYS[k + 2], ARGV[n]),
    redis.call('EXISTS', KEYS[k + 3]), redis.call('EXISTS', KEYS[k + 4]),
    redis.call('SUNION', KEYS[k + 5], KEYS[1], KEYS[k + 6])
  }
end
return out
"""

TRIAGE_FACTS = """
-- KEYS: per check 4 keys: check hash, current_checks:E, scheduled in-force key, unscheduled in-force key
--   (or, when ARGV[1] is 'states', 1 key: the check hash)
-- ARGV[1] 'all' or 'states', then per check its name (its member of current_checks:E)
-- Returns per check {state, summary, last_change, last_update, current_checks score, scheduled 1/0,
-- unscheduled 1/0} ('states': only the first four): what the overview shows and filters on, in one
-- round trip for thousands of checks.
local all = ARGV[1] == 'all'
local width = all and 4 or 1
local out = {}
for i = 2, #ARGV do
  local k = width * (i - 2)
  local h = redis.call('HMGET', KEYS[k + 1], 'state', 'summary', 'last_change', 'last_update')
  if all then
    h[5] = redis.call('ZSCORE', KEYS[k + 2], ARGV[i])
    h[6] = redis.call('EXISTS', KEYS[k + 3])
    h[7] = redis.call('EXISTS', KEYS[k + 4])
  end
  out[i - 1] = h
end
return out
"""

RECORD_SAMPLE = """
-- KEYS[1] rate samples list (newest first), KEYS[2] event_counters hash, KEYS[3] events queue
-- ARGV[1] now (unix s), ARGV[2] bucket (s), ARGV[3] samples kept
-- Pushes `now events queue` unless the newest sample is already in now's bucket (every executive calls
-- this on its heartbeat; one sample per bucket is kept, whoever writes it). Returns 1 when it pushed.
local now, bucket = tonumber(ARGV[1]), tonumber(ARGV[2])
local newest = redis.call('LINDEX', KEYS[1], 0)
if newest then
  local t = tonumber(string.match(newest, '^(%d+)'))
  if t and t - t % bucket >= now - now % bucket then return 0 end
end
local events = redis.call('HGET', KEYS[2], 'all') or '0'
redis.call('LPUSH', KEYS[1], ARGV[1] .. ' ' .. events .. ' ' .. redis.call('LLEN', KEYS[3]))
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[3]) - 1)
return 1
"""

PURGE_CHECK_LOGS = """
-- KEYS[1] E:C:decisions (JSON traces, newest first), KEYS[2] E:C:actions (hash: unix time -> action),
--   KEYS[3..] E:C:<kind>_notifications (unix times, oldest first)
-- ARGV[1] cut-off (unix time)
-- Deletes every entry at or before the cut-off: the oldest traces (by their `at`), the action fields,
-- the oldest notification times. The lists are in time order, so the boundary is found by binary search
-- and cut with one LTRIM (a year of notifications costs ~17 LINDEX, not a pop per entry); an entry
-- without a readable time counts as old. Returns the number of entries deleted.
local cutoff = tonumber(ARGV[1])
local function trace_time(raw)
  local ok, entry = pcall(cjson.decode, raw)
  if ok and type(entry) == 'table' then return tonumber(entry.at) end
  return nil
end
local function old(value, read)
  local t = read(value)
  return t == nil or t <= cutoff
end
-- how many entries, counted from the old end (`step` -1: the tail), are at or before the cut-off
local function old_count(key, step, read)
  local lo, hi = 0, redis.call('LLEN', key)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local index = mid
    if step < 0 then index = -1 - mid end
    if old(redis.call('LINDEX', key, index), read) then lo = mid + 1 else hi = mid end
  end
  return lo
end
local gone = old_count(KEYS[1], -1, trace_time)
if gone > 0 then redis.call('LTRIM', KEYS[1], 0, -1 - gone) end
local fields = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
  if old(field, tonumber) then fields[#fields + 1] = field end
end
for first = 1, #fields, 1000 do
  redis.call('HDEL', KEYS[2], unpack(fields, first, math.min(first + 999, #fields)))
end
gone = gone + #fields
for k = 3, #KEYS do
  local n = old_count(KEYS[k], 1, tonumber)
  if n > 0 then redis.call('LTRIM', KEYS[k], n, -1) end
  gone = gone + n
end
return gone
"""

REQUEUE_STUCK_JOB = """
-- KEYS[1] an rq queue's intermediate list, KEYS[2] the rq queue (a list of job ids)
-- ARGV[1] a job id
-- Moves the job id from the intermediate list (where a worker that died put it when it took the job) back to
-- the front of the queue, if it is still there. Returns 1 when moved, 0 when another worker took it first.
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 then
  redis.call('LPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0
"""

TAKE_QUEUED_JOBS = """
-- KEYS[1] an rq queue (a list of job ids), KEYS[2] its intermediate list
-- ARGV job ids
-- Moves each job id still on the queue, wherever it stands, to the intermediate list (as a worker taking it
-- does: should the caller die before starting it, recover_intermediate puts it back). Returns the ids moved
-- (those another worker took first are not).
local moved = {}
for _, job_id in ipairs(ARGV) do
  if redis.call('LREM', KEYS[1], 1, job_id) == 1 then
    redis.call('RPUSH', KEYS[2], job_id)
    moved[#moved + 1] = job_id
  end
end
return moved
"""

BREAKER_TRIP = """
-- KEYS[1] a gateway's breaker hash
-- ARGV[1] now, ARGV[2] first step, ARGV[3] first probe time, ARGV[4] server kind, ARGV[5] error, ARGV[6] TTL
-- Opens the breaker (since now) unless it is open already, when only its error is updated; the TTL renewed.
-- Returns 1 when opened here, 0 when it was open.
local opened = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'since', ARGV[1], 'step', ARGV[2], 'next_probe', ARGV[3], 'server', ARGV[4])
  opened = 1
end
redis.call('HSET', KEYS[1], 'error', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
return opened
"""

BREAKER_CLAIM_PROBE = """
-- KEYS[1] a gateway's breaker hash
-- ARGV[1] now, ARGV[2] the time the probe's claim holds until
-- Claims the probe that is due: its next_probe moved to ARGV[2], so that no other worker probes meanwhile
-- (the TTL is left: a breaker nobody finds refused again expires). Returns 1 when claimed, 0 when no probe
-- is due yet, -1 when the breaker is closed.
local due = redis.call('HGET', KEYS[1], 'next_probe')
if not due then return -1 end
if tonumber(due) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'next_probe', ARGV[2])
return 1
"""

BREAKER_UPDATE = """
-- KEYS[1] a gateway's breaker hash
-- ARGV[1] TTL (0: left as it is), ARGV[2..] field, value, ...
-- Sets the fields (and renews the TTL) of an open breaker; a closed one stays closed. Returns 1 when open.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if tonumber(ARGV[1]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1
"""

HASH_FIELDS = """
-- KEYS: hashes (alert:ID records, maintenance actor hashes ...)
-- ARGV: the field names to read of each
-- Returns per key its values of ARGV joined by the unit separator (byte 31; '' for a missing field): a read
-- of thousands of hashes in one call, one string each (store/analytics.py; its fields hold no control bytes).
local out = {}
for n = 1, #KEYS do
  local values = redis.call('HMGET', KEYS[n], unpack(ARGV))
  for i = 1, #ARGV do
    if not values[i] then values[i] = '' end
  end
  out[n] = table.concat(values, '\\31')
end
return out
"""

CHECK_HISTORY = """
-- KEYS: per check 2 keys: E:C:sorted_state_timestamps, E:C:sorted_unscheduled_maintenance_timestamps
-- ARGV[1] since, ARGV[2] until, ARGV[3] the earliest acknowledgement wanted
-- Returns per check {state change times: the one before since, then those of [since, until]; unscheduled
-- maintenance starts (acknowledgements) of [ARGV[3], until]} (store/analytics.py).
local out = {}
for n = 1, #KEYS, 2 do
  local stamps = redis.call('ZREVRANGEBYSCORE', KEYS[n], '(' .. ARGV[1], '-inf', 'LIMIT', 0, 1)
  for _, ts in ipairs(redis.call('ZRANGEBYSCORE', KEYS[n], ARGV[1], ARGV[2])) do
    stamps[#stamps + 1] = ts
  end
  out[#out + 1] = {stamps, redis.call('ZRANGEBYSCORE', KEYS[n + 1], ARGV[3], ARGV[2])}
end
return out
"""

START_JOBS = """
-- KEYS[1] an rq queue's intermediate list, KEYS[2] its started registry;
--   per job i, KEYS[3i], KEYS[3i+1], KEYS[3i+2]: its job hash, its execution's hash, its execution registry
-- ARGV[1] worker name, ARGV[2] execution TTL (s), ARGV[3] now (unix seconds, as redis-py writes a float),
--   ARGV[4] now (rq's time text), ARGV[5] now (whole unix seconds); per job i, ARGV[4+2i] its id, ARGV[5+2i] the
--   execution id
-- Starts each job taken into the intermediate list as rq's worker does (Execution.create and
-- Job.prepare_for_execution: flapjack_py.store.deliveries), removing it from the list. Returns per job
-- {id, data, created_at, result_ttl}, or {id} when its job hash is gone (it is only removed from the list).
local ttl = tonumber(ARGV[2])
local expires = tonumber(ARGV[5]) + ttl
local started = {}
for i = 1, (#KEYS - 2) / 3 do
  local job_key, execution_key, executions_key = KEYS[3 * i], KEYS[3 * i + 1], KEYS[3 * i + 2]
  local job_id, execution_id = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
  redis.call('LREM', KEYS[1], 1, job_id)
  local job = redis.call('HMGET', job_key, 'data', 'created_at', 'result_ttl')
  if job[1] then
    redis.call('HSET', execution_key, 'id', execution_id, 'created_at', ARGV[3], 'last_heartbeat', ARGV[3],
               'worker_name', ARGV[1])
    redis.call('EXPIRE', execution_key, ttl)
    redis.call('ZADD', executions_key, expires + 60, execution_id)
    redis.call('EXPIRE', executions_key, ttl + 60)
    redis.call('ZADD', KEYS[2], expires, job_id .. ':' .. execution_id)
    redis.call('HSET', job_key, 'last_heartbeat', ARGV[4], 'status', 'started', 'started_at', ARGV[4],
               'worker_name', ARGV[1])
    started[#started + 1] = {job_id, job[1], job[2] or '', job[3] or ''}
  else
    started[#started + 1] = {job_id}
  end
end
return started
"""

FINISH_JOBS = """
-- KEYS[1] an rq queue's started registry, KEYS[2] its finished registry; per job i, KEYS[6i-3] .. KEYS[6i+2]:
--   its job hash, its execution's hash, its execution registry, its results stream, its dependents and its
--   dependencies keys
-- ARGV[1] worker name, ARGV[2] now (whole unix seconds), ARGV[3] now (unix seconds, as redis-py writes a float);
--   per job i, ARGV[5i-1] .. ARGV[5i+3]: its id, its execution id, its result TTL (s, > 0), its execution's start
--   (unix seconds), its return value (rq's serialized result text)
-- Ends each job as finished as rq's worker does for a job whose function returned (its execution removed,
-- status, a result in its stream, the finished registry, the job's keys expiring after the result TTL).
for i = 1, (#KEYS - 2) / 6 do
  local k, a = 6 * i - 3, 5 * i - 1
  local job_id, execution_id, ttl = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  redis.call('DEL', KEYS[k + 1])
  redis.call('ZREM', KEYS[1], job_id .. ':' .. execution_id)
  redis.call('ZREM', KEYS[k + 2], execution_id)
  redis.call('HSET', KEYS[k], 'status', 'finished')
  redis.call('XADD', KEYS[k + 3], 'MAXLEN', '~', 10, '*', 'type', 1, 'worker_name', ARGV[1],
             'return_value', ARGV[a + 4], 'execution_id', execution_id, 'execution_started_at', ARGV[a + 3],
             'execution_ended_at', ARGV[3])
  redis.call('EXPIRE', KEYS[k + 3], ttl)
  redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + ttl, job_id)
  redis.call('EXPIRE', KEYS[k], ttl)
  redis.call('EXPIRE', KEYS[k + 4], ttl)
  redis.call('EXPIRE', KEYS[k + 5], ttl)
end
return (#KEYS - 2) / 6
"""
