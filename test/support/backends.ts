import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { AkashicStore, type AkashicStoreOptions, type ChunkRef } from '../../src/index.js';
import { rawFamilies, rawFrames, type ColumnFamilies, type RawFrames } from './raw-families.js';
import { RedisLevel } from '../../src/backend/redis/redis-level.js';
import { REDIS_URL, dropPrefix, testPrefix, urlWithPrefix } from './redis-test-url.js';

/**
 * The backends every shared suite runs against. `reopen` gives a store over the same data after `close()`.
 * Capability flags gate tests that only make sense on some backends (TinyBase-style).
 */
export interface Backend {
  readonly name: string;
  readonly onDisk: boolean;
  /** The database directory (on-disk backends), else null. */
  readonly path: string | null;
  open(opts?: Partial<AkashicStoreOptions>): Promise<AkashicStore>;
  reopen(opts?: Partial<AkashicStoreOptions>): Promise<AkashicStore>;
  cleanup(): Promise<void>;
  /** Fault injection: the column families under the store opened last (see raw-families.ts). */
  raw(): ColumnFamilies;
  /** Fault injection: the stored frames under the store opened last, wherever they are kept. */
  frames(): RawFrames;
}

const quiet: Partial<AkashicStoreOptions> = { gc: { intervalMs: 0 }, durability: 'relaxed' };

export const BACKENDS: readonly { name: string; make: () => Promise<Backend> }[] = [
  {
    name: 'classic-level',
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'akashic-test-'));
      const path = join(dir, 'db');
      // The backend owns the handle (the engine closes it with the store), so fault-injection tests reach the bytes.
      let db: ClassicLevel<string, Buffer> | null = null;
      const open = (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => {
        db = new ClassicLevel<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: o.readOnly !== true });
        return AkashicStore.open({ ...quiet, ...o, db });
      };
      const raw = (): ColumnFamilies => {
        if (db === null) throw new Error('no store opened yet');
        return rawFamilies(db);
      };
      return { name: 'classic-level', onDisk: true, path, open, reopen: open, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }), raw, frames: () => rawFrames(raw(), path) };
    },
  },
  {
    name: 'memory-level',
    async make() {
      const db = new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
      const open = (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => AkashicStore.open({ ...quiet, ...o, db });
      return { name: 'memory-level', onDisk: false, path: null, open, reopen: open, cleanup: async () => undefined, raw: () => rawFamilies(db), frames: () => rawFrames(rawFamilies(db), null) };
    },
  },
  // Redis (a cluster or one node), when AKASHIC_TEST_REDIS_URL names one: each backend a prefix of its own.
  ...(REDIS_URL === null
    ? []
    : [
        {
          name: 'redis',
          async make(): Promise<Backend> {
            const prefix = testPrefix();
            let db: RedisLevel | null = null;
            const open = (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => {
              db = new RedisLevel({ url: urlWithPrefix(prefix), keyEncoding: 'utf8', valueEncoding: 'buffer' });
              return AkashicStore.open({ ...quiet, ...o, db });
            };
            const raw = (): ColumnFamilies => {
              if (db === null) throw new Error('no store opened yet');
              return rawFamilies(db);
            };
            return { name: 'redis', onDisk: false, path: null, open, reopen: open, cleanup: () => dropPrefix(prefix), raw, frames: () => rawFrames(raw(), null) };
          },
        },
      ]),
];

/** Text of roughly `words` words, deterministic in `seed`. */
export function text(seed: number, words = 40): string {
  const vocab = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike'];
  const out: string[] = [];
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(vocab[x % vocab.length]! + (x % 97).toString());
  }
  return out.join(' ');
}

/** Puts `n` chunks of `text(i)` for user `u`, alternating sessions s0/s1 and keywords k0..k3; their refs in order. */
export async function seedChunks(store: AkashicStore, n: number): Promise<ChunkRef[]> {
  const refs: ChunkRef[] = [];
  for (let i = 0; i < n; i++) {
    const r = await store.put('u', { sessionId: `s${i % 2}`, text: text(i), keywords: [`k${i % 4}`] });
    refs.push({ sessionId: r.sessionId, chunkId: r.chunkId });
  }
  return refs;
}
