import { describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { MemoryOptions } from '../../src/memattention/options.js';
import { memoryStore, ScriptedModel } from './fixtures.js';

const U = 'alice';
const S = 's1';
const TOPICS = ['tea', 'jazz', 'hiking', 'chess'];

/**
 * Twelve chunks written in one batch into blocks of 4 slots: chunk i lands in block ⌊i/4⌋, so the three chunks of
 * each topic (i ≡ t mod 4) sit in three different blocks.
 */
async function scattered(options: MemoryOptions): Promise<{ store: AkashicStore; memory: AkashicMemory }> {
  const { store } = await memoryStore({ blockCapacity: 4 });
  await store.write(
    U,
    Array.from({ length: 12 }, (_, i) => {
      const topic = TOPICS[i % 4]!;
      return { op: 'put' as const, sessionId: S, kind: 'memory' as const, text: `${topic} memory ${i}`, keywords: [topic, `n${i}`], tokenCount: 4, createdAt: 1_000 + i };
    }),
  );
  return { store, memory: new AkashicMemory(store, { relocateSync: true, relocateMinRecurrence: 1, ...options }) };
}

describe('online relocation after recall', () => {
  it('moves a set only once requests have materialized it together relocateMinRecurrence times', async () => {
    const { store, memory } = await scattered({ relocateEveryRecalls: 1, relocateMinRecurrence: 3 });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push((await memory.recall({ user: U, session: S, query: 'tea' })).relocation);
    expect(outcomes[0]).toEqual({ status: 'skipped', reason: 'not-recurring' });
    expect(outcomes[1]).toEqual({ status: 'skipped', reason: 'not-recurring' });
    expect(outcomes[2]).toEqual({ status: 'ran', groups: 1, moved: 3 });
    expect((await store.stats()).relocations).toBe(1);
    // Recurring set now co-located: the next identical recall reads one block.
    const again = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(again.blocksTouched).toBe(1);
  });

  it('relocates what a recall materialized together, so the same recall then touches fewer blocks', async () => {
    const { store, memory } = await scattered({ relocateEveryRecalls: 1 });
    const first = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(first.chunks.map((c) => c.text)).toEqual(['tea memory 0', 'tea memory 4', 'tea memory 8']);
    expect(first.blocksTouched).toBe(3);
    expect(first.relocation).toEqual({ status: 'ran', groups: 1, moved: 3 });

    const second = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(second.chunks.map((c) => c.chunkId)).toEqual(first.chunks.map((c) => c.chunkId));
    expect(second.blocksTouched).toBe(1);
    expect(second.relocation).toEqual({ status: 'skipped', reason: 'colocated' });
    expect((await store.stats()).relocations).toBe(1);
    expect((await store.verify()).ok).toBe(true);
    await memory.close();
    await store.close();
  });

  it('passes COLOCATE the metadata and co-access of the materialized chunks and τ_assoc', async () => {
    const model = new ScriptedModel();
    const { store, memory } = await scattered({ model, relocateEveryRecalls: 1, tauAssoc: 0.9 });
    const r = await memory.recall({ user: U, session: S, query: 'jazz' });
    expect(r.relocation).toEqual({ status: 'ran', groups: 1, moved: 3 });
    expect(model.calls.colocate).toHaveLength(1);
    expect(model.calls.colocate[0]!.map((c) => c.keywords[0])).toEqual(['jazz', 'jazz', 'jazz']);
    await memory.close();
    await store.close();
  });

  it('is rate limited per user: one COLOCATE per relocateEveryRecalls recalls', async () => {
    const model = new ScriptedModel();
    const { store, memory } = await scattered({ model, relocateEveryRecalls: 3 });
    const outcomes = [];
    for (const q of ['tea', 'jazz', 'hiking', 'chess']) outcomes.push((await memory.recall({ user: U, session: S, query: q })).relocation.status);
    expect(outcomes).toEqual(['ran', 'skipped', 'skipped', 'ran']);
    expect(model.calls.colocate).toHaveLength(2);
    await memory.close();
    await store.close();
  });

  it('runs in the background by default and can be switched off', async () => {
    const { store, memory } = await scattered({ relocateSync: false, relocateEveryRecalls: 1 });
    const r = await memory.recall({ user: U, session: S, query: 'tea' });
    expect(r.relocation).toEqual({ status: 'scheduled' });
    await memory.close(); // waits for background work
    const after = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    const again = await after.recall({ user: U, session: S, query: 'tea' });
    expect(again.blocksTouched).toBe(1);
    expect(again.relocation).toEqual({ status: 'skipped', reason: 'disabled' });
    await after.close();
    await store.close();
  });

  it('reports background failures to onBackgroundError', async () => {
    const errors: unknown[] = [];
    const model = new ScriptedModel();
    model.colocate = async () => {
      throw new Error('model down');
    };
    const { store, memory } = await scattered({ model, relocateSync: false, relocateEveryRecalls: 1, onBackgroundError: (e) => errors.push(e) });
    await memory.recall({ user: U, session: S, query: 'tea' });
    await memory.close();
    expect(errors).toHaveLength(1);
    expect((errors[0] as { code?: string }).code).toBe('AKASHIC_MODEL');
    await store.close();
  });
});
