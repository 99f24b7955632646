/**
 * A compaction whose reconciliation rewrote a related chunk that someone else changed before the commit (the
 * commit's compare-and-swap lost) reconciles again with the chunk as it is now, instead of failing the caller.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { memoryStore, ScriptedModel } from './fixtures.js';

const U = 'alice';

describe('a related chunk changed under a compaction', () => {
  let store: AkashicStore;
  let model: ScriptedModel;
  let memory: AkashicMemory;

  beforeEach(async () => {
    ({ store } = await memoryStore());
    model = new ScriptedModel();
    memory = new AkashicMemory(store, { model, chunkGateTokens: 10_000 });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function priorChunk(): Promise<{ sessionId: string; chunkId: string }> {
    await memory.appendTurn({ user: U, session: 's1', role: 'user', text: 'I work at Acme', turnId: 't1' });
    const { compacted } = await memory.endSession({ user: U, session: 's1' });
    return compacted[0]!.chunk!;
  }

  it('endSession reconciles again and commits against the current version', async () => {
    const prior = await priorChunk();
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    const seen: string[] = [];
    model.jointHook = async (fresh, related) => {
      seen.push(related[0]!.text);
      // The first time, another writer rewrites the related chunk after the reconciliation read it.
      if (seen.length === 1) await store.write(U, [{ op: 'update', sessionId: prior.sessionId, chunkId: prior.chunkId, text: 'user: I work at Acme (edited elsewhere)' }]);
      return { text: fresh.text, updates: [{ id: related[0]!.id, text: `${related[0]!.text} — then left for Globex` }], deletions: [] };
    };
    await memory.appendTurn({ user: U, session: 's2', role: 'user', text: 'I started at Globex', turnId: 't2' });
    const { compacted } = await memory.endSession({ user: U, session: 's2' });

    expect(seen).toEqual(['user: I work at Acme', 'user: I work at Acme (edited elsewhere)']);
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.updated).toEqual([prior]);
    const now = await store.get(U, prior.sessionId, prior.chunkId);
    expect(now!.text).toBe('user: I work at Acme (edited elsewhere) — then left for Globex');
    expect(now!.version).toBe(3);
    expect(await memory.activeTurns({ user: U, session: 's2' })).toEqual([]);
  });

  it('under constant contention endSession fails with AKASHIC_CONFLICT and applies nothing', async () => {
    const prior = await priorChunk();
    model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
    let calls = 0;
    model.jointHook = async (fresh, related) => {
      calls++;
      await store.write(U, [{ op: 'update', sessionId: prior.sessionId, chunkId: prior.chunkId, text: `user: I work at Acme (edit ${calls})` }]);
      return { text: fresh.text, updates: [{ id: related[0]!.id, text: 'user: I work at Globex' }], deletions: [] };
    };
    await memory.appendTurn({ user: U, session: 's2', role: 'user', text: 'I started at Globex', turnId: 't2' });
    await expect(memory.endSession({ user: U, session: 's2' })).rejects.toMatchObject({ code: 'AKASHIC_CONFLICT' });

    expect(calls).toBeGreaterThan(1);
    expect((await store.get(U, prior.sessionId, prior.chunkId))!.text).toBe(`user: I work at Acme (edit ${calls})`);
    expect((await memory.activeTurns({ user: U, session: 's2' })).map((t) => t.turnId)).toEqual(['t2']);
    let chunks = 0;
    for await (const e of store.list(U)) if (e.sessionId === 's2') chunks++;
    expect(chunks).toBe(0);
  });
});
