import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeDirEntry } from '../../src/record/dir-entry.js';
import { dirKey, frameKey } from '../../src/store/kv/keys.js';
import { verifyToSink } from '../../src/admin/verify-listing.js';
import { openStoreForTool } from '../../src/admin/open-store.js';
import { openWithRawFamilies, rawFrames } from '../support/raw-families.js';
import { buildSample, lines, runCli, tempDir } from './fixtures.js';

const quiet = { gc: { intervalMs: 0 }, durability: 'relaxed' } as const;

describe('verify', () => {
  let tmp: { dir: string; dispose: () => Promise<void> };
  let db: string;
  beforeEach(async () => {
    tmp = await tempDir();
    db = join(tmp.dir, 'db');
    await buildSample(db);
  });
  afterEach(async () => tmp.dispose());

  it('reports a clean store as ok, exit 0', async () => {
    const r = await runCli(['verify', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok: checked \d+ blocks, \d+ frames, \d+ records, \d+ live chunks\n$/);
    expect(r.stderr).toBe('');
  });

  it('catches a flipped byte in a block frame', async () => {
    const { store, raw } = await openWithRawFamilies(db, quiet);
    let key: string;
    try {
      const first = (await store.list('alice').next()).value!;
      const loc = first.entry.location!;
      key = frameKey(loc.blockId, loc.frame);
      const frames = rawFrames(raw, db);
      const value = (await frames.get(loc.blockId, loc.frame))!;
      const damaged = Buffer.from(value);
      damaged[damaged.length >> 1]! ^= 0x40;
      await frames.put(loc.blockId, loc.frame, damaged);
    } finally {
      await store.close();
    }

    const store2 = await openStoreForTool(db, { readOnly: true });
    const out = lines();
    try {
      const report = await verifyToSink(store2, out.sink);
      expect(report.ok).toBe(false);
    } finally {
      await store2.close();
    }
    expect(out.lines).toContain(out.lines.find((l) => l.startsWith(`block-frame: block frame ${key}: checksum mismatch`)));
    expect(out.lines.some((l) => l.startsWith('slot-mismatch: ') && l.includes(`lives in damaged frame ${key}`))).toBe(true);
    expect(out.lines.at(-1)).toMatch(/^FAILED: \d+ problems \(block-frame, slot-mismatch\b/);

    const r = await runCli(['verify', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('block-frame: ');
    expect(r.stdout).toContain('checksum mismatch');
  });

  it('catches a directory entry pointing at a released block', async () => {
    const { store, raw } = await openWithRawFamilies(db, quiet);
    let released: number;
    try {
      const blocks = [];
      for await (const b of store.blocks({ includeReleased: true })) blocks.push(b);
      released = blocks.find((b) => b.state === 'released')!.blockId;
      const victim = (await store.list('alice').next()).value!;
      const k = dirKey(victim.userId, victim.sessionId, victim.chunkId);
      await raw.dir.put(k, encodeDirEntry({ ...victim.entry, location: { blockId: released, frame: 0, slot: 0 } }));
    } finally {
      await store.close();
    }
    const r = await runCli(['verify', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^dangling-directory-entry: .* points at released block 0+[0-9a-f]+$/m);
    // The block the entry used to point at now has one live slot fewer than its counters say.
    expect(r.stdout).toContain('block-counters: ');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^FAILED: .*dangling-directory-entry/);
  });
});
