import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicError, type AkashicStore } from '../../src/index.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

describe.each(BACKENDS)('chunks on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  beforeEach(async () => {
    be = await make();
    store = await be.open();
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('puts and gets a chunk with every field', async () => {
    const payload = new Uint8Array([0, 1, 2, 255, 254]);
    const r = await store.put('alice', {
      sessionId: 's1',
      kind: 'memory',
      text: 'Alice likes green tea 🍵',
      tokenCount: 7,
      keywords: ['alice', 'tea'],
      attributes: { source: 'chat', lang: 'en' },
      payload,
      provenance: ['t1', 't2'],
    });
    expect(r.version).toBe(1);
    const c = await store.get('alice', 's1', r.chunkId);
    expect(c).not.toBeNull();
    expect(c!.text).toBe('Alice likes green tea 🍵');
    expect(c!.keywords).toEqual(['alice', 'tea']);
    expect(c!.attributes).toEqual({ lang: 'en', source: 'chat' });
    expect([...c!.payload!]).toEqual([...payload]);
    expect(c!.provenance).toEqual(['t1', 't2']);
    expect(c!.userId).toBe('alice');
    expect(c!.tokenCount).toBe(7);
  });

  it('generates monotonic ULIDs so key order is time order', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await store.put('u', { sessionId: 's', text: text(i) })).chunkId);
    expect([...ids].sort()).toEqual(ids);
    const listed: string[] = [];
    for await (const e of store.list('u', { sessionId: 's' })) listed.push(e.chunkId);
    expect(listed).toEqual(ids);
  });

  it('updates out of place with versions and compare-and-swap', async () => {
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'v1', keywords: ['a'] });
    const [u] = await store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'v2', expectVersion: 1 }]);
    expect(u!.version).toBe(2);
    const c = await store.get('u', 's', chunkId);
    expect(c!.text).toBe('v2');
    expect(c!.keywords).toEqual(['a']);
    await expect(store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'v3', expectVersion: 1 }])).rejects.toMatchObject({ code: 'AKASHIC_CONFLICT' });
    expect((await store.get('u', 's', chunkId))!.text).toBe('v2');
  });

  it('deletes leave a tombstone and the chunk is gone', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'a' });
    const b = await store.put('u', { sessionId: 's', text: 'b' });
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: a.chunkId, supersededBy: b.chunkId }]);
    expect(await store.get('u', 's', a.chunkId)).toBeNull();
    const all = [];
    for await (const e of store.list('u', { includeDeleted: true })) all.push(e);
    expect(all.map((e) => e.entry.state)).toEqual(['deleted', 'live']);
    expect(all[0]!.entry.supersededBy).toEqual({ sessionId: 's', chunkId: b.chunkId });
    const st = await store.stats();
    expect(st.chunks).toBe(1);
    expect(st.deletedChunks).toBe(1);
  });

  it('applies a multi-op write atomically: one bad op changes nothing', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'a' });
    const before = await store.stats();
    await expect(
      store.write('u', [
        { op: 'put', sessionId: 's', text: 'new' },
        { op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'changed' },
        { op: 'delete', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      ]),
    ).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
    expect(await store.stats()).toEqual(before);
    expect((await store.get('u', 's', a.chunkId))!.text).toBe('a');
    expect((await store.verify()).ok).toBe(true);
  });

  it('rejects invalid ids and content with typed errors and changes nothing', async () => {
    await store.put('u', { sessionId: 's', text: 'keep' });
    const before = await store.stats();
    const bad: [string, () => Promise<unknown>][] = [
      ['empty user', () => store.put('', { sessionId: 's', text: 'x' })],
      ['separator in user', () => store.put('a\u0000b', { sessionId: 's', text: 'x' })],
      ['control char in session', () => store.put('u', { sessionId: 's\n', text: 'x' })],
      ['too long user', () => store.put('x'.repeat(300), { sessionId: 's', text: 'x' })],
      ['lone surrogate', () => store.put('u', { sessionId: 's', text: 'bad \ud800 text' })],
      ['non-string text', () => store.put('u', { sessionId: 's', text: 42 as unknown as string })],
      ['huge payload', () => store.put('u', { sessionId: 's', text: 'x', payload: new Uint8Array(5 * 1024 * 1024) })],
      ['bad chunk id', () => store.get('u', 's', 'not-a-ulid')],
      ['bad kind', () => store.put('u', { sessionId: 's', text: 'x', kind: 'weird' as 'memory' })],
      ['negative tokens', () => store.put('u', { sessionId: 's', text: 'x', tokenCount: -1 })],
      ['update of nothing', () => store.write('u', [{ op: 'update', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }])],
    ];
    for (const [name, fn] of bad) {
      let err: unknown;
      try {
        await fn();
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeInstanceOf(AkashicError);
      expect((err as AkashicError).code, name).toBe('AKASHIC_INVALID_ARGUMENT');
    }
    expect(await store.stats()).toEqual(before);
  });

  it('reopens with everything intact, accounting included', async () => {
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await store.put('u', { sessionId: `s${i % 3}`, text: text(i) }));
    const before = await store.stats();
    await store.close();
    expect(store.status).toBe('closed');
    await expect(store.get('u', 's0', ids[0]!.chunkId)).rejects.toMatchObject({ code: 'AKASHIC_NOT_OPEN' });
    store = await be.reopen();
    const after = await store.stats();
    // Conflicts retried are counted per process since open (a reopen starts from 0).
    expect({ ...after, diskBytes: 0, conflictsRetried: 0 }).toEqual({ ...before, diskBytes: 0, conflictsRetried: 0 });
    for (const [i, r] of ids.entries()) expect((await store.get('u', r.sessionId, r.chunkId))!.text).toBe(text(i));
    // New ids after reopen still sort after the old ones.
    const next = await store.put('u', { sessionId: 's0', text: 'later' });
    expect(next.chunkId > ids[ids.length - 3]!.chunkId).toBe(true);
    expect((await store.verify()).ok).toBe(true);
  });

  it('lists users and sessions without confusing prefixes', async () => {
    await store.put('a', { sessionId: 's', text: 'x' });
    await store.put('ab', { sessionId: 's', text: 'y' });
    await store.put('a', { sessionId: 's2', text: 'z' });
    expect(await store.users()).toEqual(['a', 'ab']);
    expect(await store.sessions('a')).toEqual(['s', 's2']);
    const a = [];
    for await (const e of store.list('a')) a.push(e.userId);
    expect(a).toEqual(['a', 'a']);
  });

  it('keeps the layout settings the database was created with, and persists read counters at close', async () => {
    await store.close();
    store = await be.reopen({ blockCapacity: 5, crossSessionBlocks: false });
    const r = await store.put('u', { sessionId: 's', text: 'x', attributes: { ['__proto__']: 'kept', a: 'b' } });
    expect(Object.keys((await store.get('u', 's', r.chunkId))!.attributes).sort()).toEqual(['__proto__', 'a']);
    await store.close();
    store = await be.reopen();
    expect(store.options.blockCapacity).toBe(5);
    expect(store.options.crossSessionBlocks).toBe(false);
    expect((await store.stats()).retrievals).toBe(1);
  });
});
