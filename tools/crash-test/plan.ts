/**
 * The operations of one crash-test cycle. The parent generates them from a seed and the oracle's current state
 * (so every operation is valid: updates and deletes target live chunks, versions are known), writes them to a
 * plan file, and the child executes them in order. Store-level users (`u*`) get puts, updates, deletes,
 * multi-op writes, restores and relocations; MemAttention users (`m*`) get turns, session ends and recalls;
 * GC passes run both in the op stream and in a background loop of the child.
 */
import { createPrng, type Prng } from '../../src/lab/workload/prng.js';
import { isRedisUrl } from '../../src/backend/redis/redis-url.js';
import { KEYWORDS, planUlid, type ContentSpec, type TextSpec, type TurnSpec } from './content.js';
import type { StoreModel } from './oracle.js';

/** A chunk as the plan refers to it: by its logical name, and by id when the id is known at plan time. */
export interface ChunkRef {
  readonly name: string;
  readonly session: string;
  readonly chunkId?: string;
}

export type SubOp =
  | { readonly t: 'put'; readonly name: string; readonly session: string; readonly chunkId?: string; readonly content: ContentSpec }
  | { readonly t: 'update'; readonly ref: ChunkRef; readonly text: TextSpec; readonly expectVersion?: number }
  | { readonly t: 'delete'; readonly ref: ChunkRef; readonly expectVersion?: number };

export type PlanOp =
  | ({ readonly user: string } & SubOp)
  | { readonly t: 'write'; readonly user: string; readonly ops: readonly SubOp[] }
  | { readonly t: 'restore'; readonly user: string; readonly name: string; readonly session: string; readonly chunkId: string; readonly version: number; readonly content: ContentSpec }
  | { readonly t: 'relocate'; readonly user: string; readonly refs: readonly ChunkRef[] }
  | { readonly t: 'gc'; readonly threshold: number; readonly maxBlocks: number }
  | { readonly t: 'turns'; readonly user: string; readonly session: string; readonly turns: readonly TurnSpec[] }
  | { readonly t: 'end'; readonly user: string; readonly session: string }
  | { readonly t: 'recall'; readonly user: string; readonly session: string; readonly query: string; readonly scope: 'session' | 'user' };

/** Store options shared by the child and the parent's reopen. */
// postingMergeAt 4: crashes also land during the candidate index's posting merges, and verify() checks both states.
export const CRASH_STORE_OPTIONS = { blockCapacity: 4, blockMaxBytes: 16 * 1024, durability: 'sync', gc: { intervalMs: 0 }, postingMergeAt: 4 } as const;

/**
 * Where the store is: a LevelDB directory, or a Redis deployment (`redis://…`, `redis+cluster://…`, with a
 * `?prefix=` of the run's own). The child and the parent's reopen pass the result to `AkashicStore.open`.
 */
export function crashStoreTarget(db: string): { readonly path: string } | { readonly url: string } {
  return isRedisUrl(db) ? { url: db } : { path: db };
}

/** MemAttention options of the child: a small gate, so appends compact often; relocation on the recall's path. */
export const CRASH_MEMORY_OPTIONS = { chunkGateTokens: 64, topP: 4, relocateSync: true, relocateEveryRecalls: 1, relocateMinRecurrence: 1 } as const;

export const STORE_USERS = ['u0', 'u1', 'u2'] as const;
export const STORE_SESSIONS = ['s0', 's1', 's2'] as const;
export const MEMORY_USERS = ['m0', 'm1'] as const;
export const MEMORY_SESSIONS = ['a', 'b'] as const;

export interface Plan {
  readonly cycle: number;
  readonly seed: number;
  /** Whether the child runs the GC loop in the background while it executes the ops. */
  readonly gcLoop: boolean;
  readonly ops: readonly PlanOp[];
}

export function isMemoryOp(op: PlanOp): boolean {
  return op.t === 'turns' || op.t === 'end' || op.t === 'recall';
}

/** Live chunks per user above which deletes are favoured, so the database stays small across many cycles. */
const LIVE_TARGET = 60;

/**
 * Generates the ops of one cycle. `model` is the oracle's state at the start of the cycle; it is not changed
 * (a copy is advanced as ops are generated, so later ops can target chunks created earlier in the cycle).
 */
