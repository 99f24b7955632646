/**
 * How much could placement gain on a trace at all? An offline estimate that knows every request in advance: per
 * user, chunks are clustered greedily by how often the trace's requests recall them together (heaviest pairs first,
 * clusters capped at the block capacity), clusters are packed in time order into blocks, and the trace's recall
 * sets are counted against that layout. No online policy sees the future, so a policy that does much worse than
 * append order here has nothing to win on this trace; one that comes near this figure has won what there is.
 * It is a greedy heuristic, not an optimum: a lower figure may exist.
 */
import type { Trace, TraceRequest } from './trace.js';

export interface OfflineLayoutBound {
  /** Mean distinct blocks per request with chunks in write order (append-only without deletes). */
  readonly appendOrder: number | null;
  /** Mean distinct blocks per request under the offline co-access clustering. */
  readonly coAccessClustering: number | null;
}

export function offlineLayoutBound(trace: Trace, capacity: number): OfflineLayoutBound {
  const order = new Map<string, number>();
  const usersChunks = new Map<string, string[]>();
  let n = 0;
  for (const e of trace.events) {
    if (e.kind !== 'write') continue;
    for (const o of e.ops) {
      if (o.op !== 'put') continue;
      const id = `${o.sessionId}\u0000${o.chunkId}`;
      order.set(`${e.user}\u0001${id}`, n++);
      const list = usersChunks.get(e.user);
      if (list === undefined) usersChunks.set(e.user, [id]);
      else list.push(id);
    }
  }
  const sets = new Map<string, string[][]>();
  for (const e of trace.events) {
    if (e.kind !== 'request' || e.recall.length === 0) continue;
    const list = sets.get(e.user) ?? [];
    list.push((e as TraceRequest).recall.map((c) => `${c.sessionId}\u0000${c.chunkId}`));
    sets.set(e.user, list);
  }
  let ao = 0;
  let cl = 0;
  let count = 0;
  for (const [user, reqs] of sets) {
    const chunks = usersChunks.get(user) ?? [];
    const at = new Map(chunks.map((c, i) => [c, i]));
    const weight = new Map<string, number>();
    for (const s of reqs) {
      for (let i = 0; i < s.length; i++) {
        for (let j = i + 1; j < s.length; j++) {
          const k = s[i]! < s[j]! ? `${s[i]}\u0002${s[j]}` : `${s[j]}\u0002${s[i]}`;
          weight.set(k, (weight.get(k) ?? 0) + 1);
        }
      }
    }
    const parent = new Map(chunks.map((c) => [c, c]));
    const members = new Map(chunks.map((c) => [c, [c]]));
    const find = (c: string): string => {
      let r = c;
      while (parent.get(r) !== r && parent.get(r) !== undefined) r = parent.get(r)!;
      return r;
    };
    for (const [k] of [...weight].sort((a, b) => b[1] - a[1])) {
      const [a, b] = k.split('\u0002') as [string, string];
      if (!members.has(find(a)) || !members.has(find(b))) continue;
      const ra = find(a);
      const rb = find(b);
      if (ra === rb || members.get(ra)!.length + members.get(rb)!.length > capacity) continue;
      parent.set(rb, ra);
      members.set(ra, [...members.get(ra)!, ...members.get(rb)!]);
      members.delete(rb);
    }
    const first = (g: string[]): number => Math.min(...g.map((c) => at.get(c) ?? 0));
    const clusters = [...members.values()].sort((x, y) => first(x) - first(y));
    const block = new Map<string, number>();
    let b = 0;
    let fill = 0;
    for (const g of clusters) {
      if (fill + g.length > capacity) {
        b++;
        fill = 0;
      }
      for (const c of g) block.set(c, b);
      fill += g.length;
    }
    for (const s of reqs) {
      ao += new Set(s.map((c) => Math.floor((at.get(c) ?? 0) / capacity))).size;
      cl += new Set(s.map((c) => block.get(c) ?? -1)).size;
      count++;
    }
  }
  return { appendOrder: count === 0 ? null : ao / count, coAccessClustering: count === 0 ? null : cl / count };
}
