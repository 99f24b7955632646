import { afterPrefix, dirKey, expiryTime, parseExpiryKey } from '../kv/keys.js';
import { withoutAttributes } from '../write/mutations.js';
import type { StoreCore } from '../store-core.js';
import { dropChunkHistory, historyAgeDue, sweepHistoryAge } from '../write/history.js';
import type { SweepReport } from '../../api/reports.js';

/**
 * Deletes up to `max` chunks whose expiry is at or before `now`, in one transaction: each is invalidated and left
 * as a tombstone without content, exactly as a delete. Reads already treat an expired chunk as absent; the sweep
 * reclaims its space (its block's φ rises, and GC does the rest). Requires: nothing (takes the write lock).
 *
 * Cost: one range read of the expiry index up to `now` (only expired entries are visited) and one directory read
 * per expired chunk.
 */
export async function sweepExpired(core: StoreCore, max: number): Promise<SweepReport> {
  // Nothing due (the common case, and every database without expiring chunks): no transaction, no write.
  let due = false;
  for await (const _ of core.cf.expiry.keys({ lt: afterPrefix(expiryTime(core.options.now())), limit: 1 })) due = true;
  if (!due) return { expired: 0, stale: 0, more: false };
  return core.transact(async (txn) => {
    const now = txn.now;
    const upTo = afterPrefix(expiryTime(now));
    let expired = 0;
    let stale = 0;
    let seen = 0;
    let more = false;
    for await (const k of core.cf.expiry.keys({ lt: upTo })) {
      if (seen === max) {
        more = true;
        break;
      }
      const p = parseExpiryKey(k);
      if (p !== null && p.expiresAt > now) continue; // same millisecond bucket, not yet due
      seen++;
      txn.raw({ type: 'del', sublevel: core.cf.expiry, key: k });
      if (p === null) {
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
  });
}


/**
 * Drops kept versions older than the history age limit (`history.maxAgeMs`), at most `max`, in one transaction;
 * nothing (no transaction) when the limit is off or nothing is due. Runs before every GC pass.
 * Cost: one range read of the history age index up to now − maxAge, one point read per dropped version.
 */
export async function sweepHistory(core: StoreCore, max: number): Promise<{ dropped: number; more: boolean }> {
  const maxAge = core.options.historyMaxAgeMs;
  if (maxAge === 0) return { dropped: 0, more: false };
  if (!(await historyAgeDue(core.cf.history, core.options.now() - maxAge))) return { dropped: 0, more: false };
  return core.transact((txn) => sweepHistoryAge(txn, txn.now - maxAge, max));
}
