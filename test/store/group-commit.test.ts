import { afterEach, describe, expect, it } from 'vitest';
import { AkashicError, type AkashicStore, type MutationResult } from '../../src/index.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('group commit on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('coalesces concurrent writes of one user into one frame, each acknowledged with its own result', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 64, durability: 'sync' });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.put('u', { sessionId: 's', text: text(i), keywords: [`k${i}`] })));
    expect(new Set(results.map((r) => r.chunkId)).size).toBe(12);
    const blocks = [];
    for await (const b of store.blocks()) blocks.push(b);
    // The first write commits alone; the eleven queued behind it commit as one group, so one frame.
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.frameSlots.length).toBeLessThanOrEqual(2);
    expect(blocks[0]!.frameSlots.reduce((a, b) => a + b, 0)).toBe(12);
    const read = await store.getMany('u', results.map((r) => ({ sessionId: r.sessionId, chunkId: r.chunkId })));
    expect(read.chunks.map((c) => c!.text)).toEqual(results.map((_, i) => text(i)));
  });

  it('fails a bad write alone: the others of its group commit, it changes nothing', async () => {
    be = await make();
    store = await be.open({ blockCapacity: 8 });
    const base = await store.put('u0', { sessionId: 's', text: 'base', keywords: ['base'] });
    const calls: Promise<MutationResult[]>[] = [];
    for (let i = 0; i < 40; i++) {
      const user = `u${i % 5}`;
      if (i % 10 === 3) {
        // Atomic multi-op write whose last op fails: its puts must not land.
        calls.push(store.write('u0', [
          { op: 'put', sessionId: 's', text: `doomed ${i}`, keywords: ['doomed'] },
          { op: 'update', sessionId: 's', chunkId: base.chunkId, expectVersion: 99, text: 'never' },
        ]));
      } else if (i % 10 === 7) {
        calls.push(store.write(user, [{ op: 'delete', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }]));
      } else {
        calls.push(store.write(user, [{ op: 'put', sessionId: 's', text: `ok ${i}`, keywords: ['ok', `n${i}`] }]));
      }
    }
    const settled = await Promise.allSettled(calls);
    settled.forEach((s, i) => {
      if (i % 10 === 3) expect(s.status === 'rejected' && (s.reason as AkashicError).code).toBe('AKASHIC_CONFLICT');
      else if (i % 10 === 7) expect(s.status === 'rejected' && (s.reason as AkashicError).code).toBe('AKASHIC_NOT_FOUND');
      else expect(s.status).toBe('fulfilled');
    });
    await store.close();
    store = await be.reopen();
    const texts = new Map<string, string[]>();
    for (let u = 0; u < 5; u++) {
      const list = [];
      for await (const e of store.list(`u${u}`)) list.push(e);
      const read = await store.getMany(`u${u}`, list.map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })));
      texts.set(`u${u}`, read.chunks.map((c) => c!.text));
    }
    const all = [...texts.values()].flat();
    expect(all.filter((t) => t.startsWith('ok '))).toHaveLength(32);
    expect(all.some((t) => t.startsWith('doomed'))).toBe(false);
    expect((await store.get('u0', 's', base.chunkId))!.version).toBe(1);
    expect((await store.verify()).problems).toEqual([]);
    // Per-user order of the acknowledged puts is the call order.
    for (const [u, ts] of texts) {
      const mine = ts.filter((t) => t.startsWith('ok ')).map((t) => Number(t.slice(3)));
      expect(mine, u).toEqual([...mine].sort((a, b) => a - b));
    }
  });

  it('applies concurrent writes to one chunk in call order (compare-and-swap sees the earlier one)', async () => {
    be = await make();
    store = await be.open();
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'v1' });
    const [a, b, c] = await Promise.allSettled([
      store.write('u', [{ op: 'update', sessionId: 's', chunkId, expectVersion: 1, text: 'v2' }]),
      store.write('u', [{ op: 'update', sessionId: 's', chunkId, expectVersion: 1, text: 'lost' }]),
      store.write('u', [{ op: 'update', sessionId: 's', chunkId, expectVersion: 2, text: 'v3' }]),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(b.status === 'rejected' && (b.reason as AkashicError).code).toBe('AKASHIC_CONFLICT');
    expect(c.status).toBe('fulfilled');
    expect((await store.get('u', 's', chunkId))!.text).toBe('v3');
    expect((await store.verify()).problems).toEqual([]);
  });
});
