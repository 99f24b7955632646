import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { PartitionedMemoryLevel } from '../support/partitioned-memory-level.js';
import { activeTurnLog, modelUsageLedger } from '../../src/engine/internal-seams.js';

/** Every stored key naming the user (between separators, or at the end of a key). */
async function keysNaming(db: MemoryLevel<string, Buffer> | PartitionedMemoryLevel, userId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const k of db.keys()) {
    const key = String(k);
    if (key.includes(`\u0000${userId}\u0000`) || key.endsWith(`\u0000${userId}`) || key.includes(`!${userId}\u0000`)) out.push(key);
  }
  return out;
}

describe('a purged user leaves no key behind when a store that read it closes', () => {
  it('the purging process: its reads counted before the purge are dropped, not written at close', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    const r = await store.put('alice', { sessionId: 's', text: 'alice writes' });
    await store.put('bob', { sessionId: 's', text: 'bob writes' });
    await store.getMany('alice', [{ sessionId: r.sessionId, chunkId: r.chunkId }]);
    await store.getMany('bob', [{ sessionId: 's', chunkId: (await store.put('bob', { sessionId: 's', text: 'again' })).chunkId }]);
    await store.purge({ user: 'alice' });
    await store.close();
    await db.open();
    expect(await keysNaming(db, 'alice')).toEqual([]);
    // The other user's reads are still persisted by the close.
    const again = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    expect((await again.stats()).retrievals).toBeGreaterThan(0);
    await again.close();
  });

  it('another process: reads it counted before another process purged the user, and a late relocation, write nothing', async () => {
    const db = new PartitionedMemoryLevel({ fencing: true });
    const reader = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    const purger = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    const r = await reader.put('alice', { sessionId: 's', text: 'alice writes' });
    await reader.put('bob', { sessionId: 's', text: 'bob writes' });
    await reader.getMany('alice', [{ sessionId: r.sessionId, chunkId: r.chunkId }]);
    await purger.purge({ user: 'alice' });
    expect(await keysNaming(db, 'alice')).toEqual([]);
    // A relocation of the purged chunks (a recall's co-location, late) finds nothing and writes nothing either.
    await reader.relocate('alice', [{ sessionId: r.sessionId, chunkId: r.chunkId }]);
    expect(await keysNaming(db, 'alice')).toEqual([]);
    await reader.close(); // flushes its counters, then closes the shared database
    await db.open();
    expect(await keysNaming(db, 'alice')).toEqual([]);
    expect((await keysNaming(db, 'bob')).length).toBeGreaterThan(0);
  });

  it('a user who was only read, never written, gets no accounting record either', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    expect((await store.getMany('nobody', [{ sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }])).chunks).toEqual([null]);
    await store.close();
    await db.open();
    expect(await keysNaming(db, 'nobody')).toEqual([]);
  });

  it('a user with active turns only (no chunk yet) still has its model usage persisted at close', async () => {
    const db = new MemoryLevel<string, Buffer>({ keyEncoding: 'utf8', valueEncoding: 'buffer' });
    const store = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    await store[activeTurnLog].append('carol', 's', [{ turnId: 't1', role: 'user', text: 'hello', at: 1, tokenCount: 1 }]);
    store[modelUsageLedger].record('recall', 'carol', {
      call: 'select', model: 'scripted', promptTokens: 40, completionTokens: 2, usageSource: 'server', startedAt: 1, latencyMs: 1, retries: 0,
    } as Parameters<AkashicStore[typeof modelUsageLedger]['record']>[2]);
    await store.close();
    const again = await AkashicStore.open({ db, gc: { intervalMs: 0 } });
    expect((await again.stats()).modelUsage.byUser['carol']?.promptTokens).toBe(40);
    await again.close();
  });
});