export function generatePlan(seed: number, cycle: number, model: StoreModel, opts: { ops: number; memory: boolean }): Plan {
  const rng = createPrng(seed);
  const sim = model.clone();
  const ops: PlanOp[] = [];
  let n = 0;
  const tag = (): string => `op${cycle}.${n}`;
  const text = (): TextSpec => ({ tag: tag(), seed: rng.int(0, 2 ** 31), words: sizeOf(rng), kw: pickKeywords(rng) });
  const content = (): ContentSpec => ({
    ...text(),
    payload: rng.chance(0.1) ? rng.int(1, 3000) : 0,
    payloadSeed: rng.int(0, 2 ** 31),
    kind: rng.pick(['memory', 'note', 'summary'] as const),
  });
  const liveRef = (user: string, avoid: Set<string>): ChunkRef | null => {
    const live = sim.live(user).filter((c) => !avoid.has(c.name));
    if (live.length === 0) return null;
    const c = rng.pick(live);
    return c.chunkId === null ? { name: c.name, session: c.session } : { name: c.name, session: c.session, chunkId: c.chunkId };
  };
  let turnNo = 0;
  for (n = 0; n < opts.ops; n++) {
    const user = rng.pick(STORE_USERS);
    const crowded = sim.live(user).length > LIVE_TARGET;
    const weights: [PlanOp['t'] | 'reloc', number][] = [
      ['put', crowded ? 8 : 20],
      ['update', 12],
      ['delete', crowded ? 25 : 8],
      ['write', 10],
      ['restore', 3],
      ['reloc', 10],
      ['gc', 4],
    ];
    if (opts.memory) weights.push(['turns', 24], ['end', 3], ['recall', 8]);
    const kind = weighted(rng, weights);
    const session = rng.pick(STORE_SESSIONS);
    let op: PlanOp | null = null;
    switch (kind) {
      case 'put': {
        const chunkId = rng.chance(0.5) ? planUlid(cycle, n, rng.int(0, 2 ** 31)) : undefined;
        op = chunkId === undefined ? { t: 'put', user, name: tag(), session, content: content() } : { t: 'put', user, name: tag(), session, chunkId, content: content() };
        break;
      }
      case 'update': {
        const ref = liveRef(user, new Set());
        if (ref === null) break;
        const v = sim.get(ref.name)!.version;
        op = rng.chance(0.5) ? { t: 'update', user, ref, text: text(), expectVersion: v } : { t: 'update', user, ref, text: text() };
        break;
      }
      case 'delete': {
        const ref = liveRef(user, new Set());
        if (ref === null) break;
        op = rng.chance(0.3) ? { t: 'delete', user, ref, expectVersion: sim.get(ref.name)!.version } : { t: 'delete', user, ref };
        break;
      }
      case 'write': {
        const used = new Set<string>();
        const sub: SubOp[] = [];
        const count = rng.int(2, 6);
        for (let j = 0; j < count; j++) {
          const r = rng.next();
          const ref = r < 0.4 ? null : liveRef(user, used);
          if (ref === null) {
            const name = `${tag()}.${j}`;
            sub.push({ t: 'put', name, session: rng.pick(STORE_SESSIONS), chunkId: planUlid(cycle, n * 16 + j + 8000, rng.int(0, 2 ** 31)), content: { ...content(), tag: name } });
          } else if (r < 0.75) {
            used.add(ref.name);
            sub.push({ t: 'update', ref, text: { ...text(), tag: `${tag()}.${j}` }, expectVersion: sim.get(ref.name)!.version });
          } else {
            used.add(ref.name);
            sub.push({ t: 'delete', ref });
          }
        }
        op = { t: 'write', user, ops: sub };
        break;
      }
      case 'restore':
        op = { t: 'restore', user, name: tag(), session, chunkId: planUlid(cycle, n + 4000, rng.int(0, 2 ** 31)), version: rng.int(1, 5), content: content() };
        break;
      case 'reloc': {
        const refs: ChunkRef[] = [];
        const want = rng.int(2, 8);
        const all = sim.all(user);
        for (let j = 0; j < want && all.length > 0; j++) {
          // Mostly live chunks; now and then a deleted one, which relocation must skip.
          const c = rng.pick(all);
          if (!refs.some((x) => x.name === c.name)) refs.push(c.chunkId === null ? { name: c.name, session: c.session } : { name: c.name, session: c.session, chunkId: c.chunkId });
        }
        if (refs.length >= 2) op = { t: 'relocate', user, refs };
        break;
      }
      case 'gc':
        op = { t: 'gc', threshold: rng.pick([0.05, 0.1, 0.25, 0.5]), maxBlocks: rng.int(1, 32) };
        break;
      case 'turns': {
        const mu = rng.pick(MEMORY_USERS);
        const ms = rng.pick(MEMORY_SESSIONS);
        const count = rng.chance(0.8) ? 1 : rng.int(2, 3);
        const turns: TurnSpec[] = [];
        for (let j = 0; j < count; j++) {
          turns.push({ turnId: `T${cycle}.${turnNo++}`, role: j % 2 === 0 ? 'user' : 'assistant', seed: rng.int(0, 2 ** 31), words: rng.int(4, 30) });
        }
        op = { t: 'turns', user: mu, session: ms, turns };
        break;
      }
      case 'end':
        op = { t: 'end', user: rng.pick(MEMORY_USERS), session: rng.pick(MEMORY_SESSIONS) };
        break;
      case 'recall':
        op = { t: 'recall', user: rng.pick(MEMORY_USERS), session: rng.pick(MEMORY_SESSIONS), query: `${rng.pick(KEYWORDS)} harbor violet ${rng.pick(['granite', 'meadow', 'saffron'])}`, scope: rng.chance(0.5) ? 'session' : 'user' };
        break;
    }
    if (op === null) {
      n--;
      continue;
    }
    sim.apply(op, null);
    ops.push(op);
  }
  return { cycle, seed, gcLoop: rng.chance(0.8), ops };
}

function sizeOf(rng: Prng): number {
  const r = rng.next();
  if (r < 0.7) return rng.int(3, 60);
  if (r < 0.95) return rng.int(60, 600);
  return rng.int(600, 3000); // a few KB: fills a 16 KiB block in a handful of records
}

function pickKeywords(rng: Prng): string[] {
  const n = rng.int(0, 3);
  const out = new Set<string>();
  for (let i = 0; i < n; i++) out.add(rng.pick(KEYWORDS));
  return [...out];
}

function weighted<T>(rng: Prng, items: readonly [T, number][]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let x = rng.next() * total;
  for (const [v, w] of items) {
    x -= w;
    if (x < 0) return v;
  }
  return items[items.length - 1]![0];
}
