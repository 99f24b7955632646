import { afterPrefix, dirKey, expiryTime, parseExpiryKey, prefixRange } from '../kv/keys.js';
import { dueUsers } from '../read/due-users.js';
import type { Txn } from '../txn/txn.js';
import { withoutAttributes } from '../write/mutations.js';
import type { StoreCore } from '../store-core.js';
import { dropChunkHistory, historyAgeDueUsers, sweepHistoryAge } from '../write/history.js';
import type { SweepReport } from '../../api/reports.js';

/**
 * Deletes up to `max` chunks whose expiry is at or before `now`, one transaction per user (each commit stays in its
 * user's partition): each is invalidated and left as a tombstone without content, exactly as a delete. Reads
 * already treat an expired chunk as absent; the sweep reclaims its space (its block's φ rises, and GC does the
 * rest). Requires: nothing (takes the write lock per user).
 *
 * Cost: two key reads per user with expiring chunks (`dueUsers`), then per due user one range read of its expiry
 * index up to `now` (only expired entries are visited) and one directory read per expired chunk.
 */
export async function sweepExpired(core: StoreCore, max: number): Promise<SweepReport> {
  let expired = 0;
  let stale = 0;
  let more = false;
  // Nothing due (the common case, and every database without expiring chunks): no transaction, no write.
  for await (const userId of dueUsers(core.cf.expiry, null, expiryTime(core.options.now()))) {
    if (expired + stale === max) {
      more = true;
      break;
    }
    const r = await core.transact(userId, (txn) => sweepUser(core, txn, userId, max - expired - stale));
    expired += r.expired;
    stale += r.stale;
    more ||= r.more;
  }
  return { expired, stale, more };
}

async function sweepUser(core: StoreCore, txn: Txn, userId: string, max: number): Promise<SweepReport> {
  const now = txn.now;
  let expired = 0;
  let stale = 0;
  let seen = 0;
  let more = false;
  for await (const k of core.cf.expiry.keys({ gte: prefixRange(userId).gte, lt: afterPrefix(userId, expiryTime(now)) })) {
    if (seen === max) {
      more = true;
      break;
    }
    const p = parseExpiryKey(k);
    if (p !== null && p.expiresAt > now) continue; // same millisecond bucket, not yet due
    seen++;
    txn.raw({ type: 'del', sublevel: core.cf.expiry, key: k });
    if (p === null || p.userId !== userId) {
      stale++;
      continue;
    }
    const key = dirKey(p.userId, p.sessionId, p.chunkId);
    const e = await txn.dirEntry(key);
    if (e === null || e.state !== 'live' || e.expiresAt === undefined || e.expiresAt > now) {
      stale++;
      continue;
    }
    await txn.invalidate(e.location!, e.recordBytes);
    txn.putDir(key, { ...withoutAttributes(e), state: 'deleted', location: null, keywords: [], supersededBy: null, deletedAt: now });
    // An expired chunk goes whole: its kept versions too.
    await dropChunkHistory(txn, p);
    expired++;
  }
  return { expired, stale, more };
}

/**
 * Drops kept versions older than the history age limit (`history.maxAgeMs`), at most `max`, one transaction per
 * user with versions due; nothing (no transaction) when the limit is off or nothing is due. Runs before every GC
 * pass. Cost: two key reads per user with history (`dueUsers`), then per due user one range read of its age index
 * up to now − maxAge and one point read per dropped version.
 */
export async function sweepHistory(core: StoreCore, max: number): Promise<{ dropped: number; more: boolean }> {
  const maxAge = core.options.historyMaxAgeMs;
  if (maxAge === 0) return { dropped: 0, more: false };
  let dropped = 0;
  let more = false;
  for await (const userId of historyAgeDueUsers(core.cf.history, core.options.now() - maxAge)) {
    if (dropped === max) return { dropped, more: true };
    const r = await core.transact(userId, (txn) => sweepHistoryAge(txn, userId, txn.now - maxAge, max - dropped));
    dropped += r.dropped;
    more ||= r.more;
  }
  return { dropped, more };
}
