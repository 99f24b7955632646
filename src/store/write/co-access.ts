import { decodeCoAccess, encodeCoAccess } from '../../record/engine-records.js';
import type { ChunkRef } from '../../api/chunk-input.js';
import type { CoAccessBuffer } from './co-access-buffer.js';
import type { ColumnFamilies } from '../kv/column-families.js';
import { CF, SEP, accessKey, afterPrefix, dirKey, orderedPair, pairKey, parseRefString, partitionOf, prefixRange, refString } from '../kv/keys.js';
import type { TxnContext } from '../txn/txn-state.js';
import { writeUserBatch } from './fenced-write.js';
import { AkashicError } from '../../errors.js';

/** The access and pair keys of one observation: each chunk's access counter, and each pair's. */
export function coAccessKeys(userId: string, refs: readonly ChunkRef[]): string[] {
  const ids = [...new Set(refs.map((r) => refString(r.sessionId, r.chunkId)))].sort();
  const keys: string[] = ids.map((id) => accessKey(userId, id));
  for (let a = 0; a < ids.length; a++) for (let b = a + 1; b < ids.length; b++) keys.push(pairKey(userId, ids[a]!, ids[b]!));
  return keys;
}

/**
 * Persists the buffered co-access increments (`CoAccessBuffer.drain`), each added to the stored count: one batch
 * per user (each in its user's partition, fenced on a partitioned backend, so an increment is read and rewritten
 * against the latest count even with other processes counting). No accounting (co-access changes no accounted
 * figure). A user whose batch is refused with AKASHIC_CONFLICT (other writers kept changing the user until the
 * fenced write's retries ran out) does not stop the others: its increments are returned, by user, for the caller to
 * buffer again; any other error is thrown. A counter naming a chunk the directory no longer has (another process
 * purged the user or the session after this one counted it) is dropped, not written: the check reads the directory
 * inside the same fenced batch, so a purge committed before the batch is always seen, and one committed after it
 * finds the counter and erases it. REQUIRES: the write lock.
 */
export async function persistCoAccess(ctx: TxnContext, pending: ReadonlyMap<string, { count: number; lastAt: number }>): Promise<Map<string, Map<string, { count: number; lastAt: number }>>> {
  const byUser = new Map<string, string[]>();
  for (const key of [...pending.keys()].sort()) {
    const userId = partitionOf(CF.coaccess, key);
    const list = byUser.get(userId);
    if (list === undefined) byUser.set(userId, [key]);
    else list.push(key);
  }
  const cf = ctx.cf;
  const unwritten = new Map<string, Map<string, { count: number; lastAt: number }>>();
  for (const [userId, keys] of byUser) {
    try {
      await writeUserBatch(ctx, userId, async () => {
        const present = await chunksPresent(cf, userId, keys);
        const kept = keys.filter((key) => refsOfKey(userId, key).every((ref) => present.has(ref)));
        const values = await cf.coaccess.getMany(kept);
        return kept.map((key, i) => {
          const v = values[i];
          const add = pending.get(key)!;
          const count = (v === undefined ? 0 : decodeCoAccess(v, `co-access ${JSON.stringify(key)}`).count) + add.count;
          return { type: 'put' as const, sublevel: cf.coaccess, key, value: encodeCoAccess({ count, lastAt: add.lastAt }) };
        });
      });
    } catch (err) {
      if (!(err instanceof AkashicError && err.code === 'AKASHIC_CONFLICT')) throw err;
      unwritten.set(userId, new Map(keys.map((k) => [k, pending.get(k)!])));
    }
  }
  return unwritten;
}

/** The refs (`session␀chunk`) a co-access key of the user names: one for an access key, two for a pair key. */
function refsOfKey(userId: string, key: string): string[] {
  const parts = key.slice(2 + userId.length + 1).split(SEP);
  const refs: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) refs.push(refString(parts[i]!, parts[i + 1]!));
  return refs;
}

