import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AkashicStore, ChunkRef } from '../../src/index.js';
import { frameKey } from '../../src/store/kv/keys.js';
import { BACKENDS, seedChunks, text, type Backend } from '../support/backends.js';

/**
 * A read of chunks in several blocks decompresses the frames of all of them together: it must read exactly what
 * reading each chunk alone reads, and a damaged frame in one block must still be named.
 */
describe.each(BACKENDS)('a read across several blocks on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('reads every subset of chunks, in any order, as reading each chunk alone does (no frame cache)', async () => {
    be = await make();
    // Four chunks a block, no decoded-frame cache: every read decodes the frames it needs.
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const refs = await seedChunks(store, 24);
    const alone = await Promise.all(refs.map(async (r) => (await store.getMany('u', [r])).chunks[0]!));
    expect(alone.map((c) => c.text)).toEqual(refs.map((_, i) => text(i)));
    const located = await store.locate('u', refs);
    const blocks = new Set(located.map((l) => l!.location.blockId));
    expect(blocks.size).toBeGreaterThanOrEqual(6);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: refs.length - 1 }), { minLength: 1, maxLength: 16 }), async (picks) => {
        const set: ChunkRef[] = picks.map((i) => refs[i]!);
        const byRef = await store.getMany('u', set);
        expect(byRef.chunks).toEqual(picks.map((i) => alone[i]));
        expect(byRef.blocksTouched).toBe(new Set(picks.map((i) => located[i]!.location.blockId)).size);
        const bySlot = await store.getManyBySlot('u', picks.map((i) => located[i]!));
        expect(bySlot.chunks).toEqual(byRef.chunks);
      }),
      { numRuns: 40 },
    );
  });

  it('fails with AKASHIC_CORRUPTION naming the damaged frame when one of the blocks read is damaged; the others still read', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const refs = await seedChunks(store, 16);
    const located = (await store.locate('u', refs)).map((l) => l!);
    const damaged = located[9]!.location;
    const frame = (await be.frames().get(damaged.blockId, damaged.frame))!;
    const flipped = Buffer.from(frame);
    flipped[flipped.length - 3]! ^= 0xff;
    await be.frames().put(damaged.blockId, damaged.frame, flipped);
    const across = [refs[0]!, refs[5]!, refs[9]!, refs[14]!];
    expect(new Set(across.map((_, k) => located[[0, 5, 9, 14][k]!]!.location.blockId)).size).toBe(4);
    await expect(store.getMany('u', across)).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION', message: expect.stringContaining(`block frame ${frameKey(damaged.blockId, damaged.frame)}`) });
    const others = [refs[0]!, refs[5]!, refs[14]!];
    expect((await store.getMany('u', others)).chunks.map((c) => c?.text)).toEqual([0, 5, 14].map((i) => text(i)));
  });
});
