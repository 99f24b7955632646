import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AkashicStore, type ChunkRef } from '../../src/index.js';
import { PartitionedMemoryLevel } from '../support/partitioned-memory-level.js';
import { CO_ACCESS_FLUSH_EVERY } from '../../src/store/write/co-access-buffer.js';
import { BACKENDS, type Backend } from '../support/backends.js';

/** Co-access keys persisted in the column family. */
async function persistedCoAccessKeys(be: Backend): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of be.raw().coaccess.keys()) keys.push(k);
  return keys;
}

describe.each(BACKENDS)('co-access counted in memory, persisted in batches, on $name', ({ make }) => {
  let be: Backend;
  let store: AkashicStore;
  let refs: { sessionId: string; chunkId: string }[];
  beforeEach(async () => {
    be = await make();
    store = await be.open({});
    refs = [];
    for (const s of ['s1', 's2']) for (let i = 0; i < 2; i++) refs.push({ sessionId: s, chunkId: (await store.put('u', { sessionId: s, text: `${s} chunk ${i}` })).chunkId });
  });
  afterEach(async () => {
    await store.close();
    await be.cleanup();
  });

  it('reports buffered observations at once, writes nothing until a batch is full, and persists them at close', async () => {
    await store.recordCoAccess('u', refs.slice(0, 3));
    await store.recordCoAccess('u', refs.slice(0, 2));
    expect(await persistedCoAccessKeys(be)).toEqual([]);
    const [a, b, c] = refs.map((r) => `${r.sessionId}\u0000${r.chunkId}`);
    const seen = await store.coAccess('u', refs);
    expect(seen.accesses.get(a!)).toBe(2);
    expect(seen.accesses.get(c!)).toBe(1);
    expect(seen.pairs.get(`${a}\u0000${b}`)).toBe(2);
    expect((await store.coAccess('u')).pairs.get(`${a}\u0000${c}`)).toBe(1);
    await store.close();
    store = await be.reopen({});
    const after = await store.coAccess('u');
    expect(after.accesses.get(a!)).toBe(2);
    expect(after.pairs.get(`${a}\u0000${b}`)).toBe(2);
  });

  it('merges a batch of recurring observations into one write per counter', async () => {
    for (let i = 0; i < CO_ACCESS_FLUSH_EVERY; i++) await store.recordCoAccess('u', refs.slice(0, 2));
    // Two access counters and one pair, each written once with the merged count.
    expect(await persistedCoAccessKeys(be)).toHaveLength(3);
    const [a, b] = refs.map((r) => `${r.sessionId}\u0000${r.chunkId}`);
    expect((await store.coAccess('u', refs)).pairs.get(`${a}\u0000${b}`)).toBe(CO_ACCESS_FLUSH_EVERY);
  });

  it('a purge discards buffered counts of its scope, so they never reach the disk', async () => {
    await store.recordCoAccess('u', refs);
    const r = await store.purge({ user: 'u', session: 's1' });
    expect(r.coAccessEntries).toBeGreaterThan(0);
    await store.close();
    store = await be.reopen({});
    const left = await store.coAccess('u');
    for (const id of [...left.accesses.keys(), ...left.pairs.keys()]) expect(id.includes('s1')).toBe(false);
    expect(left.accesses.size).toBe(2);
    expect((await persistedCoAccessKeys(be)).some((k) => k.includes('s1'))).toBe(false);
  });
});

