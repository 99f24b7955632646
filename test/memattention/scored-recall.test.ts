import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { isAkashicError } from '../../src/errors.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import type { RecallUnit } from '../../src/memattention/options.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { memoryStore } from './fixtures.js';

const U = 'alice';
const T0 = Date.UTC(2024, 4, 1);
const CHAT = [
  'Good morning, how was the weekend?',
  'Lovely, thanks for asking, and yours?',
  'Quiet, mostly reading on the sofa.',
  'That sounds nice and restful.',
];

describe.each(['sentence', 'passage', 'chunk'] as RecallUnit[])('scored, lean recall (%s unit)', (unit) => {
  let store: AkashicStore;
  let memory: AkashicMemory;
  beforeEach(async () => {
    ({ store } = await memoryStore());
    memory = new AkashicMemory(store, { model: new EmbeddedModel({ denseSignal: false }), relocateEveryRecalls: 0, recallUnit: unit });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function session(name: string, at: number, texts: readonly string[]): Promise<void> {
    for (const [i, text] of texts.entries()) await memory.appendTurn({ user: U, session: name, role: i % 2 === 0 ? 'Alice' : 'Bob', text, at: at + i * 1000, turnId: `${name}-${i}` });
    await memory.endSession({ user: U, session: name });
  }

  it('every passage carries its score (> 0) and its chunk date; the chit-chat of a small memory is not returned', async () => {
    await session('s1', T0, [...CHAT, 'My violin teacher is called Marta.']);
    await session('s2', T0 + 86_400_000, CHAT);
    const r = await memory.recall({ user: U, session: 'now', query: 'Who is the violin teacher?', memoryBudgetTokens: 10_000 });
    expect(r.passages.length).toBeGreaterThan(0);
    expect(r.text).toContain('Marta');
    for (const p of r.passages) {
      expect(p.score).toBeGreaterThan(0);
      expect(p.createdAt).toBe(r.chunks.find((c) => c.chunkId === p.chunkId)!.createdAt);
    }
    // The session of pure chit-chat matches nothing: it is not recalled at all, though the budget had room.
    expect(r.chunks.map((c) => c.sessionId)).toEqual(['s1']);
  });

  it('a query that matches nothing recalls nothing', async () => {
    await session('s1', T0, CHAT);
    const r = await memory.recall({ user: U, session: 'now', query: 'Which telescope was bought?', memoryBudgetTokens: 10_000 });
    expect(r.passages).toEqual([]);
    expect(r.text).toBe('');
  });

  it('the floor is a share of the best score: 1 keeps only the best-scoring passages, 0 every match', async () => {
    await session('s1', T0, ['My violin teacher is called Marta and she teaches violin on Mondays.', 'I also own a violin case.', ...CHAT]);
    const all = await memory.recall({ user: U, session: 'now', query: 'violin teacher', memoryBudgetTokens: 10_000, relevanceFloor: 0 });
    const top = await memory.recall({ user: U, session: 'now', query: 'violin teacher', memoryBudgetTokens: 10_000, relevanceFloor: 1 });
    const best = Math.max(...all.passages.map((p) => p.score));
    expect(top.passages.length).toBeGreaterThan(0);
    for (const p of top.passages) expect(p.score).toBe(best);
    expect(all.passages.length).toBeGreaterThanOrEqual(top.passages.length);
    if (unit !== 'chunk') expect(all.text).toContain('violin case');
  });

  it.skipIf(unit === 'chunk')('among equally good statements the newer ranks first', async () => {
    // Two chunks whose only match is the same sentence; a budget that holds one of them.
    await session('old', T0, ['Bob drives a red car.']);
    await session('new', T0 + 30 * 86_400_000, ['Bob drives a blue car.']);
    const r = await memory.recall({ user: U, session: 'now', query: 'What car does Bob drive?', memoryBudgetTokens: 20 });
    expect(r.chunks.map((c) => c.sessionId)).toEqual(['new']);
    expect(r.text).toContain('blue');
  });

  it('rejects a floor outside [0, 1], as an option and per recall', async () => {
    expect(() => new AkashicMemory(store, { relevanceFloor: 1.5 })).toThrowError(/relevanceFloor/);
    expect(() => new AkashicMemory(store, { relevanceFloor: Number.NaN })).toThrowError(/relevanceFloor/);
    await expect(memory.recall({ user: U, session: 's', query: 'q', relevanceFloor: -0.1 })).rejects.toSatisfy((e: unknown) => isAkashicError(e, 'AKASHIC_INVALID_ARGUMENT'));
  });
});
