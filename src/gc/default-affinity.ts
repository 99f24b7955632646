import type { AffinityChunk, AffinityModel, CoAccessStats } from './affinity-model.js';

/**
 * The deterministic default of LLMGROUP: two chunks are affine when they were recalled together often
 * (pair count over the smaller access count) or share keywords (Jaccard). Groups are the connected components
 * of the pairs at or above `threshold`; no model call, no randomness.
 */
export class DefaultAffinityModel implements AffinityModel {
  readonly threshold: number;

  constructor(threshold = 0.5) {
    this.threshold = threshold;
  }

  async group(chunks: readonly AffinityChunk[], coAccess: CoAccessStats): Promise<string[][]> {
    const parent = new Map<string, string>(chunks.map((c) => [c.id, c.id]));
    const find = (x: string): string => {
      let r = x;
      while (parent.get(r) !== r) r = parent.get(r)!;
      parent.set(x, r);
      return r;
    };
    const sets = chunks.map((c) => new Set(c.keywords));
    for (let i = 0; i < chunks.length; i++) {
      for (let j = i + 1; j < chunks.length; j++) {
        const a = chunks[i]!;
        const b = chunks[j]!;
        if (affinity(a, b, sets[i]!, sets[j]!, coAccess) >= this.threshold) parent.set(find(a.id), find(b.id));
      }
    }
    const groups = new Map<string, string[]>();
    for (const c of [...chunks].sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1))) {
      const r = find(c.id);
      const g = groups.get(r);
      if (g === undefined) groups.set(r, [c.id]);
      else g.push(c.id);
    }
    return [...groups.values()];
  }
}

/** max(co-access association, keyword Jaccard), in [0, 1]. */
export function affinity(a: AffinityChunk, b: AffinityChunk, ka: ReadonlySet<string>, kb: ReadonlySet<string>, co: CoAccessStats): number {
  const key = a.id < b.id ? `${a.id}\u0000${b.id}` : `${b.id}\u0000${a.id}`;
  const pair = co.pairs.get(key) ?? 0;
  const minAccess = Math.min(co.accesses.get(a.id) ?? 0, co.accesses.get(b.id) ?? 0);
  const assoc = minAccess === 0 ? 0 : Math.min(1, pair / minAccess);
  let inter = 0;
  for (const k of ka) if (kb.has(k)) inter++;
  const union = ka.size + kb.size - inter;
  const jaccard = union === 0 ? 0 : inter / union;
  return Math.max(assoc, jaccard);
}
