import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore, MutationResult } from '../../src/index.js';
import { decodeAccounting, encodeAccounting } from '../../src/record/accounting.js';
import { decodeDirEntry, encodeDirEntry } from '../../src/record/dir-entry.js';
import { accountingKey, dirKey } from '../../src/store/kv/keys.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('verify on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  async function seed(n: number): Promise<MutationResult[]> {
    const out: MutationResult[] = [];
    for (let i = 0; i < n; i++) out.push(await store.put('u', { sessionId: 's', text: text(i) }));
    return out;
  }

  it('is clean on a healthy store', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    await seed(10);
    const v = await store.verify();
    expect(v).toMatchObject({ ok: true, problems: [] });
    expect(v.checked.chunks).toBe(10);
    expect(v.checked.blocks).toBe(3);
  });

  it('names a flipped byte in a block frame and never returns the damaged data', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, cacheBytes: 0 });
    const refs = await seed(8);
    const cf = be.raw();
    const loc = decodeDirEntry((await cf.dir.get(dirKey('u', 's', refs[0]!.chunkId)))!, 'test').location!;
    const value = Buffer.from((await be.frames().get(loc.blockId, loc.frame))!);
    value[Math.floor(value.length / 2)]! ^= 0x40;
    await be.frames().put(loc.blockId, loc.frame, value);
    const v = await store.verify();
    expect(v.ok).toBe(false);
    expect(v.problems.some((p) => p.kind === 'block-frame' && p.message.includes('checksum'))).toBe(true);
    // The damaged chunk raises a typed error; undamaged blocks stay readable.
    await expect(store.get('u', 's', refs[0]!.chunkId)).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
    expect((await store.get('u', 's', refs[5]!.chunkId))!.text).toBe(text(5));
  });

  it('names a directory entry pointing at a released block', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4, gc: { intervalMs: 0, threshold: 0.25 } });
    const refs = await seed(8);
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: refs[0]!.chunkId }]);
    await store.gc();
    let released = -1;
    for await (const b of store.blocks({ includeReleased: true })) if (b.state === 'released') released = b.blockId;
    expect(released).toBeGreaterThan(0);
    const key = dirKey('u', 's', refs[6]!.chunkId);
    const e = decodeDirEntry((await be.raw().dir.get(key))!, 'test');
    await be.raw().dir.put(key, encodeDirEntry({ ...e, location: { blockId: released, frame: 0, slot: 1 } }));
    const v = await store.verify();
    expect(v.ok).toBe(false);
    expect(v.problems.some((p) => p.kind === 'dangling-directory-entry' && p.key === key)).toBe(true);
    expect(v.problems.some((p) => p.kind === 'block-counters')).toBe(true);
  });

  it('names a truncated value and block counters that disagree with the directory', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    const refs = await seed(4);
    const key = dirKey('u', 's', refs[1]!.chunkId);
    const raw = (await be.raw().dir.get(key))!;
    await be.raw().dir.put(key, raw.subarray(0, raw.length - 3));
    const v = await store.verify();
    expect(v.problems.some((p) => p.kind === 'directory-entry' && p.key === key)).toBe(true);
    expect(v.problems.some((p) => p.kind === 'block-counters')).toBe(true);
    await expect(store.get('u', 's', refs[1]!.chunkId)).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
  });

  it('names model usage rows it does not know in an accounting record', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    await seed(2);
    const stored = decodeAccounting((await be.raw().alloc.get(accountingKey('u')))!, 'test');
    const row = { kind: 'recall', call: 'select', calls: 1, failedCalls: 2, promptTokens: 3, completionTokens: 1, retries: 0, latencyUs: 5 };
    await be.raw().alloc.put(accountingKey('u'), encodeAccounting({ ...stored, modelUsage: [row] }));
    await store.close();
    store = await be.reopen({ blockCapacity: 4 });
    const v = await store.verify();
    expect(v.problems).toEqual([{ kind: 'accounting', message: 'the model usage in the accounting of "u": recall/select has 2 failed calls of 1' }]);
  });

  it('names accounting that drifted from the blocks', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 4 });
    await seed(3);
    // Drift at rest: the stored accounting says one live byte more; the engine carries it from reopen on.
    const stored = decodeAccounting((await be.raw().alloc.get(accountingKey('u')))!, 'test');
    await be.raw().alloc.put(accountingKey('u'), encodeAccounting({ ...stored, liveBytes: stored.liveBytes + 1 }));
    await store.close();
    store = await be.reopen({ blockCapacity: 4 });
    await store.put('u', { sessionId: 's', text: 'one more' });
    const v = await store.verify();
    expect(v.problems.map((p) => p.kind)).toContain('accounting');
  });
});
