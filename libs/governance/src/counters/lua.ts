/**
 * The two Lua scripts of the Redis counter store. `MemoryCounterStore` implements the same steps
 * in TypeScript; the contract suite (`counter-store.contract.ts`) runs the same cases on both.
 * Money is integer micro-dollars; every reply value is an integer or a string. Values go to
 * `redis.call` as the strings they arrived in: a Lua number given to it is formatted back into a
 * string, which costs more than the call itself.
 */

/**
 * Shared by both scripts, which run each item of a batch under `pcall`: an item that fails (a Redis
 * error) is answered with that error, and the other items keep their replies.
 */
const FAILED_LUA = `
local function failed(err)
  if type(err) == 'table' and err.err then return err end
  return redis.error_reply(tostring(err))
end
`;

/**
 * ADMIT: stages 0, 1, 2, 2.5 and 3 in order, stopping at the first refusal, for each request of a
 * batch in turn (the requests that reached admission in the same turn of the gateway's event loop
 * go out as one call: one command and one socket write instead of one each). A request sees the
 * counters as the ones before it in the batch left them, as if each had been its own call.
 * ARGV: 1 the number of admits, then three arguments per admit: its numbers (A below, joined by
 *       commas), its org id, its per-key field (three arguments instead of some thirty: each
 *       argument costs the client a piece of the command to build).
 * KEYS per admit, one admit's after the other's: 1 quota, 2 rpm, 3 rpm-per-key hash, 4 busiest-orgs
 *       zset, 5 day, 6 month, 7 daily budgets hash, 8.. budget nodes, then the session (when A[12]
 *       is 1).
 * A:    1 level (0 peek, 1 quota, 2 rate, 3 reserve), 2 org id, 3 quota (-1 unlimited), 4 quota
 *       ttl, 5 rpm limit, 6 rpm ttl, 7 per-key field, 8 estimate, 9 auto-stop limit (-1 none),
 *       10 budgets ttl, 11 node count, 12 has session, then (limit, ttl, seed) for day, month,
 *       each node and the session.
 * Reply: one entry per admit: code, rpm count, quota used, day spent, day reserved, month spent,
 *        month reserved, refusing index, refusing accumulator's spent + reserved; or the Redis error
 *        of an admit that failed (the writes it made before failing stay, as they would alone).
 * Codes: 0 ok, 1 quota, 2 rpm, 3 daily budget, 4 auto-stop, 5 monthly budget, 6 node, 7 session.
 */
export const ADMIT_LUA = `
local function read(key)
  local v = redis.call('HMGET', key, 's', 'r')
  return tonumber(v[1]) or 0, tonumber(v[2]) or 0
end
local function seeded(key, seed, ttl)
  if tonumber(seed) > 0 and redis.call('HSETNX', key, 's', seed) == 1 then redis.call('EXPIRE', key, ttl) end
  return read(key)
end
local function reserve(key, est, ttl)
  redis.call('HINCRBY', key, 'r', est)
  redis.call('EXPIRE', key, ttl)
end

local function admit(K, A)
  local level = tonumber(A[1])
  local org = A[2]
  local nodeCount = tonumber(A[11])
  local hasSession = A[12] == '1'
  local function acc(i)
    local base = 13 + i * 3
    return tonumber(A[base]), A[base + 1], A[base + 2]
  end

  local rpm = tonumber(redis.call('GET', K[2]) or '0')
  local dayLimit, dayTtl, daySeed = acc(0)
  local monthLimit, monthTtl, monthSeed = acc(1)
  local ds, dr, ms, mr
  if level >= 3 then
    ds, dr = seeded(K[5], daySeed, dayTtl)
    ms, mr = seeded(K[6], monthSeed, monthTtl)
  else
    ds, dr = read(K[5])
    ms, mr = read(K[6])
  end
  local quotaLimit = tonumber(A[3])
  local quotaUsed = 0
  local function reply(code, index, used)
    return {code, rpm, quotaUsed, ds, dr, ms, mr, index or 0, used or 0}
  end

  if level >= 1 and quotaLimit >= 0 then
    quotaUsed = tonumber(redis.call('GET', K[1]) or '0')
    if quotaUsed >= quotaLimit then return reply(1) end
  end

  if level >= 2 then
    if rpm >= tonumber(A[5]) then return reply(2) end
    rpm = redis.call('INCR', K[2])
    redis.call('EXPIRE', K[2], A[6])
    redis.call('HINCRBY', K[3], A[7], 1)
    redis.call('EXPIRE', K[3], A[6])
    redis.call('ZINCRBY', K[4], 1, org)
    redis.call('EXPIRE', K[4], A[6])
    if quotaLimit >= 0 then
      quotaUsed = redis.call('INCR', K[1])
      redis.call('EXPIRE', K[1], A[4])
    end
  end

  if level >= 3 then
    local est = tonumber(A[8])
    if ds + dr + est > dayLimit then return reply(3) end
    local autoStop = tonumber(A[9])
    if autoStop >= 0 and ds + dr >= autoStop then return reply(4) end
    if ms + mr + est > monthLimit then return reply(5) end
    for i = 1, nodeCount do
      local limit, ttl, seed = acc(1 + i)
      local s, r = seeded(K[7 + i], seed, ttl)
      if s + r + est > limit then return reply(6, i - 1, s + r) end
    end
    local sessionKey = K[8 + nodeCount]
    local sessionLimit, sessionTtl, sessionSeed
    if hasSession then
      sessionLimit, sessionTtl, sessionSeed = acc(2 + nodeCount)
      local s, r = seeded(sessionKey, sessionSeed, sessionTtl)
      if s + r + est > sessionLimit then return reply(7, 0, s + r) end
    end
    reserve(K[5], A[8], dayTtl)
    reserve(K[6], A[8], monthTtl)
    for i = 1, nodeCount do
      local _, ttl = acc(1 + i)
      reserve(K[7 + i], A[8], ttl)
    end
    if hasSession then reserve(sessionKey, A[8], sessionTtl) end
    redis.call('HSET', K[7], org, A[13])
    redis.call('EXPIRE', K[7], A[10])
    dr = dr + est
    mr = mr + est
  end
  return reply(0)
end

${FAILED_LUA}
local replies = {}
local k = 0
for i = 1, tonumber(ARGV[1]) do
  local n = {}
  for v in string.gmatch(ARGV[i * 3 - 1], '[^,]+') do n[#n + 1] = v end
  local A = {n[1], ARGV[i * 3], n[2], n[3], n[4], n[5], ARGV[i * 3 + 1]}
  for j = 6, #n do A[#A + 1] = n[j] end
  local count = 7 + tonumber(A[11]) + (A[12] == '1' and 1 or 0)
  local K = {}
  for j = 1, count do K[j] = KEYS[k + j] end
  k = k + count
  local ok, reply = pcall(admit, K, A)
  replies[i] = ok and reply or failed(reply)
end
return replies
`;

