/**
 * How much a trace's recall sets recur: the figures that say whether any co-access layout can pay on it before a
 * policy is replayed. Per user, over the requests with a non-empty recall set, in trace order; the trace's figure is
 * the mean over users.
 */
import type { Trace } from './trace.js';

export interface TraceRecurrence {
  /** Mean share of a request's chunks that the user's previous request also recalled. */
  readonly overlapWithPrevious: number | null;
  /** Share of requests whose exact chunk set an earlier request of the user recalled. */
  readonly exactSetRecurs: number | null;
  /** Share of a request's chunk pairs that an earlier request of the user already recalled together. */
  readonly pairsSeenBefore: number | null;
  /** Mean distinct chunks a user's requests recall, over the user's chunks written. */
  readonly recalledShareOfChunks: number | null;
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

export function traceRecurrence(trace: Trace): TraceRecurrence {
  const sets = new Map<string, string[][]>();
  const written = new Map<string, number>();
  for (const e of trace.events) {
    if (e.kind === 'write') {
      written.set(e.user, (written.get(e.user) ?? 0) + e.ops.filter((o) => o.op === 'put').length);
    } else if (e.recall.length > 0) {
      const list = sets.get(e.user) ?? [];
      list.push(e.recall.map((c) => `${c.sessionId}\u0000${c.chunkId}`));
      sets.set(e.user, list);
    }
  }
  const overlap: number[] = [];
  const exact: number[] = [];
  const pairs: number[] = [];
  const share: number[] = [];
  for (const [user, reqs] of sets) {
    const seenSets = new Set<string>();
    const seenPairs = new Set<string>();
    const recalled = new Set<string>();
    let o = 0;
    let x = 0;
    let pSeen = 0;
    let pAll = 0;
    reqs.forEach((s, i) => {
      if (i > 0) {
        const prev = new Set(reqs[i - 1]);
        o += s.filter((c) => prev.has(c)).length / s.length;
      }
      const k = [...s].sort().join('\u0001');
      if (seenSets.has(k)) x++;
      seenSets.add(k);
      for (let a = 0; a < s.length; a++) {
        for (let b = a + 1; b < s.length; b++) {
          const p = s[a]! < s[b]! ? `${s[a]}\u0001${s[b]}` : `${s[b]}\u0001${s[a]}`;
          pAll++;
          if (seenPairs.has(p)) pSeen++;
          seenPairs.add(p);
        }
      }
      for (const c of s) recalled.add(c);
    });
    if (reqs.length > 1) overlap.push(o / (reqs.length - 1));
    exact.push(x / reqs.length);
    if (pAll > 0) pairs.push(pSeen / pAll);
    const n = written.get(user) ?? 0;
    if (n > 0) share.push(recalled.size / n);
  }
  return { overlapWithPrevious: mean(overlap), exactSetRecurs: mean(exact), pairsSeenBefore: mean(pairs), recalledShareOfChunks: mean(share) };
}
