import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { idleCompactions } from '../../src/memattention/internal-seams.js';
import { isAkashicError } from '../../src/errors.js';
import { listAll, memoryStore, ScriptedModel, sentence, tokenizer } from './fixtures.js';

const U = 'alice';
const S = 's1';

describe('the chunk gate', () => {
  let store: AkashicStore;
  let memory: AkashicMemory;
  let model: ScriptedModel;

  beforeEach(async () => {
    ({ store } = await memoryStore());
    model = new ScriptedModel();
    // These tests check which append's gate fired and what it compacted: awaiting write-back.
    memory = new AkashicMemory(store, { model, chunkGateTokens: 60, writeBack: 'await' });
  });

  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  it('counts tokens with the real tokenizer and compacts on the append that reaches τ_c', async () => {
    const texts = ['tea', 'jazz', 'hiking', 'chess', 'sailing', 'pottery', 'cycling'].map((t) => sentence(t));
    let sum = 0;
    let compactedAt = -1;
    for (const [i, text] of texts.entries()) {
      const r = await memory.appendTurn({ user: U, session: S, role: 'user', text });
      sum += tokenizer.count(text);
      if (sum < 60) {
        expect(r.compacted).toBeUndefined();
        expect(r.activeTokens).toBe(sum);
      } else {
        expect(r.compacted).toBeDefined();
        expect(r.compacted!.turnTokens).toBe(sum);
        expect(r.activeTokens).toBe(0);
        compactedAt = i;
        break;
      }
    }
    expect(compactedAt).toBeGreaterThan(0);
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
    const [entry, ...rest] = await listAll(store, U);
    expect(rest).toEqual([]);
    expect(entry!.entry.kind).toBe('memory');
    const chunk = (await store.get(U, entry!.sessionId, entry!.chunkId))!;
    expect(chunk.tokenCount).toBe(tokenizer.count(chunk.text));
    expect(chunk.keywords).toContain('tea');
    expect(chunk.provenance).toHaveLength(compactedAt + 1);
    expect(chunk.attributes['tokenizer']).toBe(tokenizer.name);
  });

  it('keeps turns below the gate durable and in order, with caller turn ids', async () => {
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'hello', turnId: 'u-1', at: 1000 });
    const r = await memory.appendTurn({ user: U, session: S, role: 'assistant', text: 'hi there' });
    expect(r.turnId).toMatch(/^[0-9A-Z]{26}$/);
    const turns = await memory.activeTurns({ user: U, session: S });
    expect(turns.map((t) => [t.turnId, t.role, t.text, t.tokenCount])).toEqual([
      ['u-1', 'user', 'hello', tokenizer.count('hello')],
      [r.turnId, 'assistant', 'hi there', tokenizer.count('hi there')],
    ]);
    expect(turns[0]!.at).toBe(1000);
    expect(await listAll(store, U)).toEqual([]);
  });

  it('endSession compacts a partial active chunk', async () => {
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'my cat is called Miso', turnId: 't1' });
    await memory.appendTurn({ user: U, session: S, role: 'assistant', text: 'nice name', turnId: 't2' });
    const { compacted } = await memory.endSession({ user: U, session: S });
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.turnIds).toEqual(['t1', 't2']);
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
    const chunk = (await store.get(U, S, compacted[0]!.chunk!.chunkId))!;
    expect(chunk.text).toBe('user: my cat is called Miso\nassistant: nice name');
    expect(chunk.provenance).toEqual(['t1', 't2']);
    expect((await memory.endSession({ user: U, session: S })).compacted).toEqual([]);
  });

  it('completeRequest appends all turns in one batch and runs the gate once; without writeback it writes nothing', async () => {
    const none = await memory.completeRequest({ user: U, session: S, enableWriteback: false, turns: [{ role: 'user', text: 'x' }] });
    expect(none).toEqual({ turnIds: [], activeTokens: 0, writtenBack: false });
    const r = await memory.completeRequest({
      user: U,
      session: S,
      turns: [
        { role: 'user', text: sentence('tea', 30), turnId: 'q' },
        { role: 'assistant', text: sentence('jazz', 30), turnId: 'a' },
      ],
    });
    expect(r.writtenBack).toBe(true);
    expect(r.turnIds).toEqual(['q', 'a']);
    expect(r.compacted!.turnIds).toEqual(['q', 'a']);
    expect(model.calls.compress).toHaveLength(1);
  });

  it('rejects bad input before writing anything', async () => {
    const bad = [
      () => memory.appendTurn({ user: '', session: S, role: 'user', text: 'x' }),
      () => memory.appendTurn({ user: U, session: 'a\u0000b', role: 'user', text: 'x' }),
      () => memory.appendTurn({ user: U, session: S, role: '', text: 'x' }),
      () => memory.appendTurn({ user: U, session: S, role: 'user', text: 42 as unknown as string }),
      () => memory.appendTurn({ user: U, session: S, role: 'user', text: 'x', at: -1 }),
      () => memory.completeRequest({ user: U, session: S, turns: [{ role: 'user', text: 'x', turnId: 'd' }, { role: 'user', text: 'y', turnId: 'd' }] }),
    ];
    for (const f of bad) await expect(f()).rejects.toSatisfy((e: unknown) => isAkashicError(e, 'AKASHIC_INVALID_ARGUMENT'));
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
    expect(() => new AkashicMemory(store, { chunkGateTokens: 0 })).toThrowError(/chunkGateTokens/);
    expect(() => new AkashicMemory(store, { reconcileScope: 'world' as 'user' })).toThrowError(/reconcileScope/);
  });

  it('refuses a turn id already in the active chunk', async () => {
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'x', turnId: 'dup' });
    await expect(memory.appendTurn({ user: U, session: S, role: 'user', text: 'y', turnId: 'dup' })).rejects.toSatisfy((e: unknown) =>
      isAkashicError(e, 'AKASHIC_CONFLICT'),
    );
    expect(await memory.activeTurns({ user: U, session: S })).toHaveLength(1);
  });

  it('serializes concurrent appends of one session', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `turn number ${i}`);
    await Promise.all(texts.map((text, i) => memory.appendTurn({ user: U, session: S, role: 'user', text, turnId: `t${i}` })));
    const { compacted } = await memory.endSession({ user: U, session: S });
    const all = [...(await listAll(store, U))];
    const ids = (await store.getMany(U, all.map((e) => ({ sessionId: e.sessionId, chunkId: e.chunkId })))).chunks.flatMap((c) => c!.provenance);
    expect(new Set(ids).size).toBe(20);
    expect(compacted.length).toBeGreaterThanOrEqual(1);
  });
});

describe('idle compaction', () => {
  it('compacts a partial chunk after idleCompactMs without a turn', async () => {
    const { store } = await memoryStore();
    const memory = new AkashicMemory(store, { model: new ScriptedModel(), idleCompactMs: 200 });
    const idle = memory[idleCompactions].next();
    await memory.appendTurn({ user: U, session: S, role: 'user', text: 'remember the milk' });
    expect(await memory.activeTurns({ user: U, session: S })).toHaveLength(1);
    // The idle timer's compaction is an event to wait for, not a state to poll for.
    const compacted = await idle;
    expect(compacted).toHaveLength(1);
    expect(await listAll(store, U)).toHaveLength(1);
    expect(await memory.activeTurns({ user: U, session: S })).toEqual([]);
    await memory.close();
    await store.close();
  });
});
