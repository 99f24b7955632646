/**
 * Corruption: damaged stored values are detected with a typed error, never returned as data and never crash the
 * process; verify() names each one; everything undamaged stays readable; GC and relocation leave damage alone.
 * (Damaged LevelDB table files: corruption-ldb.test.ts. Salvage: salvage.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/index.js';
import { decodeDirEntry, encodeDirEntry } from '../../src/record/dir-entry.js';
import { accountingKey, blockInfoKey, dirKey } from '../../src/store/kv/keys.js';
import { BACKENDS, type Backend } from '../support/backends.js';
import type { ColumnFamilies } from '../support/raw-families.js';
import { flipped, seedStore, type Seeded } from './helpers.js';

const keyOf = (s: Seeded): string => dirKey(s.userId, s.sessionId, s.chunkId);

/** Block id each seeded chunk lives in now. */
async function locations(raw: ColumnFamilies, seeded: readonly Seeded[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const s of seeded) {
    const v = await raw.dir.get(keyOf(s));
    out.set(keyOf(s), decodeDirEntry(v!, 'test').location!.blockId);
  }
  return out;
}

/** Every seeded chunk not in `damaged` reads back exactly; every damaged one fails with AKASHIC_CORRUPTION. */
async function expectReads(store: AkashicStore, seeded: readonly Seeded[], damaged: ReadonlySet<string>, gone: ReadonlySet<string> = new Set()): Promise<void> {
  for (const s of seeded) {
    if (gone.has(keyOf(s))) continue;
    const read = store.get(s.userId, s.sessionId, s.chunkId);
    if (damaged.has(keyOf(s))) await expect(read).rejects.toMatchObject({ name: 'AkashicError', code: 'AKASHIC_CORRUPTION' });
    else expect((await read)?.text).toBe(s.text);
  }
}

