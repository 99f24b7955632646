import { createHash } from 'node:crypto';
import { RECENT_BATCHES } from './partition-keys.js';

/** A Lua script and its SHA-1 (EVALSHA first, EVAL when the node does not have it cached). */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Applies one batch to n partitions atomically (one partition in a cluster: the keys of a script must share a
 * slot; a single node takes several).
 *
 * KEYS: per partition, its order, values, version and recent keys (4n keys).
 * ARGV: batch id ('' = none), n, then per partition its expected version ('' = any) and its operation count,
 * then the operations in partition order, three arguments each: 'p' key value | 'd' key ''.
 *
 * Returns {1, version1, emptyBefore1, emptyAfter1, …} when applied; {2} when the batch id is among the first
 * partition's recent batches (a retry of a batch already applied: nothing of the batch is done again; the version
 * hash's `w` field is set, so a WAIT that follows covers the batch); {0, index, version} when a
 * partition's version is not the expected one (nothing is done).
 *
 * A partition's version starts at the server's clock in microseconds when the partition is created and grows by
 * one per batch, so it never repeats after the partition is emptied and recreated (it would take a batch per
 * microsecond to catch up with the clock). Versions are decimal strings (Lua numbers are doubles: exact up to
 * 2^53, ~285 years of microseconds).
 */
export const APPLY_BATCH = script(`
local bid = ARGV[1]
local n = tonumber(ARGV[2])
if bid ~= '' and redis.call('LPOS', KEYS[4], bid) then
  -- A retry: touch the version hash so that a WAIT after this script covers the batch's own earlier write too
  -- (replication is in order: a replica that has this write has everything before it).
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HSET', KEYS[3], 'w', bid) end
  return {2}
end
local counts = {}
for p = 1, n do
  local expect = ARGV[1 + 2 * p]
  counts[p] = tonumber(ARGV[2 + 2 * p])
  if expect ~= '' then
    local cur = redis.call('HGET', KEYS[4 * p - 1], 'n') or '0'
    if cur ~= expect then return {0, p, cur} end
  end
end
local out = {1}
local i = 3 + 2 * n
for p = 1, n do
  local z, h, v, r = KEYS[4 * p - 3], KEYS[4 * p - 2], KEYS[4 * p - 1], KEYS[4 * p]
  local emptyBefore = redis.call('EXISTS', z) == 0
  for _ = 1, counts[p] do
    local k = ARGV[i + 1]
    if ARGV[i] == 'p' then
      redis.call('ZADD', z, 0, k)
      redis.call('HSET', h, k, ARGV[i + 2])
    else
      redis.call('ZREM', z, k)
      redis.call('HDEL', h, k)
    end
    i = i + 3
  end
  local cur = redis.call('HGET', v, 'n')
  local nextv
  if cur then
    nextv = string.format('%.0f', tonumber(cur) + 1)
  else
    local t = redis.call('TIME')
    nextv = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  end
  local emptyAfter = redis.call('EXISTS', z) == 0
  if emptyAfter then
    redis.call('DEL', v, r)
  else
    redis.call('HSET', v, 'n', nextv)
    if bid ~= '' then
      redis.call('LPUSH', r, bid)
      redis.call('LTRIM', r, 0, ${RECENT_BATCHES - 1})
    end
  end
  out[#out + 1] = nextv
  out[#out + 1] = emptyBefore and 1 or 0
  out[#out + 1] = emptyAfter and 1 or 0
end
return out
`);

/**
 * One page of a partition's range, keys and values read at one instant.
 * KEYS: order, values. ARGV: min, max (ZRANGEBYLEX syntax), count, '1' for reverse, '1' to include values.
 * Returns the keys, or keys and values interleaved (a key whose value is missing cannot occur: both change in the
 * same script).
 */
export const READ_RANGE = script(`
local ks
if ARGV[4] == '1' then
  ks = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
else
  ks = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
end
if ARGV[5] ~= '1' or #ks == 0 then return ks end
local vs = redis.call('HMGET', KEYS[2], unpack(ks))
local out = {}
for j = 1, #ks do
  out[2 * j - 1] = ks[j]
  out[2 * j] = vs[j]
end
return out
`);

/**
 * Freezes one partition for a consistent read: copies its order, values and version keys to a snapshot's keys (the
 * same hash tag, so the same slot) at one instant, each expiring after ARGV[1] ms, and sets the snapshot's marker
 * key (which says the copy exists, even of an empty partition).
 * KEYS: order, values, version, then their copies, then the marker. ARGV: time to live (ms).
 * Returns the partition's version ('0' when it holds nothing).
 */
export const FREEZE_PARTITION = script(`
redis.call('SET', KEYS[7], '1', 'PX', ARGV[1])
for i = 1, 3 do
  if redis.call('COPY', KEYS[i], KEYS[i + 3], 'REPLACE') == 1 then redis.call('PEXPIRE', KEYS[i + 3], ARGV[1]) end
end
return redis.call('HGET', KEYS[3], 'n') or '0'
`);

/**
 * Extends a frozen partition's life. KEYS: the copies of order, values, version, then the marker. ARGV: time to
 * live (ms). Returns 0 when the marker is gone (the copy expired: its reads would see nothing), else 1.
 */
export const REFRESH_FROZEN = script(`
if redis.call('PEXPIRE', KEYS[4], ARGV[1]) == 0 then return 0 end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1
`);

/**
 * Point reads of one partition together with its version, at one instant (a writer's view of a user: its state and
 * the version that state is valid at, in one round trip).
 * KEYS: values, version. ARGV: the keys to read. Returns {version ('0' when the partition holds nothing), v1, …}
 * with false (nil) for a missing key.
 */
export const READ_AT_VERSION = script(`
local out = {redis.call('HGET', KEYS[2], 'n') or '0'}
if #ARGV > 0 then
  local vs = redis.call('HMGET', KEYS[1], unpack(ARGV))
  for j = 1, #ARGV do out[j + 1] = vs[j] end
end
return out
`);
