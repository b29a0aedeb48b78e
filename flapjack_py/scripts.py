"""Lua scripts run by the data layer, each atomic on the server.

Every script names its KEYS and ARGV in a header comment.
"""

from __future__ import annotations

TAKE_EVENTS = """
-- KEYS[1] event queue, KEYS[2] this executive's in-flight list
-- ARGV[1] the most events to take
-- Moves up to ARGV[1] events from the right (oldest) end of the queue onto the
-- left of the in-flight list and returns them, oldest first.
local taken = {}
for i = 1, tonumber(ARGV[1]) do
  local raw = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
  if not raw then break end
  taken[i] = raw
end
return taken
"""

REQUEUE_ORPHANS = """
-- KEYS[1] a gone executive's in-flight list, KEYS[2] the event queue, KEYS[3] its heartbeat key
-- ARGV[1] '1' to requeue even if the heartbeat key exists (its process is known dead)
-- Puts the in-flight events back at the right (next to be taken) end of the queue,
-- oldest last so it is taken first; returns how many were moved.
if ARGV[1] ~= '1' and redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local moved = 0
while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do
  moved = moved + 1
end
redis.call('DEL', KEYS[3])
return moved
"""

LOAD_SNAPSHOTS = """
-- KEYS: none (every key is passed in ARGV; single-instance Redis only)
-- ARGV[1] entity ids hash, ARGV[2] all_checks, ARGV[3] check_hashes_by_id, ARGV[4] failed_checks,
-- ARGV[5] number of check tags T, ARGV[6..5+T] check tag set names,
-- then per check 12 values: E:C, entity name, check hash, scheduled_maintenances zset,
--   8 keys to MGET (6 last_*_notification, scheduled and unscheduled in-force keys)
-- Returns one array per check: {entity id, registered (1/0), ack hash stored (1/0), {state, last_change,
-- last_update, initial_failure_delay, repeat_failure_delay}, MGET values, scheduled windows (ZRANGE
-- WITHSCORES, only for a new check or when no window is in force), failed_checks score, tag memberships}.
-- The executive keeps check state, all_checks, failed_checks and the ack hashes in step, so a check
-- with a state is registered, and only a failing one can be in failed_checks or have an ack hash.
local failing = {warning = true, critical = true, unknown = true}
local ntags = tonumber(ARGV[5])
local entity_ids = {}
local out = {}
for i = 6 + ntags, #ARGV, 12 do
  local cid, entity = ARGV[i], ARGV[i + 1]
  if entity_ids[entity] == nil then entity_ids[entity] = redis.call('HGET', ARGV[1], entity) end
  local mget = redis.call('MGET', unpack(ARGV, i + 4, i + 11))
  local hm = redis.call('HMGET', ARGV[i + 2], 'state', 'last_change', 'last_update', 'initial_failure_delay',
                        'repeat_failure_delay')
  local state = hm[1]
  local registered, hashed, failed = 1, 0, false
  if not state then
    registered = redis.call('ZSCORE', ARGV[2], cid) and 1 or 0
  end
  if not state or failing[state] then
    hashed = redis.call('HEXISTS', ARGV[3], cid)
    failed = redis.call('ZSCORE', ARGV[4], cid)
  end
  local windows = {}
  if not mget[7] or not state then windows = redis.call('ZRANGE', ARGV[i + 3], 0, -1, 'WITHSCORES') end
  local tags = {}
  for t = 1, ntags do tags[t] = redis.call('SISMEMBER', ARGV[5 + t], cid) end
  out[#out + 1] = {entity_ids[entity], registered, hashed, hm, mget, windows, failed, tags}
end
return out
"""

CHECK_FACTS = """
-- KEYS: none (every key is passed in ARGV; single-instance Redis only)
-- ARGV[1] contacts_for:ALL, then per check 8 values: E:C, check hash, current_checks:E, check name,
--   scheduled in-force key, unscheduled in-force key, contacts_for:EID, contacts_for:EID:C
-- Returns per check {state, last_change, summary, current_checks score, scheduled?, unscheduled?, contact ids}.
local out = {}
for i = 2, #ARGV, 8 do
  local h = redis.call('HMGET', ARGV[i + 1], 'state', 'last_change', 'summary')
  out[#out + 1] = {
    h[1], h[2], h[3], redis.call('ZSCORE', ARGV[i + 2], ARGV[i + 3]),
    redis.call('EXISTS', ARGV[i + 4]), redis.call('EXISTS', ARGV[i + 5]),
    redis.call('SUNION', ARGV[i + 6], ARGV[1], ARGV[i + 7])
  }
end
return out
"""
