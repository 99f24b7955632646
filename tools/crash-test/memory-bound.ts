/**
 * Bounded resources: builds a database much larger than the memory bound, then runs verify(), a full dump and a
 * GC pass over it while sampling the live heap (a forced full GC before every sample, so garbage waiting to be
 * collected does not count), and checks each stays within the bound.
 *
 *   node --expose-gc --max-old-space-size=96 dist/tools/crash-test/memory-bound.js --chunks 200000 [--bytes 600]
 *        [--bound-mb 8] [--dir PATH] [--keep]
 *
 * Prints one JSON line; exits 1 when an operation exceeded the bound or verify() was not clean. See
 * docs/reliability.md ("Bounded resources") for the bound and why it holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AkashicStore } from '../../src/engine/akashic-store.js';
import { dumpStore } from '../../src/admin/dump.js';
import { createPrng } from '../../src/lab/workload/prng.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '200000' },
    bytes: { type: 'string', default: '600' },
    'bound-mb': { type: 'string', default: '8' },
    'cache-mb': { type: 'string', default: '4' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}
const N = Number(values.chunks);
const BYTES = Number(values.bytes);
const BOUND = Number(values['bound-mb']) * 2 ** 20;
const CACHE = Number(values['cache-mb']) * 2 ** 20;
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'akashic-memory-bound-'));
const path = join(dir, 'db');
const WORDS = ['harbor', 'violet', 'granite', 'lantern', 'meadow', 'quartz', 'saffron', 'tundra', 'willow', 'ember', 'fjord', 'cobalt', 'juniper', 'marble'];

/** Live heap: forced full GC, then heapUsed. */
function live(): number {
  gc!();
  return process.memoryUsage().heapUsed;
}

interface Measured {
  readonly ms: number;
  /** Most live heap above the baseline seen while the operation ran. */
  readonly peakExtraMb: number;
  readonly peakRssMb: number;
  readonly samples: number;
}

async function measure<T>(fn: () => Promise<T>): Promise<{ value: T; m: Measured }> {
  const baseline = live();
  let peak = baseline;
  let rss = 0;
  let samples = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, live());
    rss = Math.max(rss, process.memoryUsage().rss);
    samples++;
  }, 100);
  const t0 = Date.now();
  try {
    const value = await fn();
    peak = Math.max(peak, live());
    return { value, m: { ms: Date.now() - t0, peakExtraMb: round((peak - baseline) / 2 ** 20), peakRssMb: round(rss / 2 ** 20), samples } };
  } finally {
    clearInterval(timer);
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;

async function build(): Promise<{ ms: number; deleted: number }> {
  const t0 = Date.now();
  const store = await AkashicStore.open({ path, durability: 'relaxed', gc: { intervalMs: 0 }, cacheBytes: 0 });
  const rng = createPrng(1);
  const batch = 1000;
  let deleted = 0;
  try {
    for (let i = 0; i < N; i += batch) {
      const user = `user${(i / batch) % 16}`;
      const ops = Array.from({ length: Math.min(batch, N - i) }, (_, j) => {
        const words: string[] = [`chunk ${i + j}`];
        while (words.join(' ').length < BYTES) words.push(rng.pick(WORDS) + rng.int(0, 999));
        return { op: 'put' as const, sessionId: `s${j % 4}`, text: words.join(' '), keywords: [rng.pick(WORDS)] };
      });
      const rs = await store.write(user, ops);
      // A quarter of the batches lose every other chunk: their blocks become GC candidates.
      if ((i / batch) % 4 === 0) {
        const gone = rs.filter((_, j) => j % 2 === 0);
        await store.write(user, gone.map((r) => ({ op: 'delete' as const, sessionId: r.sessionId, chunkId: r.chunkId })));
        deleted += gone.length;
      }
    }
  } finally {
    await store.close();
  }
  return { ms: Date.now() - t0, deleted };
}

const built = await build();
const store = await AkashicStore.open({ path, gc: { intervalMs: 0 }, cacheBytes: CACHE });
const stats = await store.stats();
const verify = await measure(() => store.verify());
let lines = 0;
const dump = await measure(() => dumpStore(store, () => void lines++));
const gcPass = await measure(() => store.gc());
const after = await store.verify();
await store.close();

const result = {
  chunks: stats.chunks,
  blocks: stats.blocks,
  storedRawMb: round(stats.storedRawBytes / 2 ** 20),
  diskMb: round((stats.diskBytes ?? 0) / 2 ** 20),
  boundMb: BOUND / 2 ** 20,
  cacheMb: CACHE / 2 ** 20,
  build: built,
  verify: { ...verify.m, ok: verify.value.ok },
  dump: { ...dump.m, lines, expectedLines: stats.chunks + stats.historyVersions + 1 },
  gc: { ...gcPass.m, victims: gcPass.value.victims, moved: gcPass.value.chunksMoved, released: gcPass.value.blocksReleased },
  verifyAfterGc: after.ok,
};
process.stdout.write(JSON.stringify(result) + '\n');
if (values.dir === undefined && !values.keep) rmSync(dir, { recursive: true, force: true });
const within = verify.m.peakExtraMb * 2 ** 20 <= BOUND && dump.m.peakExtraMb * 2 ** 20 <= BOUND + CACHE && gcPass.m.peakExtraMb * 2 ** 20 <= BOUND;
process.exit(within && verify.value.ok && after.ok && lines === stats.chunks + stats.historyVersions + 1 ? 0 : 1);
