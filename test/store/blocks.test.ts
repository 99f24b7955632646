import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore, BlockListing, MutationResult } from '../../src/index.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

async function allBlocks(store: AkashicStore, userId?: string): Promise<BlockListing[]> {
  const out: BlockListing[] = [];
  for await (const b of store.blocks(userId === undefined ? {} : { userId })) out.push(b);
  return out;
}

describe.each(BACKENDS)('blocks on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('fills a block to capacity, seals it and opens the next', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    for (let i = 0; i < 10; i++) await store.put('u', { sessionId: 's', text: text(i) });
    const blocks = await allBlocks(store);
    expect(blocks.map((b) => b.state)).toEqual(['sealed', 'sealed', 'open']);
    expect(blocks.map((b) => b.frameSlots.reduce((a, n) => a + n, 0))).toEqual([4, 4, 2]);
    expect(blocks.every((b) => b.origin === 'append')).toBe(true);
  });

  it('never puts two users in one block', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 8 });
    for (let i = 0; i < 20; i++) await store.put(i % 2 === 0 ? 'alice' : 'bob', { sessionId: 's', text: text(i) });
    const blocks = await allBlocks(store);
    for (const b of blocks) {
      const ids = [];
      for await (const e of store.list(b.userId)) if (e.entry.location?.blockId === b.blockId) ids.push(e);
      expect(ids.length).toBe(b.liveSlots);
    }
    expect(new Set(blocks.map((b) => b.userId))).toEqual(new Set(['alice', 'bob']));
    expect((await store.verify()).ok).toBe(true);
  });

  it('keeps sessions apart when crossSessionBlocks is off', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 8, crossSessionBlocks: false });
    for (let i = 0; i < 12; i++) await store.put('u', { sessionId: `s${i % 3}`, text: text(i) });
    const blocks = await allBlocks(store);
    expect(blocks.length).toBe(3);
    expect(blocks.map((b) => b.sessionId).sort()).toEqual(['s0', 's1', 's2']);
  });

  it('mixes sessions of one user by default', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 8 });
    for (let i = 0; i < 8; i++) await store.put('u', { sessionId: `s${i % 3}`, text: text(i) });
    const blocks = await allBlocks(store);
    expect(blocks.length).toBe(1);
    expect(blocks[0]!.sessionId).toBe('');
  });

  it('reads a set touching each block once, and counts cache misses', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const refs: MutationResult[] = [];
    for (let i = 0; i < 16; i++) refs.push(await store.put('u', { sessionId: 's', text: text(i) }));
    // Chunks 0,1 (block 1), 5 (block 2), 8, 9, 10 (block 3): three blocks.
    const want = [0, 1, 5, 8, 9, 10].map((i) => ({ sessionId: 's', chunkId: refs[i]!.chunkId }));
    const r = await store.getMany('u', want);
    expect(r.blocksTouched).toBe(3);
    expect(r.chunks.map((c) => c!.text)).toEqual([0, 1, 5, 8, 9, 10].map((i) => text(i)));
    expect(r.bytesRead).toBeGreaterThan(0);
    // Each chunk was appended alone, so each slot is its own frame: frames read = chunks read.
    expect(r.framesRead).toBe(6);
  });

  it('serves repeated reads from the decoded-block cache', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs: MutationResult[] = [];
    for (let i = 0; i < 8; i++) refs.push(await store.put('u', { sessionId: 's', text: text(i) }));
    const want = refs.map((r) => ({ sessionId: 's', chunkId: r.chunkId }));
    const first = await store.getMany('u', want);
    const second = await store.getMany('u', want);
    expect(first.framesRead).toBe(8);
    expect(second.framesRead).toBe(0);
    expect(second.blocksTouched).toBe(2);
  });

  it('packs a multi-chunk write into one frame', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 16 });
    await store.write('u', [0, 1, 2, 3, 4].map((i) => ({ op: 'put' as const, sessionId: 's', text: text(i) })));
    const [b] = await allBlocks(store);
    expect(b!.frameSlots).toEqual([5]);
  });
});
