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
