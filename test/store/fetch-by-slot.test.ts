import { afterEach, describe, expect, it } from 'vitest';
import { AkashicError, type AkashicStore, type ChunkRef, type LocatedRef } from '../../src/index.js';
import { BACKENDS, seedChunks, text, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('fetch by slot on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  const seed = (n: number): Promise<ChunkRef[]> => seedChunks(store, n);

  async function located(refs: readonly ChunkRef[]): Promise<LocatedRef[]> {
    const l = await store.locate('u', refs);
    expect(l.every((x) => x !== null)).toBe(true);
    return l as LocatedRef[];
  }

  it('reads what getMany reads, from the locations alone', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(12);
    const set = [refs[9]!, refs[1]!, refs[5]!, refs[6]!];
    const hints = await located(set);
    const bySlot = await store.getManyBySlot('u', hints);
    const byRef = await store.getMany('u', set);
    expect(bySlot.chunks.map((c) => c?.text)).toEqual([9, 1, 5, 6].map((i) => text(i)));
    expect(bySlot.chunks).toEqual(byRef.chunks);
    expect(bySlot.blocksTouched).toBe(byRef.blocksTouched);
    expect((await store.locate('u', [{ sessionId: 's0', chunkId: refs[0]!.chunkId.replace(/.$/, (c) => (c === 'Z' ? 'Y' : 'Z')) }]))[0]).toBeNull();
  });

  it('follows a chunk that moved (relocation, then GC released its old block) through the directory', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(16);
    const set = [refs[0]!, refs[5]!, refs[10]!, refs[15]!];
    const hints = await located(set);
    await store.relocate('u', set);
    await store.gc({ threshold: 0.01 });
    const moved = await located(set);
    expect(moved.map((m) => m.location)).not.toEqual(hints.map((h) => h.location));
    const present = new Set<number>();
    for await (const b of store.blocks()) present.add(b.blockId);
    expect(hints.some((h) => present.has(h.location.blockId))).toBe(false);
    const r = await store.getManyBySlot('u', hints);
    expect(r.chunks.map((c) => c?.text)).toEqual([0, 5, 10, 15].map((i) => text(i)));
  });

  it('never trusts a hint: a slot holding another chunk or version reads through the directory', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(8);
    const [a, b] = await located([refs[2]!, refs[3]!]);
    // a's ref with b's location: the record there is b, so a is read through the directory.
    const forged = { ...a!, location: b!.location };
    expect((await store.getManyBySlot('u', [forged])).chunks[0]?.text).toBe(text(2));
    // Another user's hint never reads this user's chunk (the record's user must match).
    expect((await store.getManyBySlot('v', [a!])).chunks[0]).toBeNull();
    // An updated chunk: the hint's old version is gone from the directory but its slot still holds it.
    await store.write('u', [{ op: 'update', sessionId: refs[2]!.sessionId, chunkId: refs[2]!.chunkId, text: 'changed' }]);
    expect((await store.getManyBySlot('u', [a!])).chunks[0]?.text).toBe(text(2));
    // A version the slot does not hold: through the directory, the current version.
    expect((await store.getManyBySlot('u', [{ ...a!, version: a!.version + 1 }])).chunks[0]?.text).toBe('changed');
    // A location in a block that never existed reads through the directory too.
    expect((await store.getManyBySlot('u', [{ ...b!, location: { blockId: 999_999, frame: 0, slot: 0 } }])).chunks[0]?.text).toBe(text(3));
    // A chunk deleted since: through the directory it is absent.
    await store.write('u', [{ op: 'delete', sessionId: refs[3]!.sessionId, chunkId: refs[3]!.chunkId }]);
    expect((await store.getManyBySlot('u', [{ ...b!, location: { blockId: 999_999, frame: 0, slot: 0 } }])).chunks[0]).toBeNull();
  });

  it('reads an expired hint as absent', async () => {
    be = await make();
    let t = 1_000_000;
    store = await be.open({ blockCapacity: 4, now: () => t });
    const r = await store.put('u', { sessionId: 's', text: 'short-lived', ttlMs: 100 });
    const [h] = await located([{ sessionId: r.sessionId, chunkId: r.chunkId }]);
    expect(h!.expiresAt).toBe(1_000_100);
    expect((await store.getManyBySlot('u', [h!])).chunks[0]?.text).toBe('short-lived');
    t += 100;
    expect((await store.getManyBySlot('u', [h!])).chunks[0]).toBeNull();
  });

  it('refuses malformed hints with AKASHIC_INVALID_ARGUMENT', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const [ref] = await seed(1);
    const [h] = await located([ref!]);
    const bad: unknown[] = [
      'x',
      [{ ...h!, version: 0 }],
      [{ ...h!, location: null }],
      [{ ...h!, location: { blockId: -1, frame: 0, slot: 0 } }],
      [{ ...h!, location: { blockId: 1, frame: 70_000, slot: 0 } }],
      [{ ...h!, location: { blockId: 1, frame: 0, slot: 1.5 } }],
      [{ ...h!, expiresAt: 'soon' }],
      [{ ...h!, chunkId: 'nope' }],
    ];
    for (const b of bad) {
      await expect(store.getManyBySlot('u', b as LocatedRef[])).rejects.toSatisfy((e: unknown) => e instanceof AkashicError && e.code === 'AKASHIC_INVALID_ARGUMENT');
    }
  });
});
