/**
 * One client process of the backend benchmark: opens the store (a LevelDB directory or a Redis URL), says `ready`,
 * and on `go` runs its loops of one phase, then sends back every operation's latency (ms) and the phase's wall time.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { AkashicMemory, AkashicStore } from '../../src/index.js';
import { chunkContent, prng, queryFor } from './workload.js';

export interface ClientConfig {
  readonly path?: string;
  readonly url?: string;
  readonly phase: 'put' | 'fetch' | 'recall' | 'cold';
  readonly loops: number;
  readonly ops: number;
  /** A JSON file: user → [sessionId, chunkId, seed][] (what the seeding wrote). */
  readonly refsFile: string;
  readonly users: readonly string[];
  readonly seed: number;
}

export interface ClientResult {
  readonly latencies: number[];
  readonly wallMs: number;
  readonly blocksTouched: number;
}

type Refs = Record<string, [string, string, number][]>;

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]!) as ClientConfig;
  const refs = JSON.parse(readFileSync(cfg.refsFile, 'utf8')) as Refs;
  const target = cfg.url !== undefined ? { url: cfg.url } : { path: cfg.path! };
  const store = await AkashicStore.open({ ...target, gc: { intervalMs: 0 }, durability: 'sync' });
  const memory = new AkashicMemory(store);
  const latencies: number[] = [];
  let blocksTouched = 0;
  const one = async (loop: number, i: number, r: () => number): Promise<void> => {
    const user = cfg.users[(loop + i) % cfg.users.length]!;
    const mine = refs[user]!;
    const t0 = performance.now();
    if (cfg.phase === 'put') {
      const seed = cfg.seed * 1_000_003 + loop * 10_007 + i;
      await store.put(user, { sessionId: 'bench', ...chunkContent(seed) });
    } else if (cfg.phase === 'fetch' || cfg.phase === 'cold') {
      const pick = Array.from({ length: 5 }, () => mine[Math.floor(r() * mine.length)]!);
      const res = await store.getMany(user, pick.map(([sessionId, chunkId]) => ({ sessionId, chunkId })));
      blocksTouched += res.blocksTouched;
    } else {
      const [, , seed] = mine[Math.floor(r() * mine.length)]!;
      const res = await memory.recall({ user, session: 'bench-recall', query: queryFor(seed), scope: 'user' });
      blocksTouched += res.blocksTouched;
    }
    latencies.push(performance.now() - t0);
  };
  process.send!({ ready: true });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const start = performance.now();
  const ops = cfg.phase === 'cold' ? 1 : cfg.ops;
  await Promise.all(
    Array.from({ length: cfg.loops }, async (_, loop) => {
      const r = prng(cfg.seed * 31 + loop);
      for (let i = 0; i < ops; i++) await one(loop, i, r);
    }),
  );
  const result: ClientResult = { latencies, wallMs: performance.now() - start, blocksTouched };
  await memory.close();
  await store.close();
  process.send!({ result }, () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