describe('co-access flushed while other writers keep changing a user (a fenced, partitioned backend)', () => {
  it('keeps that user\'s counts for the next flush, writes the other users\', and never lets a count go backwards', async () => {
    const db = new PartitionedMemoryLevel({ fencing: true });
    const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    try {
      const refsOf = async (u: string): Promise<ChunkRef[]> => [
        await store.put(u, { sessionId: 's', text: `${u} one` }),
        await store.put(u, { sessionId: 's', text: `${u} two` }),
      ].map((r) => ({ sessionId: r.sessionId, chunkId: r.chunkId }));
      const alice = await refsOf('alice');
      const bob = await refsOf('bob');
      const pair = (r: ChunkRef[]): string => `${r[0]!.sessionId}\u0000${r[0]!.chunkId}\u0000${r[1]!.sessionId}\u0000${r[1]!.chunkId}`;
      db.refuseFenced.add('alice');
      const refusedBefore = db.conflicts;
      // One batch's worth of observations, alternating users: the last one flushes, and alice's batch is refused.
      for (let i = 0; i < CO_ACCESS_FLUSH_EVERY; i++) await store.recordCoAccess(i % 2 === 0 ? 'alice' : 'bob', i % 2 === 0 ? alice : bob);
      expect(db.conflicts).toBeGreaterThan(refusedBefore);
      const half = CO_ACCESS_FLUSH_EVERY / 2;
      expect((await store.coAccess('alice')).pairs.get(pair(alice))).toBe(half);
      expect((await store.coAccess('bob')).pairs.get(pair(bob))).toBe(half);

      // Once the contention ends, the next flush writes alice's kept counts with the new ones.
      db.refuseFenced.delete('alice');
      for (let i = 0; i < CO_ACCESS_FLUSH_EVERY; i++) await store.recordCoAccess('alice', alice);
      expect((await store.coAccess('alice')).pairs.get(pair(alice))).toBe(half + CO_ACCESS_FLUSH_EVERY);
      // Persisted, not only buffered: a second store over the same backend (another process) reads them.
      const other = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
      expect((await other.coAccess('alice')).pairs.get(pair(alice))).toBe(half + CO_ACCESS_FLUSH_EVERY);
      expect((await other.coAccess('bob')).pairs.get(pair(bob))).toBe(half);
      await other.close();
    } finally {
      await store.close();
    }
  });
});

describe('co-access counted by one process for a user another process purges (a shared, fenced backend)', () => {
  /** Every stored key of the co-access family that names the user. */
  async function coAccessKeysOf(db: PartitionedMemoryLevel, userId: string): Promise<string[]> {
    const out: string[] = [];
    for await (const k of db.keys()) if (String(k).startsWith('!coacc!') && String(k).includes(`\u0000${userId}\u0000`)) out.push(String(k));
    return out;
  }

  it.each<[string, (u: string) => { user: string; session?: string }]>([
    ['the whole user', (u) => ({ user: u })],
    ['one session', (u) => ({ user: u, session: 'gone' })],
  ])('writes none of the purged chunks\' buffered counts afterwards (purge of %s)', async (_what, scope) => {
    const db = new PartitionedMemoryLevel({ fencing: true });
    const counter = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    const purger = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    try {
      const put = async (u: string, s: string, text: string): Promise<ChunkRef> => {
        const r = await counter.put(u, { sessionId: s, text });
        return { sessionId: r.sessionId, chunkId: r.chunkId };
      };
      const gone = [await put('alice', 'gone', 'one'), await put('alice', 'gone', 'two')];
      const kept = [await put('alice', 'kept', 'three'), await put('alice', 'kept', 'four')];
      const bob = [await put('bob', 's', 'five'), await put('bob', 's', 'six')];
      // The counting process buffers observations of both sessions (and of another user) …
      await counter.recordCoAccess('alice', gone);
      await counter.recordCoAccess('alice', [gone[0]!, kept[0]!]);
      await counter.recordCoAccess('alice', kept);
      await counter.recordCoAccess('bob', bob);
      // … the other process purges, then the counting process flushes what it buffered.
      const s = scope('alice');
      await purger.purge(s);
      // Four observations so far: this many more fills the batch, and the last one flushes it.
      for (let i = 0; i < CO_ACCESS_FLUSH_EVERY - 4; i++) await counter.recordCoAccess('bob', bob);
      expect(await coAccessKeysOf(db, 'bob')).toHaveLength(3); // flushed: bob's two access counts and his pair

      const left = await coAccessKeysOf(db, 'alice');
      if (s.session === undefined) expect(left).toEqual([]);
      else {
        // Only the kept session's counters remain: its two access counts and its pair.
        expect(left.some((k) => k.includes('gone'))).toBe(false);
        expect(left).toHaveLength(3);
      }
      // The other user's counts were written in the same flush.
      expect([...(await purger.coAccess('bob')).pairs.values()]).toEqual([CO_ACCESS_FLUSH_EVERY - 3]);
    } finally {
      await purger.close();
      await counter.close();
    }
  });
});
