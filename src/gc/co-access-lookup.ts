import type { StoreCore } from '../store/store-core.js';
import { accessKey, prefixRange, SEP } from '../store/keys.js';
import { decodeCoAccess } from '../record/engine-records.js';
import type { CoAccessStats } from './affinity-model.js';

/**
 * Co-access statistics among `ids` (`session\0chunk` refs of one user) for GC's affinity grouping, in memory and
 * time proportional to the ids plus the pairs actually recorded among them.
 *
 * Why not `StoreCore.coAccess(userId, ids)`: it looks up every one of the n(n−1)/2 possible pair keys, which for
 * the ~1000 live chunks of one GC batch is half a million keys held at once (tens of MB) although almost none
 * exist. Here each id's pair range (`p\0user\0id\0…`, where id is the smaller ref of the pair) is scanned instead.
 * @internal
 */
export async function coAccessAmong(core: StoreCore, userId: string, ids: readonly string[]): Promise<CoAccessStats> {
  const accesses = new Map<string, number>();
  const pairs = new Map<string, number>();
  if (ids.length === 0) return { accesses, pairs };
  const wanted = new Set(ids);
  const sorted = [...wanted].sort();
  const values = await core.cf.coaccess.getMany(sorted.map((id) => accessKey(userId, id)));
  sorted.forEach((id, i) => {
    const v = values[i];
    if (v !== undefined) accesses.set(id, decodeCoAccess(v, 'co-access').count);
  });
  const base = 'p' + SEP + userId + SEP;
  for (const a of sorted) {
    // Only ids that were accessed at all can be in a pair.
    if (!accesses.has(a)) continue;
    for await (const [k, v] of core.cf.coaccess.iterator(prefixRange('p', userId, a))) {
      const b = k.slice(base.length + a.length + 1);
      if (wanted.has(b)) pairs.set(a + SEP + b, decodeCoAccess(v, 'co-access').count);
    }
  }
  return { accesses, pairs };
}
