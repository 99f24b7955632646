import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { AkashicStore, type AkashicStoreOptions } from '../../src/index.js';

/**
 * The backends every shared suite runs against. `reopen` gives a store over the same data after `close()`.
 * Capability flags gate tests that only make sense on some backends (TinyBase-style).
 */
export interface Backend {
  readonly name: string;
  readonly onDisk: boolean;
  open(opts?: Partial<AkashicStoreOptions>): Promise<AkashicStore>;
  reopen(opts?: Partial<AkashicStoreOptions>): Promise<AkashicStore>;
  cleanup(): Promise<void>;
}

const quiet: Partial<AkashicStoreOptions> = { gc: { intervalMs: 0 }, durability: 'relaxed' };

export const BACKENDS: readonly { name: string; make: () => Promise<Backend> }[] = [
  {
    name: 'classic-level',
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'akashic-test-'));
      const path = join(dir, 'db');
      const open = (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => AkashicStore.open({ ...quiet, ...o, path });
      return { name: 'classic-level', onDisk: true, open, reopen: open, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'memory-level',
    async make() {
      const db = new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
      const open = (o: Partial<AkashicStoreOptions> = {}): Promise<AkashicStore> => AkashicStore.open({ ...quiet, ...o, db });
      return { name: 'memory-level', onDisk: false, open, reopen: open, cleanup: async () => undefined };
    },
  },
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
