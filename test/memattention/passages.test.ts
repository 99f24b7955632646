import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { fitToBudget, splitChunk } from '../../src/memattention/passages.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { memoryStore, tokenizer } from './fixtures.js';

const U = 'alice';
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 2, 1);

/** Filler that shares no word with the questions below. */
const FILLER = [
  'The weather was grey all afternoon and the bus came late.',
  'I finished a long novel about sailors on the northern sea.',
  'My neighbour keeps practising scales on an old trumpet.',
  'We argued for an hour about which pizza topping is best.',
  'The printer at the office jammed three times before lunch.',
  'I repainted the fence in a pale shade of blue.',
];

describe("passage recall (recallUnit 'passage': whole turns)", () => {
  let store: AkashicStore;
  let memory: AkashicMemory;

  beforeEach(async () => {
    ({ store } = await memoryStore());
    memory = new AkashicMemory(store, { model: new EmbeddedModel({ denseSignal: false }), relocateEveryRecalls: 0, recallScope: 'user', recallUnit: 'passage' });
  });

  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  async function session(id: string, day: number, lines: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, text] of lines.entries()) {
      const turnId = `${id}-t${i}`;
      ids.push(turnId);
      await memory.appendTurn({ user: U, session: id, role: i % 2 === 0 ? 'Alice' : 'Bob', text, at: T0 + day * DAY + i * 1000, turnId });
    }
    await memory.endSession({ user: U, session: id });
    return ids;
  }

  it('fills a small budget with the matching turns, their neighbours and the date line, in time order', async () => {
    const s1 = await session('s1', 0, [...FILLER, 'I adopted a greyhound called Biscuit from the shelter.', ...FILLER]);
    const s2 = await session('s2', 5, [...FILLER, 'Biscuit learned to open the fridge door, the clever greyhound.', ...FILLER]);
    const budget = 80;
    const r = await memory.recall({ user: U, session: 's3', query: 'What is the name of the greyhound?', memoryBudgetTokens: budget });

    expect(r.tokenCount).toBeLessThanOrEqual(budget);
    expect(r.tokenCount).toBe(tokenizer.count(r.text));
    // Both evidence turns reach the text although each chunk alone is larger than the budget.
    for (const c of r.chunks) expect(c.tokenCount).toBeGreaterThan(budget / 2);
    const turnIds = r.passages.flatMap((p) => p.turnIds);
    expect(turnIds).toContain(s1[FILLER.length]);
    expect(turnIds).toContain(s2[FILLER.length]);
    expect(r.text).toContain('Alice: I adopted a greyhound called Biscuit');
    // Each chunk's date line comes before its passages, and the older chunk comes first.
    expect(r.text.indexOf('[2024-03-01]')).toBeLessThan(r.text.indexOf('adopted'));
    expect(r.text.indexOf('adopted')).toBeLessThan(r.text.indexOf('[2024-03-06]'));
    expect(r.text.indexOf('[2024-03-06]')).toBeLessThan(r.text.indexOf('fridge'));
    // Passages carry their provenance and the text is exactly theirs, grouped per chunk.
    for (const p of r.passages) {
      expect(p.turnIds).toHaveLength(1);
      expect(r.text).toContain(p.text);
      expect(r.chunks.map((c) => c.chunkId)).toContain(p.chunkId);
    }
  });

  it("'chunk' takes whole chunks, and a budget smaller than any chunk then recalls nothing", async () => {
    const chunkMemory = new AkashicMemory(store, { model: new EmbeddedModel({ denseSignal: false }), relocateEveryRecalls: 0, recallScope: 'user', recallUnit: 'chunk' });
    try {
      await session('s1', 0, [...FILLER, 'I adopted a greyhound called Biscuit from the shelter.', ...FILLER]);
      const whole = await chunkMemory.recall({ user: U, session: 's3', query: 'greyhound', memoryBudgetTokens: 1536 });
      expect(whole.chunks).toHaveLength(1);
      expect(whole.text).toBe(whole.chunks[0]?.text);
      expect(whole.passages[0]?.turnIds).toEqual(whole.chunks[0]?.provenance);
      const none = await chunkMemory.recall({ user: U, session: 's3', query: 'greyhound', memoryBudgetTokens: 40 });
      expect(none.text).toBe('');
      const passages = await memory.recall({ user: U, session: 's3', query: 'greyhound', memoryBudgetTokens: 40 });
      expect(passages.text).toContain('greyhound');
    } finally {
      await chunkMemory.close();
    }
  });

  it('recalls a chunk whose text is not one line per turn whole, attributed to all its turns', async () => {
    const [written] = await store.write(U, [
      {
        op: 'put',
        sessionId: 'old',
        kind: 'memory',
        text: 'Summary: Alice adopted a greyhound.\nShe named it Biscuit.\nIt likes the park.',
        keywords: ['greyhound', 'biscuit'],
        tokenCount: 20,
        createdAt: T0,
        provenance: ['a', 'b'],
      },
    ]);
    const r = await memory.recall({ user: U, session: 's3', query: 'greyhound' });
    expect(r.chunks.map((c) => c.chunkId)).toEqual([written?.chunkId]);
    expect(r.passages).toHaveLength(1);
    expect(r.passages[0]?.turnIds).toEqual(['a', 'b']);
    expect(r.text).toBe('Summary: Alice adopted a greyhound.\nShe named it Biscuit.\nIt likes the park.');
  });

  it('rejects an unknown recallUnit', () => {
    expect(() => new AkashicMemory(store, { recallUnit: 'word' as never })).toThrow(/recallUnit/);
  });
});

