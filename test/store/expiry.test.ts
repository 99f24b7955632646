import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicMemory, type AkashicStore } from '../../src/index.js';
import { BACKENDS, text, type Backend } from '../support/backends.js';

async function ids(store: AkashicStore, user: string, opts: { includeExpired?: boolean; includeDeleted?: boolean } = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(user, opts)) out.push(e.chunkId);
  return out;
}

describe.each(BACKENDS)('expiry on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let clock = 1_000_000;
  const now = (): number => clock;
  beforeEach(async () => {
    clock = 1_000_000;
    be = await make();
    store = await be.open({ now, blockCapacity: 4 });
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('hides an expired chunk from get, list and recall before any sweep', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'ephemeral green tea', keywords: ['tea'], ttlMs: 1000 });
    const b = await store.put('u', { sessionId: 's', text: 'permanent green tea', keywords: ['tea'] });
    const c = await store.put('u', { sessionId: 's', text: 'absolute expiry tea', keywords: ['tea'], expiresAt: clock + 5000 });
    expect((await store.get('u', 's', a.chunkId))!.expiresAt).toBe(1_001_000);
    expect(await ids(store, 'u')).toEqual([a.chunkId, b.chunkId, c.chunkId]);
    clock += 1000;
    expect(await store.get('u', 's', a.chunkId)).toBeNull();
    expect(await ids(store, 'u')).toEqual([b.chunkId, c.chunkId]);
    expect(await ids(store, 'u', { includeExpired: true })).toEqual([a.chunkId, b.chunkId, c.chunkId]);
    const memory = new AkashicMemory(store, { chunkGateTokens: 100_000, relocateEveryRecalls: 0 });
    const r = await memory.recall({ user: 'u', session: 's', query: 'tea', topP: 8 });
    expect(r.chunks.map((x) => x.chunkId).sort()).toEqual([b.chunkId, c.chunkId].sort());
    await memory.close();
    // Updating or deleting an expired chunk finds nothing.
    await expect(store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, text: 'back' }])).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
  });

  it('sweeps expired chunks into content-free tombstones, in the background path and by gc()', async () => {
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await store.put('u', { sessionId: 's', text: text(i), keywords: [`k${i}`], ttlMs: 100 * (i + 1) }));
    clock += 350;
    const r = await store.sweepExpired();
    expect(r).toEqual({ expired: 3, stale: 0, more: false });
    const listed = [];
    for await (const e of store.list('u', { includeDeleted: true })) listed.push(e);
    expect(listed.filter((e) => e.entry.state === 'deleted').map((e) => e.chunkId)).toEqual(made.slice(0, 3).map((m) => m.chunkId));
    expect(listed.filter((e) => e.entry.state === 'deleted').every((e) => e.entry.keywords.length === 0)).toBe(true);
    clock += 1000;
    await store.gc({ threshold: 0.01 });
    expect(await ids(store, 'u', { includeExpired: true })).toEqual([]);
    expect((await store.sweepExpired()).expired).toBe(0);
    expect((await store.verify()).problems).toEqual([]);
    const st = await store.stats();
    expect(st.chunks).toBe(0);
  });

  it('updates move or clear the expiry; a store default applies to puts without one', async () => {
    const a = await store.put('u', { sessionId: 's', text: 'x', ttlMs: 100 });
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, expiresAt: null }]);
    clock += 1000;
    expect((await store.get('u', 's', a.chunkId))!.text).toBe('x');
    expect((await store.get('u', 's', a.chunkId))!.expiresAt).toBeUndefined();
    await store.write('u', [{ op: 'update', sessionId: 's', chunkId: a.chunkId, ttlMs: 10, text: 'y' }]);
    expect((await store.get('u', 's', a.chunkId))!.text).toBe('y');
    clock += 10;
    expect(await store.get('u', 's', a.chunkId)).toBeNull();
    expect((await store.sweepExpired()).expired).toBe(1);
    await store.close();
    store = await be.reopen({ now, defaultTtlMs: 500 });
    const b = await store.put('u', { sessionId: 's', text: 'defaulted' });
    expect((await store.get('u', 's', b.chunkId))!.expiresAt).toBe(clock + 500);
    clock += 500;
    expect(await store.get('u', 's', b.chunkId)).toBeNull();
    expect((await store.verify()).problems).toEqual([]);
  });

  it('rejects bad expiry input with a typed error and writes nothing', async () => {
    const bad = [{ ttlMs: 0 }, { ttlMs: -5 }, { ttlMs: 1.5 }, { ttlMs: '10' }, { expiresAt: null }, { expiresAt: Number.NaN }, { ttlMs: 10, expiresAt: 10 }];
    for (const b of bad) {
      await expect(store.put('u', { sessionId: 's', text: 'x', ...(b as object) })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
    }
    expect(await ids(store, 'u', { includeDeleted: true, includeExpired: true })).toEqual([]);
    await expect(store.sweepExpired({ max: 0 })).rejects.toMatchObject({ code: 'AKASHIC_INVALID_ARGUMENT' });
  });

  it('purge removes expiry index entries too', async () => {
    await store.put('u', { sessionId: 's', text: 'x', ttlMs: 100 });
    const r = await store.purge({ user: 'u' });
    expect(r.indexEntries).toBeGreaterThan(0);
    clock += 1000;
    expect(await store.sweepExpired()).toEqual({ expired: 0, stale: 0, more: false });
  });
});

describe('expiry in the dump format', () => {
  it('round-trips expiresAt and leaves it out for permanent chunks', async () => {
    const { chunkLine, parseChunkLine } = await import('../../src/admin/dump-format.js');
    const base = { userId: 'u', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', version: 1, createdAt: 1, updatedAt: 1, tokenCount: 0, kind: 'memory' as const, text: 't', keywords: [], attributes: {}, payload: null, supersedes: [], provenance: [] };
    expect(chunkLine(base)).not.toContain('expiresAt');
    const line = chunkLine({ ...base, expiresAt: 12345 });
    expect(line.endsWith(',"expiresAt":12345}')).toBe(true);
    expect(parseChunkLine(line).expiresAt).toBe(12345);
    expect(chunkLine(parseChunkLine(line))).toBe(line);
    expect(() => parseChunkLine(line.replace('12345', '-1'))).toThrow(/expiresAt/);
  });
});
