/**
 * The engine on a partitioned backend (a real test double at the storage boundary: memory-level that refuses a
 * batch spanning partitions and, with fencing, checks and bumps a version per partition, as the Redis backend does):
 * every batch the engine writes lies in one user's partition (group commits of several users included), and two
 * stores over one backend — two processes sharing one memory — never act on state the other changed: a conflict
 * drops the user's cached state, rereads it and stages the write again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AkashicStore, type ChunkRef } from '../../src/index.js';
import { GLOBAL_PARTITION } from '../../src/store/kv/keys.js';
import { PartitionedMemoryLevel } from '../support/partitioned-memory-level.js';

const USERS = ['ana', 'bo', 'cyd', 'dee', 'eli', 'fay'];
const OPTS = { blockCapacity: 4, gc: { intervalMs: 0 }, postingMergeAt: 4 } as const;

describe('a partitioned backend', () => {
  const open: AkashicStore[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => undefined);
  });

  it('gets one batch per user from a group commit of several users, and only one-partition batches from every path', async () => {
    const db = new PartitionedMemoryLevel({ fencing: false });
    const store = await AkashicStore.open({ db, ...OPTS });
    open.push(store);
    const refs = new Map<string, ChunkRef[]>(USERS.map((u) => [u, []]));
    for (const u of USERS) {
      const r = await store.put(u, { sessionId: 's', text: `${u} base`, keywords: ['base'] });
      refs.get(u)!.push(r);
    }
    db.batches.length = 0;
    // Every write queued in one tick: one group commit holding all six users' writes.
    const results = await Promise.all(USERS.flatMap((u) => [0, 1, 2].map((i) => store.put(u, { sessionId: 's', text: `${u} note ${i}`, keywords: [`k${i}`], ...(i === 0 ? { ttlMs: 1 } : {}) }))));
    results.forEach((r, i) => refs.get(USERS[Math.floor(i / 3)]!)!.push(r));
    const perUser = new Map<string, number>();
    for (const b of db.batches) {
      expect(b.partitions).toHaveLength(1);
      perUser.set(b.partitions[0]!, (perUser.get(b.partitions[0]!) ?? 0) + 1);
    }
    // The first write may commit alone; the writes queued behind it commit as one group: at most two batches per
    // user for its three writes, and no batch holds two users.
    for (const u of USERS) expect(perUser.get(u)).toBeGreaterThanOrEqual(1);
    for (const u of USERS) expect(perUser.get(u)).toBeLessThanOrEqual(2);

    // Every other write path: updates, deletes, relocation, co-access, expiry sweep, GC, purge, close.
    for (const u of USERS) {
      const mine = refs.get(u)!;
      // mine: base, the expiring note, two more notes.
      await store.write(u, [{ op: 'update', sessionId: 's', chunkId: mine[2]!.chunkId, text: `${u} updated` }, { op: 'delete', sessionId: 's', chunkId: mine[3]!.chunkId }]);
      await store.relocate(u, [mine[0]!, mine[2]!]);
      await store.recordCoAccess(u, [mine[0]!, mine[2]!]);
    }
    await new Promise((r) => setTimeout(r, 5));
    expect((await store.sweepExpired()).expired).toBe(USERS.length);
    await store.gc({ threshold: 0.1 });
    await store.purge({ user: 'fay' });
    await store.purge({ user: 'eli', session: 's' });
    expect((await store.verify()).problems).toEqual([]);
    await store.close();
    open.length = 0;
    for (const b of db.batches) expect(b.partitions).toHaveLength(1);
    const written = new Set(db.batches.map((b) => b.partitions[0]));
    for (const u of USERS) expect(written.has(u)).toBe(true);
    // The global partition is written only by the allocator (a range of block ids at a time) and at open.
    expect(db.batches.filter((b) => b.partitions[0] === GLOBAL_PARTITION).length).toBeLessThanOrEqual(2);
  });

  it('two stores over one fenced backend: a write on state the other changed conflicts, rereads and retries', async () => {
    const db = new PartitionedMemoryLevel({ fencing: true });
    const a = await AkashicStore.open({ db, ...OPTS });
    const b = await AkashicStore.open({ db, ...OPTS });
    open.push(a, b);
    // a caches u's open block (one slot), b appends to that block behind a's back, then a writes again.
    const first = await a.put('u', { sessionId: 's', text: 'from a, first' });
    const second = await b.put('u', { sessionId: 's', text: 'from b' });
    // a sees u's version moved before it stages (or its fenced batch conflicts): it drops its cache and rereads.
    const third = await a.put('u', { sessionId: 's', text: 'from a, second' });
    for (const s of [a, b]) {
      const read = await s.getMany('u', [first, second, third].map((r) => ({ sessionId: r.sessionId, chunkId: r.chunkId })));
      expect(read.chunks.map((c) => c?.text)).toEqual(['from a, first', 'from b', 'from a, second']);
      expect((await s.verify()).problems).toEqual([]);
    }
  });

  it('without fencing the same interleaving loses a write: what the fence prevents', async () => {
    const db = new PartitionedMemoryLevel({ fencing: false });
    const a = await AkashicStore.open({ db, ...OPTS });
    const b = await AkashicStore.open({ db, ...OPTS });
    open.push(a, b);
    await a.put('u', { sessionId: 's', text: 'from a, first' });
    await b.put('u', { sessionId: 's', text: 'from b' });
    await a.put('u', { sessionId: 's', text: 'from a, second' });
    expect((await a.verify()).ok).toBe(false);
  });

  it('two stores writing the same users at once: no lost update, no duplicate chunk, verify clean', async () => {
    const db = new PartitionedMemoryLevel({ fencing: true });
    const stores = [await AkashicStore.open({ db, ...OPTS }), await AkashicStore.open({ db, ...OPTS })];
    open.push(...stores);
    const users = USERS.slice(0, 3);
    const shared = new Map<string, ChunkRef>();
    for (const u of users) shared.set(u, await stores[0]!.put(u, { sessionId: 's', text: `${u} counter` }));
    const updates = new Map<string, number>(users.map((u) => [u, 0]));
    const puts: Promise<ChunkRef>[] = [];
    const ups: Promise<unknown>[] = [];
    for (let round = 0; round < 12; round++) {
      for (const [i, s] of stores.entries()) {
        for (const u of users) {
          puts.push(s.put(u, { sessionId: `s${round % 2}`, text: `${u} round ${round} from ${i}`, keywords: [`r${round}`] }));
          const c = shared.get(u)!;
          ups.push(s.write(u, [{ op: 'update', sessionId: c.sessionId, chunkId: c.chunkId, text: `${u} counter ${round}/${i}` }]).then(() => updates.set(u, updates.get(u)! + 1)));
        }
      }
    }
    const written = await Promise.all(puts);
    await Promise.all(ups);
    expect(db.conflicts).toBeGreaterThan(0);
    expect(new Set(written.map((r) => r.chunkId)).size).toBe(written.length);
    for (const u of users) {
      // Every acknowledged update is one version: none was lost to a stale read of the version.
      const c = shared.get(u)!;
      expect((await stores[1]!.get(u, c.sessionId, c.chunkId))!.version).toBe(1 + updates.get(u)!);
      const listed: string[] = [];
      for await (const e of stores[1]!.list(u)) listed.push(e.chunkId);
      expect(listed).toHaveLength(1 + 24);
      expect(new Set(listed).size).toBe(listed.length);
    }
    for (const s of stores) expect((await s.verify()).problems).toEqual([]);
  });
});
