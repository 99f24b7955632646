import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, type AkashicStore } from '../../src/index.js';
import { BACKENDS, type Backend } from '../support/backends.js';

async function listed(store: AkashicStore, user: string, opts: Parameters<AkashicStore['list']>[1] = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(user, opts)) out.push(`${e.entry.state === 'live' ? '' : 'x'}${e.chunkId}@${e.entry.version}${e.superseded === undefined ? '' : `~${e.superseded.cause}`}`);
  return out;
}

describe.each(BACKENDS)('explicit supersession on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let clock = 5_000_000;
  const now = (): number => clock;
  beforeEach(async () => {
    clock = 5_000_000;
    be = await make();
    store = await be.open({ now });
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('a put naming a chunk in supersedes retires it: gone from get and list, kept in history and includeSuperseded', async () => {
    const old = await store.put('bob', { sessionId: 's1', kind: 'memory', text: 'Bob works at Acme as an engineer.' });
    const keep = await store.put('bob', { sessionId: 's1', kind: 'memory', text: 'Bob has a dog called Rex.' });
    clock += 1000;
    const fresh = await store.put('bob', { sessionId: 's2', kind: 'memory', text: 'Bob started at Globex.', supersedes: [{ sessionId: 's1', chunkId: old.chunkId }] });

    expect(await store.get('bob', 's1', old.chunkId)).toBeNull();
    expect((await store.get('bob', 's1', keep.chunkId))?.text).toBe('Bob has a dog called Rex.');
    expect(await listed(store, 'bob')).toEqual([`${keep.chunkId}@1`, `${fresh.chunkId}@1`]);
    // The retired version is listed as a superseded version, exactly as an update's old version is.
    expect(await listed(store, 'bob', { includeSuperseded: true })).toEqual([`${old.chunkId}@1~delete`, `${keep.chunkId}@1`, `${fresh.chunkId}@1`]);
    const h = await store.history('bob', 's1', old.chunkId);
    expect(h).toHaveLength(1);
    expect(h[0]!.record.text).toBe('Bob works at Acme as an engineer.');
    expect(h[0]!.cause).toBe('delete');
    expect(h[0]!.validUntil).toBe(clock);
    expect(h[0]!.supersededBy).toEqual({ userId: 'bob', sessionId: 's2', chunkId: fresh.chunkId });
    // The superseding chunk keeps its reference.
    expect((await store.get('bob', 's2', fresh.chunkId))!.supersedes).toEqual([{ userId: 'bob', sessionId: 's1', chunkId: old.chunkId }]);
    expect((await store.verify()).ok).toBe(true);
  });

  it('an update naming chunks in supersedes retires them in the same write; missing or already gone ones are kept as references', async () => {
    const a = await store.put('u', { sessionId: 's', kind: 'memory', text: 'lives in Boston' });
    const b = await store.put('u', { sessionId: 's', kind: 'memory', text: 'commutes by bus in Boston' });
    const gone = await store.put('u', { sessionId: 's', kind: 'memory', text: 'deleted already' });
    await store.write('u', [{ op: 'delete', sessionId: 's', chunkId: gone.chunkId }]);
    const c = await store.put('u', { sessionId: 's', kind: 'memory', text: 'home notes' });
    clock += 10;
    const [res] = await store.write('u', [{ op: 'update', sessionId: 's', chunkId: c.chunkId, text: 'home is Seattle now', supersedes: [a.chunkId, b.chunkId, gone.chunkId, '01ARZ3NDEKTSV4RRFFQ69G5FAV'] }]);
    // The write's result answers its own mutation only.
    expect(res).toMatchObject({ op: 'update', chunkId: c.chunkId, version: 2 });
    expect(await listed(store, 'u')).toEqual([`${c.chunkId}@2`]);
    for (const x of [a, b]) {
      const h = await store.history('u', 's', x.chunkId);
      expect(h.map((v) => [v.cause, v.supersededBy?.chunkId])).toEqual([['delete', c.chunkId]]);
    }
    // The chunk deleted before keeps the cause of its own delete (no superseding chunk).
    expect((await store.history('u', 's', gone.chunkId)).map((v) => [v.cause, v.supersededBy])).toEqual([['delete', null]]);
    expect((await store.stats()).historyVersions).toBe(4);
  });

  it('a chunk both named in supersedes and deleted by the same write is deleted once', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'old' });
    const [put, del] = await store.write('u', [
      { op: 'put', sessionId: 's', text: 'new', supersedes: [a.chunkId] },
      { op: 'delete', sessionId: 's', chunkId: a.chunkId },
    ]);
    expect(put!.op).toBe('put');
    expect(del).toMatchObject({ op: 'delete', chunkId: a.chunkId, version: 1 });
    expect(await store.get('u', 's', a.chunkId)).toBeNull();
    expect(await store.history('u', 's', a.chunkId)).toHaveLength(1);
  });

  it('recall leaves a retired chunk out and returns the one that superseded it', async () => {
    const memory = new AkashicMemory(store);
    try {
      const old = await store.put('bob', { sessionId: 's1', kind: 'memory', text: 'user: Bob works at Acme in the sales team.', keywords: ['bob', 'works', 'acme', 'sales', 'team'] });
      clock += 1000;
      await store.put('bob', { sessionId: 's2', kind: 'memory', text: 'user: Bob now works at Globex in the sales team.', keywords: ['bob', 'works', 'globex', 'sales', 'team'], supersedes: [{ sessionId: 's1', chunkId: old.chunkId }] });
      const r = await memory.recall({ user: 'bob', session: 's3', scope: 'user', query: 'Where does Bob work?' });
      expect(r.text).toContain('Globex');
      expect(r.text).not.toContain('Acme');
      const withOld = await memory.recall({ user: 'bob', session: 's3', scope: 'user', query: 'Where does Bob work?', includeSuperseded: true });
      expect(withOld.chunks.some((c) => c.chunkId === old.chunkId && c.superseded !== undefined)).toBe(true);
    } finally {
      await memory.close();
    }
  });
});
