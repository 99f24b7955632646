/**
 * The salvage path: copy every readable live chunk (and MemAttention's active turns) of a damaged database into a
 * new one, and report exactly what was left behind.
 */
import { readlinkSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore, type ChunkRecord } from '../../src/index.js';
import { AkashicMemory } from '../../src/memattention/index.js';
import { decodeDirEntry, encodeDirEntry } from '../../src/record/dir-entry.js';
import { blockInfoKey, dirKey } from '../../src/store/kv/keys.js';
import { salvage } from '../../src/engine/salvage.js';
import { openWithRawFamilies, rawFrames } from '../support/raw-families.js';
import { flipped, seedStore, type Seeded } from './helpers.js';

const keyOf = (s: Seeded): string => dirKey(s.userId, s.sessionId, s.chunkId);
const opts = { gc: { intervalMs: 0, threshold: 0.25 }, durability: 'relaxed', blockCapacity: 4, cacheBytes: 0 } as const;

async function records(path: string): Promise<Map<string, ChunkRecord>> {
  const store = await AkashicStore.open({ path, ...opts });
  try {
    const out = new Map<string, ChunkRecord>();
    for (const u of await store.users()) {
      for await (const e of store.list(u)) {
        const r = await store.get(u, e.sessionId, e.chunkId);
        out.set(dirKey(u, e.sessionId, e.chunkId), r!);
      }
    }
    return out;
  } finally {
    await store.close();
  }
}