describe.each(BACKENDS)('corruption on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('damaged block bytes: typed error for the chunks in the frame, the rest readable, verify names it, GC skips it', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0, gc: { intervalMs: 0, threshold: 0.2 } });
    const seeded = await seedStore(store, ['alice', 'bob'], 16, 4);
    const where = await locations(be.raw(), seeded);
    const victim = where.get(keyOf(seeded[4]!))!;
    await be.frames().put(victim, 0, flipped((await be.frames().get(victim, 0))!));
    const damaged = new Set([...where].filter(([, b]) => b === victim).map(([k]) => k));
    expect(damaged.size).toBe(4);
    await expectReads(store, seeded, damaged);

    const v = await store.verify();
    expect(v.ok).toBe(false);
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'block-frame', blockId: victim }));
    for (const k of damaged) expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'slot-mismatch', key: k }));
    expect(v.problems.every((p) => p.blockId === victim)).toBe(true);

    // Relocating or updating a damaged chunk fails typed and changes nothing; deleting it works (no read needed).
    const d = seeded[4]!;
    await expect(store.relocate('alice', [d, seeded[0]!, seeded[8]!])).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    await expect(store.write('alice', [{ op: 'update', sessionId: d.sessionId, chunkId: d.chunkId, text: 'x' }])).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    await store.write('alice', [{ op: 'delete', sessionId: d.sessionId, chunkId: d.chunkId }]);
    // Make both the damaged block and healthy blocks GC victims: GC compacts the healthy ones and leaves the damaged one.
    const gone = new Set([keyOf(d), keyOf(seeded[1]!), keyOf(seeded[9]!)]);
    await store.write('alice', [seeded[1]!, seeded[9]!].map((s) => ({ op: 'delete' as const, sessionId: s.sessionId, chunkId: s.chunkId })));
    const report = await store.gc();
    expect(report.damagedBlocks).toBe(1);
    expect(report.blocksReleased).toBeGreaterThan(0);
    damaged.delete(keyOf(d));
    await expectReads(store, seeded, damaged, gone);
    const after = await store.verify();
    expect(after.problems.every((p) => p.blockId === victim)).toBe(true);
  });

  it('a truncated frame and a truncated block info: typed errors, verify names both, other blocks unaffected', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const seeded = await seedStore(store, ['alice'], 16, 4);
    const where = await locations(be.raw(), seeded);
    const [b1, b2] = [where.get(keyOf(seeded[0]!))!, where.get(keyOf(seeded[12]!))!];
    const frame = (await be.frames().get(b1, 0))!;
    await be.frames().put(b1, 0, frame.subarray(0, frame.length - 7));
    const info = (await be.raw().blockInfo.get(blockInfoKey('alice', b2)))!;
    await be.raw().blockInfo.put(blockInfoKey('alice', b2), info.subarray(0, 5));
    const damaged = new Set([...where].filter(([, b]) => b === b1).map(([k]) => k));
    await expectReads(store, seeded, damaged);
    const v = await store.verify();
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'block-frame', blockId: b1 }));
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'block-info', blockId: b2 }));
    // Chunks of the block with the damaged info are still readable (reads never need block infos), but changing
    // them needs the info: a typed error, nothing applied.
    const c = seeded[12]!;
    expect((await store.get('alice', c.sessionId, c.chunkId))?.text).toBe(c.text);
    await expect(store.write('alice', [{ op: 'delete', sessionId: c.sessionId, chunkId: c.chunkId }])).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    expect((await store.get('alice', c.sessionId, c.chunkId))?.text).toBe(c.text);
    // GC does not trip over the damaged info.
    await store.write('alice', [{ op: 'delete', sessionId: seeded[5]!.sessionId, chunkId: seeded[5]!.chunkId }]);
    await expect(store.gc({ threshold: 0.1 })).resolves.toMatchObject({ victims: 1 });
  });

  it('a truncated directory entry: typed error for that chunk only; verify names its key', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const seeded = await seedStore(store, ['alice'], 8, 4);
    const k = keyOf(seeded[2]!);
    const raw = (await be.raw().dir.get(k))!;
    await be.raw().dir.put(k, raw.subarray(0, raw.length - 3));
    await expectReads(store, seeded, new Set([k]));
    const v = await store.verify();
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'directory-entry', key: k }));
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'block-counters' }));
    // Listing the user meets the damaged entry: a typed error, not a crash and not a silently shorter list.
    await expect((async () => {
      for await (const _ of store.list('alice'));
    })()).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
  });

  it('a directory entry pointing at a released block: typed error, verify names the key, the rest readable', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, gc: { intervalMs: 0, threshold: 0.25 } });
    const seeded = await seedStore(store, ['alice'], 12, 4);
    await store.write('alice', [{ op: 'delete', sessionId: seeded[0]!.sessionId, chunkId: seeded[0]!.chunkId }]);
    await store.gc();
    let released = -1;
    for await (const b of store.blocks({ includeReleased: true })) if (b.state === 'released') released = b.blockId;
    expect(released).toBeGreaterThan(0);
    const target = seeded[9]!;
    const k = keyOf(target);
    const e = decodeDirEntry((await be.raw().dir.get(k))!, 'test');
    await be.raw().dir.put(k, encodeDirEntry({ ...e, location: { blockId: released, frame: 0, slot: 2 } }));
    await expectReads(store, seeded, new Set([k]), new Set([keyOf(seeded[0]!)]));
    const v = await store.verify();
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'dangling-directory-entry', key: k, blockId: released }));
    await expect(store.write('alice', [{ op: 'update', sessionId: target.sessionId, chunkId: target.chunkId, text: 'x' }])).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
  });

  it('verify() names several kinds of damage at once and never throws', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const seeded = await seedStore(store, ['alice', 'bob'], 12, 4);
    const cf = be.raw();
    await cf.meta.put('engine', Buffer.from([1, 2, 3]));
    await cf.alloc.put(accountingKey('alice'), flipped((await cf.alloc.get(accountingKey('alice')))!));
    await cf.alloc.put('next', Buffer.alloc(0));
    await cf.dir.put('not a directory key', Buffer.from('x'));
    const k = keyOf(seeded[13]!);
    await cf.dir.put(k, flipped((await cf.dir.get(k))!));
    const v = await store.verify();
    const kinds = new Set(v.problems.map((p) => p.kind));
    for (const kind of ['engine-meta', 'accounting', 'allocator', 'directory-entry'] as const) expect(kinds).toContain(kind);
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'directory-entry', key: k }));
    expect(v.problems).toContainEqual(expect.objectContaining({ kind: 'directory-entry', key: 'not a directory key' }));
  });
});
