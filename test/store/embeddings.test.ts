import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicError, type AkashicStore } from '../../src/index.js';
import { chunkLine, parseChunkLine } from '../../src/admin/dump-format.js';
import { BACKENDS, type Backend } from '../support/backends.js';

const vec = (...xs: number[]): Float32Array => Float32Array.from(xs);

async function entryOf(store: AkashicStore, user: string, chunkId: string) {
  const r = await store.candidates(user, { sessionId: null, kinds: ['memory'], keywords: [], window: 100, prefilter: 0 });
  return r!.entries.find((e) => e.chunkId === chunkId)!.entry;
}

describe.each(BACKENDS)('chunk embeddings on $name', ({ make }) => {
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

  it('stores a vector with the record and its directory entry, and keeps it across a reopen', async () => {
    const v = vec(0.25, -1.5, 3, 1e-3);
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'tea', keywords: ['tea'], embedding: { model: 'm1', vector: v } });
    const plain = await store.put('u', { sessionId: 's', text: 'coffee', keywords: ['coffee'] });
    const r = await store.get('u', 's', chunkId);
    expect(r!.embedding!.model).toBe('m1');
    expect(Array.from(r!.embedding!.vector)).toEqual(Array.from(v));
    expect((await entryOf(store, 'u', chunkId)).embedding?.vector).toEqual(v);
    expect((await store.get('u', 's', plain.chunkId))!.embedding).toBeUndefined();
    expect((await entryOf(store, 'u', plain.chunkId)).embedding).toBeUndefined();
    await store.close();
    store = await be.reopen();
    expect(Array.from((await store.get('u', 's', chunkId))!.embedding!.vector)).toEqual(Array.from(v));
    expect((await store.verify()).ok).toBe(true);
  });

  it('an update of the text without a vector drops the old vector; a new vector replaces it; null removes it', async () => {
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'a', embedding: { model: 'm', vector: [1, 2] } });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId, attributes: { k: 'v' } }]);
    expect((await store.get('u', 's', chunkId))!.embedding?.model).toBe('m');
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'b' }]);
    expect((await store.get('u', 's', chunkId))!.embedding).toBeUndefined();
    expect((await entryOf(store, 'u', chunkId)).embedding).toBeUndefined();
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId, text: 'c', embedding: { model: 'm2', vector: [3] } }]);
    expect((await entryOf(store, 'u', chunkId)).embedding?.model).toBe('m2');
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId, embedding: null }]);
    expect((await store.get('u', 's', chunkId))!.embedding).toBeUndefined();
  });

  it('refuses a bad vector with AKASHIC_INVALID_ARGUMENT and writes nothing', async () => {
    const bad: unknown[] = [
      { model: '', vector: [1] },
      { model: 'm', vector: [] },
      { model: 'm', vector: [1, Number.NaN] },
      { model: 'm', vector: [1e39] },
      { model: 'm', vector: ['1'] },
      { model: 'm', vector: new Array(8193).fill(0) },
      { model: 7, vector: [1] },
      'vector',
    ];
    for (const embedding of bad) {
      const err = await store.put('u', { sessionId: 's', text: 'x', embedding } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AkashicError);
      expect((err as AkashicError).code).toBe('AKASHIC_INVALID_ARGUMENT');
    }
    const listed = [];
    for await (const e of store.list('u')) listed.push(e);
    expect(listed).toEqual([]);
  });

  it('dumps the vector and loads it back byte for byte', async () => {
    const { chunkId } = await store.put('u', { sessionId: 's', text: 'a', embedding: { model: 'm', vector: [0.1, 0.2, -7] } });
    const r = (await store.get('u', 's', chunkId))!;
    const line = chunkLine(r);
    expect(line).toContain('"embedding":{"model":"m","vector":[');
    const parsed = parseChunkLine(line);
    expect(chunkLine(parsed)).toBe(line);
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId }]);
    await store.restore('u', [{ ...parsed, version: 3 }]);
    expect(Array.from((await store.get('u', 's', chunkId))!.embedding!.vector)).toEqual(Array.from(r.embedding!.vector));
  });
});