describe('salvage', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'akashic-salvage-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A database with four kinds of damage; returns what is damaged, what is deleted and the healthy records. */
  async function damagedDb(): Promise<{ src: string; before: Map<string, ChunkRecord>; lost: Set<string>; orphan: string; deleted: Set<string> }> {
    const src = join(dir, 'src');
    const store = await AkashicStore.open({ path: src, ...opts });
    const seeded = await seedStore(store, ['alice', 'bob'], 24, 4);
    // History: updates, deletes, a GC pass that releases a block.
    await store.write('alice', [{ op: 'update', sessionId: seeded[3]!.sessionId, chunkId: seeded[3]!.chunkId, text: 'alice changed her mind' }]);
    const deleted = new Set([keyOf(seeded[0]!), keyOf(seeded[25]!)]);
    await store.write('alice', [{ op: 'delete', sessionId: seeded[0]!.sessionId, chunkId: seeded[0]!.chunkId }]);
    await store.write('bob', [{ op: 'delete', sessionId: seeded[25]!.sessionId, chunkId: seeded[25]!.chunkId }]);
    await store.gc();
    const memory = new AkashicMemory(store, { chunkGateTokens: 100_000 });
    await memory.appendTurn({ user: 'carol', session: 'c1', role: 'user', text: 'an acknowledged turn not compacted yet' });
    await memory.close();
    await store.close();
    const before = await records(src);

    const { store: damage, raw: cf } = await openWithRawFamilies(src, opts);
    const loc = async (s: Seeded) => decodeDirEntry((await cf.dir.get(keyOf(s)))!, 'test').location!;
    // 1. Flipped bytes in a frame of bob's: every live chunk of that frame is lost.
    const l = await loc(seeded[40]!);
    const frames = rawFrames(cf, src);
    await frames.put(l.blockId, l.frame, flipped((await frames.get(l.blockId, l.frame))!));
    const lost = new Set<string>();
    for (const [k] of before) {
      const e = decodeDirEntry((await cf.dir.get(k))!, 'test');
      if (e.location!.blockId === l.blockId && e.location!.frame === l.frame) lost.add(k);
    }
    // 2. A truncated directory entry: its chunk's record is still in a healthy frame (an orphan).
    const orphan = keyOf(seeded[10]!);
    const raw = (await cf.dir.get(orphan))!;
    await cf.dir.put(orphan, raw.subarray(0, raw.length - 4));
    lost.add(orphan);
    // 3. A directory entry pointing at a released block.
    let released = -1;
    for await (const b of damage.blocks({ includeReleased: true })) if (b.state === 'released') released = b.blockId;
    expect(released).toBeGreaterThan(0);
    const dangling = keyOf(seeded[30]!);
    const de = decodeDirEntry((await cf.dir.get(dangling))!, 'test');
    await cf.dir.put(dangling, encodeDirEntry({ ...de, location: { blockId: released, frame: 0, slot: 0 } }));
    lost.add(dangling);
    // 4. A damaged block info: salvage does not need block infos, so nothing is lost to it.
    const infoOf = (await loc(seeded[20]!)).blockId;
    const infoKey = blockInfoKey(seeded[20]!.userId, infoOf);
    await cf.blockInfo.put(infoKey, flipped((await cf.blockInfo.get(infoKey))!));
    await damage.close();
    return { src, before, lost, orphan, deleted };
  }

  it('copies every readable live chunk exactly, skips and names the damaged ones, and the copy verifies clean', async () => {
    const { src, before, lost, orphan, deleted } = await damagedDb();
    const to = join(dir, 'salvaged');
    const report = await salvage(src, to);
    expect(new Set(report.skipped.map((s) => s.key))).toEqual(lost);
    expect(report.skippedCount).toBe(lost.size);
    expect(report.copied).toBe(before.size - lost.size);
    expect(report.deleted).toBe(deleted.size);
    expect(report.activeTurns).toBe(1);
    expect(report.orphans).toBe(1);
    expect(report.orphanKeys[0]).toContain(orphan);
    expect(report.orphansCopied).toBe(0);
    expect(report.complete).toBe(false);

    const after = await records(to);
    expect(after.size).toBe(before.size - lost.size);
    for (const [k, r] of after) expect(r).toEqual(before.get(k));
    for (const k of lost) expect(after.has(k)).toBe(false);
    for (const k of deleted) expect(after.has(k)).toBe(false);
    const store = await AkashicStore.open({ path: to, ...opts });
    expect(await store.verify()).toMatchObject({ ok: true });
    const memory = new AkashicMemory(store);
    expect((await memory.activeTurns({ user: 'carol', session: 'c1' })).map((t) => t.text)).toEqual(['an acknowledged turn not compacted yet']);
    await memory.close();
    await store.close();
  });

  it('recovers orphans (records whose directory entry was lost) only when asked', async () => {
    const { src, before, orphan } = await damagedDb();
    const to = join(dir, 'with-orphans');
    const report = await salvage(src, to, { recoverOrphans: true });
    expect(report.orphansCopied).toBe(1);
    const after = await records(to);
    expect(after.get(orphan)).toEqual(before.get(orphan));
  });

  it('a healthy database salvages completely', async () => {
    const src = join(dir, 'healthy');
    const store = await AkashicStore.open({ path: src, ...opts });
    await seedStore(store, ['alice'], 10, 3);
    await store.close();
    const before = await records(src);
    const report = await salvage(src, join(dir, 'copy'));
    expect(report).toMatchObject({ copied: 10, skippedCount: 0, orphans: 0, storageErrors: [], complete: true });
    // Nothing of either database stays open once salvage returns (the source's frame files included).
    const open = (await readdir('/proc/self/fd')).map((fd) => {
      try {
        return readlinkSync(join('/proc/self/fd', fd));
      } catch {
        return '';
      }
    });
    expect(open.filter((p) => p.startsWith(dir))).toEqual([]);
    expect(await records(join(dir, 'copy'))).toEqual(before);
  });

  it('refuses a non-empty target or the same path, and a locked or missing source, with typed errors', async () => {
    const src = join(dir, 'src');
    const store = await AkashicStore.open({ path: src, ...opts });
    await seedStore(store, ['alice'], 2);
    await expect(salvage(src, join(dir, 'x'))).rejects.toMatchObject({ code: 'AKASHIC_LOCKED' });
    await store.close();
    await expect(salvage(src, src)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    await expect(salvage(src, dir)).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    await expect(salvage(join(dir, 'nothing-here'), join(dir, 'y'))).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
  });
});