describe('fitToBudget (the exact-count correction both recall units share)', () => {
  // A tokenizer whose count of a joined text exceeds the sum of its parts' counts (one token per character), so the
  // greedy estimate can be over and the exact count must trim.
  const perChar = { name: 'per-char', count: (text: string) => text.length };
  const render = (keep: readonly string[]) => ({ chunks: [], passages: [], text: keep.join(' | ') });

  it('drops the lowest-ranked items until the exact count fits, keeping rank order', () => {
    const out = fitToBudget(['alpha', 'beta', 'gamma', 'delta'], render, perChar, 14);
    expect(out.text).toBe('alpha | beta');
    expect(out.tokenCount).toBe(12);
  });

  it('keeps everything when it already fits, and renders nothing when not even the best item fits', () => {
    const kept = ['alpha', 'beta'];
    expect(fitToBudget(kept, render, perChar, 100)).toEqual({ chunks: [], passages: [], text: 'alpha | beta', tokenCount: 12 });
    expect(kept).toEqual(['alpha', 'beta']);
    expect(fitToBudget(kept, render, perChar, 3)).toEqual({ chunks: [], passages: [], text: '', tokenCount: 0 });
  });
});

describe('splitChunk (the turns of a chunk)', () => {
  it('splits a chunk with a turn of several lines into its turns, each run of lines opened by its `role: ` line', () => {
    const text = '[2024-03-01]\nAlice: My list:\n- eggs\n\n- greyhound food\nBob: Noted.\nAlice: Thanks!\n';
    const s = splitChunk({ text, provenance: ['a', 'b', 'c'] });
    expect(s.aligned).toBe(true);
    expect(s.header).toBe('[2024-03-01]');
    expect(s.passages).toEqual([
      { text: 'Alice: My list:\n- eggs\n\n- greyhound food', turnIds: ['a'] },
      { text: 'Bob: Noted.', turnIds: ['b'] },
      { text: 'Alice: Thanks!', turnIds: ['c'] },
    ]);
  });

  it('keeps the chunk one passage when a continuation line looks like a turn start (never a wrong attribution)', () => {
    const text = 'Alice: Two quotes:\nBob: hello\nBob: Nice.';
    const s = splitChunk({ text, provenance: ['a', 'b'] });
    expect(s.aligned).toBe(false);
    expect(s.passages).toEqual([{ text, turnIds: ['a', 'b'] }]);
  });
});
