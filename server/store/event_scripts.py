"""The Lua scripts of the event store (server/store/event_store.py): each one touches
the keys of one game only, so that it runs on one cluster slot. Their keys and
arguments are written above each; the store is their only caller.
"""

from __future__ import annotations

from typing import Final

from server.store.public_path import Script

# KEYS[1] events stream, KEYS[2] commands hash, KEYS[3] archive, KEYS[4] (optional)
# the game's seats hash. ARGV[1] expected version, ARGV[2] command id ('' for none),
# ARGV[3] timestamp ms, ARGV[4] reply to record with the command id; with KEYS[4],
# ARGV[5] a seat and ARGV[6] the digest of the token it acts with; then the events.
# Returns {0, new_version} | {1, recorded_version, recorded_reply} | {2, actual_version}
# (always {2, n} for a game archived at version n: an archive is never appended to)
# | {3, actual_version}: the seat's token is not that one any more (server/games/seat_tokens.py).
APPEND_LUA: Final = Script("""
local cmd = ARGV[2]
if cmd ~= '' then
  local seen = redis.call('HGET', KEYS[2], cmd)
  if seen then
    -- Written again as it is: a WAIT after this script then covers the write that
    -- recorded it, whichever connection made it (server/store/durability.py).
    redis.call('HSET', KEYS[2], cmd, seen)
    local sep = string.find(seen, ':', 1, true)
    return {1, tonumber(string.sub(seen, 1, sep - 1)), string.sub(seen, sep + 1)}
  end
end
local expected = tonumber(ARGV[1])
local actual = redis.call('XLEN', KEYS[1])
if actual == 0 and redis.call('EXISTS', KEYS[3]) == 1 then
  -- archived (its stream is gone): at its archive's version, and nothing more goes in
  return {2, tonumber(string.match(redis.call('GETRANGE', KEYS[3], 0, 63), '^%d+ %S+ (%d+)'))}
end
if actual ~= expected then
  return {2, actual}
end
local first = 5
if KEYS[4] then
  first = 7
  if redis.call('HGET', KEYS[4], ARGV[5]) ~= ARGV[6] then return {3, actual} end
end
local v = expected
for i = first, #ARGV do
  v = v + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', v), 'e', ARGV[i], 't', ARGV[3])
end
if cmd ~= '' then
  redis.call('HSET', KEYS[2], cmd, string.format('%d:', v) .. ARGV[4])
end
return {0, v}
""")


# KEYS[1] events stream, KEYS[2] archive. ARGV[1] first entry id, ARGV[2] last
# ("+": the end), ARGV[3] page size, ARGV[4] the version read after. A page of the
# stream; when there is none and the game is archived past ARGV[4], its archive too.
READ_LUA: Final = Script("""
local page = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2], 'COUNT', ARGV[3])
if #page > 0 then return {page} end
local head = redis.call('GETRANGE', KEYS[2], 0, 63)
if head == '' then return {page} end
if tonumber(string.match(head, '^%d+ %S+ (%d+)')) <= tonumber(ARGV[4]) then return {page} end
return {page, redis.call('GET', KEYS[2])}
""")

# KEYS[1] events, KEYS[2] archive. The last entry id, or the archive's head, or false.
VERSION_LUA: Final = Script("""
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then return last[1][1] end
local head = redis.call('GETRANGE', KEYS[2], 0, 63)
if head == '' then return false end
return head
""")

# KEYS[1] events, KEYS[2] commands, KEYS[3] meta, KEYS[4] archive, KEYS[5..] more
# keys of the game to drop (seats, presence). ARGV[1] the version archived, ARGV[2]
# the archive, ARGV[3], ARGV[4] (optional) a channel and a message published once done.
# The swap, whole or not at all: 1 done, 0 archived already, -1 the stream is not at
# that version (nothing written).
ARCHIVE_LUA: Final = Script("""
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return -1 end
redis.call('SET', KEYS[4], ARGV[2])
redis.call('DEL', KEYS[1], KEYS[2], unpack(KEYS, 5))
redis.call('HDEL', KEYS[3], 'seed', 'seats')
if ARGV[3] then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return 1
""")


# KEYS[1] events stream, KEYS[2] meta hash, KEYS[3] archive. ARGV[1] number of events
# n, ARGV[2..2n+1] (timestamp ms, event) pairs, versions 1..n; then the meta hash's
# field, value pairs. Writes all of it only if the game has no stream, meta nor
# archive. Returns 1 or 0.
RESTORE_LUA: Final = Script("""
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) > 0 then return 0 end
local n = tonumber(ARGV[1])
for v = 1, n do
  redis.call('XADD', KEYS[1], string.format('%d-0', v), 'e', ARGV[2 * v + 1], 't', ARGV[2 * v])
end
if #ARGV > 2 * n + 1 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 2 * n + 2))
end
return 1
""")

# A cold load in one round trip: a game's whole log, meta and seats. The log comes
# back as one packed string ("<version> <at_ms> <size>\n<data>" per event) because
# parsing a reply of a thousand small RESP elements in pure Python (redis-py without
# hiredis) costs more than the fold. It reads the stream as ``APPEND_LUA`` writes it:
# entry id "<version>-0", fields "e" (the event) and "t" (ms).
# KEYS: events, meta, seats, archive. Returns {packed log, meta as a flat list, seats
# as one}, and the archive (server/store/archive_format.py) when there is no stream.
LOAD_LUA: Final = r"""
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
if #entries == 0 then
  local archive = redis.call('GET', KEYS[4])
  if archive then return {'', redis.call('HGETALL', KEYS[2]), {}, archive} end
end
local parts = {}
for i = 1, #entries do
  local fields = entries[i][2]
  local data, at = '', '0'
  for j = 1, #fields, 2 do
    if fields[j] == 'e' then data = fields[j + 1] elseif fields[j] == 't' then at = fields[j + 1] end
  end
  parts[i] = string.match(entries[i][1], '^(%d+)-') .. ' ' .. at .. ' ' .. #data .. '\n' .. data
end
return {table.concat(parts), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
"""


# KEYS[1] a finished game's meta. ARGV[1] a new id. Returns {rematch id, 1 if new}:
# the first caller names the rematch, every later one gets that name.
CLAIM_REMATCH_LUA: Final = Script("""
local have = redis.call('HGET', KEYS[1], 'rematch')
if have then return {have, 0} end
redis.call('HSET', KEYS[1], 'rematch', ARGV[1])
return {ARGV[1], 1}
""")

# KEYS[1] a hash. ARGV: field, value, field, value, ... Each field set unless present.
SET_ABSENT_LUA: Final = Script("""
for i = 1, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
""")