/**
 * SETTLE: moves reservations to spend, each once (a marker key makes a settle idempotent), and
 * reports the warning thresholds that each accumulator crossed for the first time this period.
 * One call settles a batch: ARGV[1] is the number of settles, then two arguments per settle.
 * KEYS per settle: marker, today's spend of all orgs, then (accumulator, warned-thresholds hash) per
 *       target.
 * ARGV per settle: 1 its numbers joined by commas: marker ttl, reserved, actual, today ttl, target
 *       count, then (ttl, limit) per target; 2 the warning thresholds of each target, comma-
 *       separated, targets separated by '|' (a target without thresholds is an empty field).
 * Reply: one entry per settle: {0} when it was already settled; else {1, spent per target, fired
 *        thresholds (csv) per target}; or the Redis error of a settle that failed.
 */
export const SETTLE_LUA = `
local function settle(k, numbers, thresholds)
  local n = {}
  for v in string.gmatch(numbers, '[^,]+') do n[#n + 1] = v end
  local count = tonumber(n[5])
  if not redis.call('SET', KEYS[k], '1', 'NX', 'EX', n[1]) then return {0} end
  local reserved = tonumber(n[2])
  local actual = n[3]
  if tonumber(actual) > 0 then
    redis.call('INCRBY', KEYS[k + 1], actual)
    redis.call('EXPIRE', KEYS[k + 1], n[4])
  end
  local csvs
  if thresholds ~= '' then
    csvs = {}
    for csv in string.gmatch(thresholds .. '|', '([^|]*)|') do csvs[#csvs + 1] = csv end
  end
  local spent = {}
  local fired = {}
  for i = 1, count do
    local key = KEYS[k + i * 2]
    local ttl = n[4 + i * 2]
    if reserved > 0 then
      local r = redis.call('HINCRBY', key, 'r', '-' .. n[2])
      if r < 0 then redis.call('HSET', key, 'r', '0') end
    end
    local s = redis.call('HINCRBY', key, 's', actual)
    redis.call('EXPIRE', key, ttl)
    local now = {}
    local limit = tonumber(n[5 + i * 2])
    local csv = csvs and csvs[i] or ''
    if limit > 0 and csv ~= '' then
      local warn = KEYS[k + 1 + i * 2]
      for t in string.gmatch(csv, '[^,]+') do
        if s * 100 >= tonumber(t) * limit and redis.call('HSETNX', warn, t, '1') == 1 then now[#now + 1] = t end
      end
      if #now > 0 then redis.call('EXPIRE', warn, ttl) end
    end
    spent[i] = s
    fired[i] = table.concat(now, ',')
  end
  return {1, spent, fired}
end

${FAILED_LUA}
local replies = {}
local k = 1
for i = 1, tonumber(ARGV[1]) do
  local count = tonumber(string.match(ARGV[i * 2], '^[^,]*,[^,]*,[^,]*,[^,]*,([^,]*)'))
  local ok, reply = pcall(settle, k, ARGV[i * 2], ARGV[i * 2 + 1])
  replies[i] = ok and reply or failed(reply)
  k = k + 2 + count * 2
end
return replies
`;
