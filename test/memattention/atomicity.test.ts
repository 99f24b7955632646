import { afterEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { isAkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { TEST_ENGINE } from '../support/test-engine.js';
import { classicStore, listAll, memoryStore, ScriptedModel, sentence } from './fixtures.js';

const U = 'alice';
const S = 's1';

/** A session with one prior memory chunk and a gate that the next long turn crosses. */
async function withPriorChunk(store: AkashicStore, model: ScriptedModel): Promise<{ memory: AkashicMemory; prior: string }> {
  // The append's own compaction outcome (compactionError) is what these tests check: awaiting write-back.
  const memory = new AkashicMemory(store, { model, chunkGateTokens: 40, writeBack: 'await' });
  await memory.appendTurn({ user: U, session: S, role: 'user', text: 'I drink green tea every morning', turnId: 'p1' });
  const { compacted } = await memory.endSession({ user: U, session: S });
  model.selectHook = async (_q, candidates) => candidates.map((c) => c.id);
  return { memory, prior: compacted[0]!.chunk!.chunkId };
}

async function expectUnchanged(store: AkashicStore, memory: AkashicMemory, prior: string, turnIds: string[]): Promise<void> {
  const live = await listAll(store, U);
  expect(live.map((e) => e.chunkId)).toEqual([prior]);
  expect(live[0]!.entry.version).toBe(1);
  expect((await memory.activeTurns({ user: U, session: S })).map((t) => t.turnId)).toEqual(turnIds);
}

describe('compaction is all or nothing', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('a model whose jointCompact throws writes no chunk and keeps the active turns; the next gate retries them', async () => {
    const { store } = await memoryStore();
    const model = new ScriptedModel();
    const { memory, prior } = await withPriorChunk(store, model);
    cleanups.push(async () => {
      await memory.close();
      await store.close();
    });
    let fail = true;
    model.jointHook = async (fresh) => {
      if (fail) throw new Error('LLM timed out');
      return { text: fresh.text, updates: [], deletions: [] };
    };
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('tea', 40), turnId: 'x1' });
    expect(r.compacted).toBeUndefined();
    expect(isAkashicError(r.compactionError, 'AKASHIC_MODEL')).toBe(true);
    expect(r.compactionError!.cause).toBeInstanceOf(Error);
    await expectUnchanged(store, memory, prior, ['x1']);
    await expect(memory.endSession({ user: U, session: S })).rejects.toSatisfy((e: unknown) => isAkashicError(e, 'AKASHIC_MODEL'));
    await expectUnchanged(store, memory, prior, ['x1']);

    fail = false;
    const again = await memory.appendTurn({ user: U, session: S, role: 'user', text: 'and oolong', turnId: 'x2' });
    // The backlog already crossed the gate on its own: the shortest such prefix is consumed, the rest stays.
    expect(again.compacted!.turnIds).toEqual(['x1']);
    expect((await memory.activeTurns({ user: U, session: S })).map((t) => t.turnId)).toEqual(['x2']);
  });

  it('a model answer outside the contract (an id it was not given) applies nothing', async () => {
    const { store } = await memoryStore();
    const model = new ScriptedModel();
    const { memory, prior } = await withPriorChunk(store, model);
    cleanups.push(async () => {
      await memory.close();
      await store.close();
    });
    model.jointHook = async (fresh, related) => ({ text: fresh.text, updates: [], deletions: [related[0]!.id, 's1\u0000NOTACHUNK'] });
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('tea', 40), turnId: 'x1' });
    expect(isAkashicError(r.compactionError, 'AKASHIC_MODEL')).toBe(true);
    await expectUnchanged(store, memory, prior, ['x1']);
  });

  it('a prior chunk changed during joint compaction makes the batch lose its compare-and-swap', async () => {
    const { store } = await memoryStore();
    const model = new ScriptedModel();
    const { memory, prior } = await withPriorChunk(store, model);
    cleanups.push(async () => {
      await memory.close();
      await store.close();
    });
    // Edited again before every commit: the compaction reconciles again a few times, then gives up.
    let edits = 0;
    model.jointHook = async (fresh, related) => {
      await store.write(U, [{ op: 'update', sessionId: S, chunkId: prior, text: `edited by someone else (${++edits})` }]);
      return { text: fresh.text, updates: [], deletions: [related[0]!.id] };
    };
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('tea', 40), turnId: 'x1' });
    expect(isAkashicError(r.compactionError, 'AKASHIC_CONFLICT')).toBe(true);
    expect(edits).toBeGreaterThan(1);
    const live = await listAll(store, U);
    expect(live.map((e) => [e.chunkId, e.entry.version])).toEqual([[prior, 1 + edits]]);
    expect((await memory.activeTurns({ user: U, session: S })).map((t) => t.turnId)).toEqual(['x1']);
  });

  it(`a store closed mid-way (${TEST_ENGINE}) leaves the reopened store as before`, async () => {
    const { store, reopen } = await memoryStore();
    const model = new ScriptedModel();
    const { memory, prior } = await withPriorChunk(store, model);
    model.jointHook = async (fresh) => {
      await store.close();
      return { text: fresh.text, updates: [], deletions: [] };
    };
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('tea', 40), turnId: 'x1' });
    expect(isAkashicError(r.compactionError, 'AKASHIC_NOT_OPEN')).toBe(true);
    await memory.close();
    const again = await reopen();
    const memory2 = new AkashicMemory(again, { model: new ScriptedModel(), chunkGateTokens: 40, writeBack: 'await' });
    cleanups.push(async () => {
      await memory2.close();
      await again.close();
    });
    await expectUnchanged(again, memory2, prior, ['x1']);
  });

  // The on-disk variant runs in the default tier; under AKASHIC_TEST_ENGINE=redis the test above covers Redis.
  it.skipIf(TEST_ENGINE === 'redis')('a store closed mid-way (classic-level on disk) leaves the reopened store as before', async () => {
    const { store, reopen, cleanup } = await classicStore();
    const model = new ScriptedModel();
    const { memory, prior } = await withPriorChunk(store, model);
    model.jointHook = async (fresh) => {
      await store.close();
      return { text: fresh.text, updates: [], deletions: [] };
    };
    const r = await memory.appendTurn({ user: U, session: S, role: 'user', text: sentence('tea', 40), turnId: 'x1' });
    expect(isAkashicError(r.compactionError, 'AKASHIC_NOT_OPEN')).toBe(true);
    await expect(memory.appendTurn({ user: U, session: S, role: 'user', text: 'y' })).rejects.toSatisfy((e: unknown) => isAkashicError(e, 'AKASHIC_NOT_OPEN'));
    await memory.close();
    const again = await reopen();
    const memory2 = new AkashicMemory(again, { model: new ScriptedModel(), chunkGateTokens: 40, writeBack: 'await' });
    cleanups.push(async () => {
      await memory2.close();
      await again.close();
      await cleanup();
    });
    await expectUnchanged(again, memory2, prior, ['x1']);
    expect((await again.verify()).ok).toBe(true);
    const { compacted } = await memory2.endSession({ user: U, session: S });
    expect(compacted[0]!.turnIds).toEqual(['x1']);
  });
});
