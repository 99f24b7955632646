/**
 * A write staged while another process commits the same user: staging reads the user in several commands
 * (directory entry, then the block info it points to), and a commit landing between them (here a purge that
 * removes the block) must make the write be staged again from fresh reads — answering as the store now is
 * (AKASHIC_NOT_FOUND) — never reject it with what looks like damage. Two stores over one partitioned, fenced
 * backend (the Redis backend's rules, in memory) stand for two processes.
 */
import { describe, expect, it } from 'vitest';
import { AkashicStore } from '../../src/index.js';
import { CF, blockInfoKey } from '../../src/store/kv/keys.js';
import { PartitionedMemoryLevel } from '../support/partitioned-memory-level.js';

/** The backend with a one-shot hook run just before a read of one key (another process acting at that moment). */
class InterleavingLevel extends PartitionedMemoryLevel {
  hook: { readonly needle: string; readonly run: () => Promise<void> } | null = null;

  async _get(key: string, options: unknown): Promise<Buffer | undefined> {
    const h = this.hook;
    if (h !== null && String(key).startsWith(`!${CF.blockInfo}!`) && String(key).endsWith(h.needle)) {
      this.hook = null;
      await h.run();
    }
    return (PartitionedMemoryLevel.prototype as unknown as { _get: (k: string, o: unknown) => Promise<Buffer | undefined> })._get.call(this, key, options);
  }
}

describe('a write staged while another process commits the user', () => {
  it('is staged again from fresh reads instead of failing as damage', async () => {
    const db = new InterleavingLevel({ fencing: true });
    const opts = { blockCapacity: 4, gc: { intervalMs: 0 } } as const;
    const a = await AkashicStore.open({ db, ...opts });
    const b = await AkashicStore.open({ db, ...opts });
    try {
      const c = await a.put('ada', { sessionId: 's', text: 'the harbor light is violet' });
      // Seal the block so that A's staging reads its info from the store, not from its open-block cache.
      for (let i = 0; i < 4; i++) await b.put('ada', { sessionId: 's', text: `filler ${i}` });
      const blockId = (await a.locate('ada', [c]))[0]!.location.blockId;
      // Between A's directory read and its block-info read, B purges the user.
      db.hook = { needle: blockInfoKey('ada', blockId), run: async () => void (await b.purge({ user: 'ada' })) };
      await expect(a.write('ada', [{ op: 'delete', sessionId: 's', chunkId: c.chunkId }])).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
      expect(db.hook).toBeNull(); // the interleaving happened
      expect((await a.verify()).problems).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('tells a user emptied and written again from an untouched one: an empty partition\'s version repeats', async () => {
    const db = new InterleavingLevel({ fencing: true });
    const opts = { blockCapacity: 4, gc: { intervalMs: 0 } } as const;
    const a = await AkashicStore.open({ db, ...opts });
    const b = await AkashicStore.open({ db, ...opts });
    try {
      // A reads the user while it holds nothing (an empty partition's version) and keeps that state.
      await expect(a.write('ada', [{ op: 'delete', sessionId: 's', chunkId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }])).rejects.toMatchObject({ code: 'AKASHIC_NOT_FOUND' });
      expect(await db.partitionVersion('ada')).toBe('0');
      // B fills the user: an open block A knows nothing of.
      const c = await b.put('ada', { sessionId: 's', text: 'the harbor light is violet' });
      const blockId = (await b.locate('ada', [c]))[0]!.location.blockId;
      // A's put reads B's open-block ref, then B purges the user before A reads that block's info: the partition
      // is empty again, as when A read it, yet it changed in between.
      db.hook = { needle: blockInfoKey('ada', blockId), run: async () => void (await b.purge({ user: 'ada' })) };
      const d = await a.put('ada', { sessionId: 's', text: 'the lamp is amber' });
      expect(db.hook).toBeNull(); // the interleaving happened
      expect(await a.get('ada', 's', d.chunkId)).not.toBeNull();
      expect(await a.get('ada', 's', c.chunkId)).toBeNull();
      expect((await a.verify()).problems).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reports damage that is still there after one attempt from fresh reads, and applies nothing', async () => {
    const db = new InterleavingLevel({ fencing: true });
    const opts = { blockCapacity: 4, gc: { intervalMs: 0 } } as const;
    const a = await AkashicStore.open({ db, ...opts });
    try {
      const c = await a.put('ada', { sessionId: 's', text: 'the harbor light is violet' });
      for (let i = 0; i < 4; i++) await a.put('ada', { sessionId: 's', text: `filler ${i}` });
      const blockId = (await a.locate('ada', [c]))[0]!.location.blockId;
      // The block's info vanishes underneath, the user's version untouched: damage, not another process's commit.
      let reads = 0;
      const lost = async (): Promise<void> => {
        reads++;
        await db.sublevel(CF.blockInfo).del(blockInfoKey('ada', blockId));
        db.hook = { needle: blockInfoKey('ada', blockId), run: lost };
      };
      db.hook = { needle: blockInfoKey('ada', blockId), run: lost };
      await expect(a.write('ada', [{ op: 'delete', sessionId: 's', chunkId: c.chunkId }])).rejects.toMatchObject({ code: 'AKASHIC_CORRUPTION' });
      db.hook = null;
      expect(reads).toBe(2); // the first attempt, then one from fresh reads
      expect(await a.get('ada', 's', c.chunkId)).not.toBeNull();
    } finally {
      await a.close();
    }
  });
});
