import { describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { BACKENDS } from '../support/backends.js';
import { listAll, sentence } from './fixtures.js';

const U = 'alice';
const S = 's1';

describe.each(BACKENDS)('MemAttention on $name', ({ make }) => {
  it('keeps active turns across a restart, compacts at the gate, recalls, and ends the session', async () => {
    const be = await make();
    const store = await be.open();
    const reopen = (): Promise<AkashicStore> => be.reopen();
    const cleanup = (): Promise<void> => be.cleanup();
    try {
      const memory = new AkashicMemory(store, { chunkGateTokens: 60 });
      await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('espresso'), turnId: 't1' });
      await memory.close();
      await store.close();

      const store2 = await reopen();
      const memory2 = new AkashicMemory(store2, { chunkGateTokens: 60 });
      expect((await memory2.activeTurns({ user: U, session: S })).map((t) => t.turnId)).toEqual(['t1']);
      let compactedAt = 0;
      for (let i = 2; compactedAt === 0; i++) {
        const r = await memory2.appendTurn({ user: U, session: S, role: i % 2 === 0 ? 'assistant' : 'user', text: sentence('espresso'), turnId: `t${i}` });
        if (r.compactionScheduled === true) compactedAt = i;
      }
      // The gate fired on that append; its compaction runs in the write-back queue.
      await memory2.flush();
      await memory2.appendTurn({ user: U, session: S, role: 'user', text: 'and a croissant', turnId: 'last' });
      const got = await memory2.recall({ user: U, session: S, query: 'espresso' });
      expect(got.chunks).toHaveLength(1);
      expect(got.chunks[0]!.provenance).toEqual(Array.from({ length: compactedAt }, (_, i) => `t${i + 1}`));
      expect(got.activeTurns.map((t) => t.turnId)).toEqual(['last']);

      const { compacted } = await memory2.endSession({ user: U, session: S });
      expect(compacted.map((c) => c.turnIds)).toEqual([['last']]);
      expect(await listAll(store2, U)).toHaveLength(2);
      expect((await store2.verify()).ok).toBe(true);
      await memory2.close();
      await store2.close();
    } finally {
      await cleanup();
    }
  });
});