/** Which of the chunks the keys name have a directory entry (live or a tombstone): purged ones have none. */
async function chunksPresent(cf: ColumnFamilies, userId: string, keys: readonly string[]): Promise<Set<string>> {
  const refs = [...new Set(keys.flatMap((key) => refsOfKey(userId, key)))];
  const entries = await cf.dir.getMany(refs.map((ref) => {
    const { sessionId, chunkId } = parseRefString(ref);
    return dirKey(userId, sessionId, chunkId);
  }));
  return new Set(refs.filter((_, i) => entries[i] !== undefined));
}

/**
 * Co-access statistics among the given chunk refs (`session\0chunk`), or all of a user's when omitted; pairs keyed
 * by `orderedPair`. The one co-access reader (public `coAccess()`, GC's grouping). With ids, work and memory are
 * proportional to the ids plus the pairs actually recorded among them: each accessed id's pair range
 * (`p\0user\0id\0…`, id the smaller ref of the pair) is scanned, rather than looking up all n(n−1)/2 possible
 * pair keys (half a million for the ~1000 live chunks of one GC batch, almost none of which exist).
 */
export async function readCoAccess(
  cf: ColumnFamilies,
  buffered: CoAccessBuffer,
  userId: string,
  ids?: readonly string[],
): Promise<{ accesses: Map<string, number>; pairs: Map<string, number> }> {
  const accesses = new Map<string, number>();
  const pairs = new Map<string, number>();
  if (ids !== undefined) {
    if (ids.length === 0) return { accesses, pairs };
    const wanted = new Set(ids);
    const sorted = [...wanted].sort();
    const values = await cf.coaccess.getMany(sorted.map((id) => accessKey(userId, id)));
    sorted.forEach((id, i) => {
      const v = values[i];
      const n = (v === undefined ? 0 : decodeCoAccess(v, 'co-access').count) + buffered.count(userId, accessKey(userId, id));
      if (n > 0) accesses.set(id, n);
    });
    const base = 'p' + SEP + userId + SEP;
    for (const a of sorted) {
      if (!accesses.has(a)) continue; // only ids that were accessed at all can be in a pair
      for await (const [k, v] of cf.coaccess.iterator(prefixRange('p', userId, a))) {
        const b = k.slice(base.length + a.length + 1);
        if (wanted.has(b)) pairs.set(orderedPair(a, b), decodeCoAccess(v, 'co-access').count);
      }
    }
    // Counts not yet persisted: a pair key's ref parts are [sessionA, chunkA, sessionB, chunkB].
    for (const [k, n] of buffered.entries(userId)) {
      if (!k.startsWith(base)) continue;
      const parts = k.slice(base.length).split(SEP);
      const a = (parts[0] ?? '') + SEP + (parts[1] ?? '');
      const b = (parts[2] ?? '') + SEP + (parts[3] ?? '');
      if (wanted.has(a) && wanted.has(b)) pairs.set(orderedPair(a, b), (pairs.get(orderedPair(a, b)) ?? 0) + n);
    }
    return { accesses, pairs };
  }
  const aPrefix = 'a' + SEP + userId + SEP;
  for await (const [k, v] of cf.coaccess.iterator({ gte: aPrefix, lt: afterPrefix('a', userId) })) {
    accesses.set(k.slice(aPrefix.length), decodeCoAccess(v, 'co-access').count);
  }
  const pPrefix = 'p' + SEP + userId + SEP;
  for await (const [k, v] of cf.coaccess.iterator({ gte: pPrefix, lt: afterPrefix('p', userId) })) {
    pairs.set(k.slice(pPrefix.length), decodeCoAccess(v, 'co-access').count);
  }
  for (const [k, n] of buffered.entries(userId)) {
    if (k.startsWith(aPrefix)) accesses.set(k.slice(aPrefix.length), (accesses.get(k.slice(aPrefix.length)) ?? 0) + n);
    else if (k.startsWith(pPrefix)) pairs.set(k.slice(pPrefix.length), (pairs.get(k.slice(pPrefix.length)) ?? 0) + n);
  }
  return { accesses, pairs };
}
