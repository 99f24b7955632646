/**
 * Bounds that used to be missing: versions never wrap (they are u32 on disk: a restore past 2³²−1 is refused, an
 * update at 2³²−1 is refused instead of storing 0), and coAccess() takes a bounded number of refs (its pair lookups
 * grow with the square; 10,000 refs used to exhaust the heap).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, type AkashicStore } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';

const invalid = { name: 'AkashicError', code: 'AKASHIC_INVALID_ARGUMENT' };

describe.each(BACKENDS)('bounds on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('restore refuses a version past 2^32-1; an update at 2^32-1 is refused and changes nothing', async () => {
    be = await make();
    store = await be.open();
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'v1' });
    const record = (await store.get('u', 's', chunkId))!;
    await expect(store.restore('u', [{ ...record, version: 2 ** 32 }])).rejects.toMatchObject(invalid);
    await expect(store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'x', expectVersion: 2 ** 32 }])).rejects.toMatchObject(invalid);
    const top = await store.restore('u', [{ ...record, text: 'at the top', version: LIMITS.version }]);
    expect(top[0]!.version).toBe(2 ** 32 - 1);
    await expect(store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'wrapped' }])).rejects.toMatchObject(invalid);
    const after = (await store.get('u', 's', chunkId))!;
    expect(after.version).toBe(2 ** 32 - 1);
    expect(after.text).toBe('at the top');
    // A stale restore still loses against the stored version.
    const stale = await store.restore('u', [{ ...record, text: 'stale', version: 7 }]);
    expect(stale[0]!.skipped).toBe(true);
    expect((await store.get('u', 's', chunkId))!.text).toBe('at the top');
    expect((await store.verify()).ok).toBe(true);
  });

  it('coAccess refuses more than LIMITS.coAccessRefs refs with a typed error', async () => {
    be = await make();
    store = await be.open();
    const refs = Array.from({ length: 10_000 }, (_, i) => ({ sessionId: 's', chunkId: `01ARZ3NDEKTSV4RRFFQ69G${String(i).padStart(4, '0').replace(/[ILOU]/g, 'A')}` }));
    await expect(store.coAccess('u', refs)).rejects.toMatchObject(invalid);
    const ok = await store.coAccess('u', refs.slice(0, LIMITS.coAccessRefs));
    expect(ok.pairs.size).toBe(0);
  });
});
