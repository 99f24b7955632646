import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore, ChunkRef } from '../../src/index.js';
import { BACKENDS, seedChunks, text, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('relocation on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  const seed = (n: number): Promise<ChunkRef[]> => seedChunks(store, n);

  it('moves a scattered set into one fresh block in time order and tombstones old copies', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(20);
    const set = [refs[17]!, refs[2]!, refs[9]!, refs[13]!];
    expect((await store.getMany('u', set)).blocksTouched).toBe(4);
    const r = await store.relocate('u', set);
    expect(r).toMatchObject({ moved: 4, blocksBefore: 4, skipped: false });
    const after = await store.getMany('u', set);
    expect(after.blocksTouched).toBe(1);
    expect(after.chunks.map((c) => c!.text)).toEqual([17, 2, 9, 13].map((i) => text(i)));
    const newBlock = [];
    for await (const b of store.blocks()) if (b.origin === 'relocation') newBlock.push(b);
    expect(newBlock.length).toBe(1);
    expect(newBlock[0]!.state).toBe('sealed');
    // Time order inside the new block: slots follow creation order.
    const slots = [];
    for await (const e of store.list('u')) if (e.entry.location?.blockId === newBlock[0]!.blockId) slots.push(e.entry.location.slot);
    expect(slots).toEqual([0, 1, 2, 3]);
    const st = await store.stats();
    expect(st.relocations).toBe(1);
    expect(st.relocatedChunks).toBe(4);
    expect(st.spaceAmplification!).toBeGreaterThan(1);
    expect((await store.verify()).ok).toBe(true);
  });

  it('skips a set that already sits in as few blocks as possible', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(4);
    const r = await store.relocate('u', refs);
    expect(r.skipped).toBe(true);
    expect((await store.stats()).relocations).toBe(0);
  });

  it('keeps concurrent readers consistent while relocations commit', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const refs = await seed(24);
    const reads: Promise<void>[] = [];
    const relocs: Promise<unknown>[] = [];
    for (let round = 0; round < 6; round++) {
      const set = [refs[round]!, refs[round + 8]!, refs[round + 16]!];
      relocs.push(store.relocate('u', set));
      for (let k = 0; k < 4; k++) {
        reads.push(
          store.getMany('u', refs).then((r) => {
            expect(r.chunks.map((c) => c!.text)).toEqual(refs.map((_, i) => text(i)));
          }),
        );
      }
    }
    await Promise.all([...reads, ...relocs]);
    expect((await store.verify()).ok).toBe(true);
  });

  it('races deletes and updates without losing or resurrecting a chunk', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(16);
    const ops: Promise<unknown>[] = [];
    ops.push(store.relocate('u', [refs[0]!, refs[5]!, refs[10]!]));
    ops.push(store.write('u', [{ op: 'delete', ...refs[5]! }]));
    ops.push(store.relocate('u', [refs[1]!, refs[6]!, refs[11]!]));
    ops.push(store.write('u', [{ op: 'update', ...refs[6]!, text: 'updated six' }]));
    await Promise.all(ops);
    expect(await store.get('u', refs[5]!.sessionId, refs[5]!.chunkId)).toBeNull();
    expect((await store.get('u', refs[6]!.sessionId, refs[6]!.chunkId))!.text).toBe('updated six');
    expect((await store.stats()).chunks).toBe(15);
    expect((await store.verify()).ok).toBe(true);
  });
});
