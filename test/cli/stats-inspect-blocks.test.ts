import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBlocks } from '../../src/admin/block-layout.js';
import { inspectStore } from '../../src/admin/inspect.js';
import { openStoreForTool } from '../../src/admin/open-store.js';
import { statsLines } from '../../src/admin/stats-listing.js';
import { buildSample, lines, runCli, runMain, tempDir } from './fixtures.js';

describe('stats, inspect and blocks', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeAll(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    await buildSample(db);
  });
  afterAll(async () => tmp.dispose());

  it('stats --json prints exactly the StoreStats object', async () => {
    const r = await runCli(['stats', '--db', db, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(s).toMatchObject({ formatVersion: 1, users: 5, chunks: 24, deletedChunks: 5, updatedChunks: 1, blockCapacity: 4 });
    for (const k of ['chunks', 'blocks', 'spaceAmplification', 'writeAmplification']) expect(typeof s[k]).toBe('number');
    const store = await openStoreForTool(db, { readOnly: true });
    try {
      const direct = await store.stats();
      expect(Object.keys(s)).toEqual(Object.keys(direct));
      expect({ ...s, diskBytes: null }).toEqual({ ...direct, diskBytes: null });
    } finally {
      await store.close();
    }
  });

  it('stats without --json is a key: value listing', async () => {
    const r = await runMain(['stats', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^formatVersion: 1$/m);
    expect(r.stdout).toMatch(/^blocksByState\.released: 1$/m);
    expect(r.stdout).toMatch(/^phiHistogram: \[(\d+,){9}\d+\]$/m);
    expect(statsLines({ a: 1, b: { c: null } } as never)).toEqual(['a: 1', 'b.c: null']);
  });

  it('inspect summarizes users, chunks, blocks, φ and amplification', async () => {
    const store = await openStoreForTool(db, { readOnly: true });
    const out = lines();
    try {
      await inspectStore(store, out.sink);
    } finally {
      await store.close();
    }
    const text = out.text();
    expect(text).toMatch(/^format version +1 /m);
    expect(text).toMatch(/^chunks +24 live \(1 updated\), 5 deleted$/m);
    expect(text).toMatch(/^blocks +\d+ holding data: \d+ open, \d+ sealed; 1 released$/m);
    expect(text).toMatch(/^space amp\. +\d+\.\d\d× raw\/live/m);
    expect(text).toMatch(/^write amp\. +\d+\.\d\d×/m);
    expect(text).toMatch(/^on disk +\d/m);
    expect(text).toContain('φ histogram');
    expect(text).toMatch(/^ {2}\[0\.0,0\.1\) +\d+ +█*$/m);
    expect(text).toMatch(/^ {2}"alice" +\d+ sessions/m);
    expect((await runCli(['inspect', '--db', db])).stdout).toBe(text);
  });

  it('blocks lists every block with its chunks, and agrees with the directory', async () => {
    const store = await openStoreForTool(db, { readOnly: true });
    const out = lines();
    try {
      await writeBlocks(store, out.sink, { json: true });
      const listed = out.lines.map((l) => JSON.parse(l) as { blockId: number; userId: string; liveSlots: number; chunks: { chunkId: string }[] });
      let live = 0;
      for (const b of listed) {
        expect(b.chunks.length).toBe(b.liveSlots);
        live += b.chunks.length;
      }
      expect(live).toBe((await store.stats()).chunks);
      for await (const e of store.list('bob')) {
        const b = listed.find((x) => x.blockId === e.entry.location!.blockId)!;
        expect(b.userId).toBe('bob');
        expect(b.chunks.map((c) => c.chunkId)).toContain(e.chunkId);
      }
    } finally {
      await store.close();
    }
    const r = await runCli(['blocks', '--db', db, '--user', 'carol', '--released']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('user "carol"');
    expect(r.stdout).toMatch(/^ {2}block [0-9a-f]{12} {2}released append {5}released at \S+; had 4 slots {2}session: gone$/m);
    expect(r.stdout).toMatch(/^ {2}block [0-9a-f]{12} {2}open .* slots 1\/1 live {2}fill 25% {2}φ 0\.00/m);
    expect(r.stdout).toMatch(/^ {4}\[\d+:\d+\] kept\/[0-9A-Z]{26} v1$/m);
  });
});
