import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { sentencesOf } from '../../src/memattention/sentence-passages.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { memoryStore, tokenizer } from './fixtures.js';

const U = 'alice';
const T0 = Date.UTC(2024, 2, 1);
const FILLER = [
  'The weather was grey all afternoon and the bus came late.',
  'I finished a long novel about sailors on the northern sea.',
  'My neighbour keeps practising scales on an old trumpet.',
  'We argued for an hour about which pizza topping is best.',
];

describe('sentence recall (the default recallUnit)', () => {
  let store: AkashicStore;
  let memory: AkashicMemory;
  beforeEach(async () => {
    ({ store } = await memoryStore());
    memory = new AkashicMemory(store, { model: new EmbeddedModel({ denseSignal: false }), relocateEveryRecalls: 0, recallScope: 'user' });
  });
  afterEach(async () => {
    await memory.close();
    await store.close();
  });

  it('splits a turn into sentences', () => {
    expect(sentencesOf('I moved to Lisbon. It is sunny! Is it? "Yes," she said. e.g. this stays')).toEqual([
      'I moved to Lisbon.',
      'It is sunny!',
      'Is it?',
      '"Yes," she said. e.g. this stays',
    ]);
    expect(sentencesOf('no punctuation at all')).toEqual(['no punctuation at all']);
  });

  it('keeps the matching sentence of a long turn and leaves its unrelated sentences out when the budget is tight', async () => {
    const turns = [
      ...FILLER,
      `${FILLER[0]} I adopted a greyhound called Biscuit from the shelter. ${FILLER[1]} ${FILLER[2]}`,
      ...FILLER,
    ];
    for (const [i, text] of turns.entries()) {
      await memory.appendTurn({ user: U, session: 's1', role: i % 2 === 0 ? 'Alice' : 'Bob', text, at: T0 + i * 1000, turnId: `t${i}` });
    }
    await memory.endSession({ user: U, session: 's1' });
    const budget = 40;
    const r = await memory.recall({ user: U, session: 's2', query: 'What is the name of the greyhound?', memoryBudgetTokens: budget });
    expect(r.tokenCount).toBeLessThanOrEqual(budget);
    expect(r.tokenCount).toBe(tokenizer.count(r.text));
    const evidence = r.passages.find((p) => p.turnIds.includes(`t${FILLER.length}`));
    expect(evidence, r.text).toBeDefined();
    // Only the sentence that matches, under its speaker and the chunk's date line; the gap before it marked.
    expect(evidence!.text).toBe('Alice: … I adopted a greyhound called Biscuit from the shelter.');
    expect(r.text.startsWith('[2024-03-01]\n')).toBe(true);
    expect(r.text).not.toContain('practising scales');
    for (const p of r.passages) expect(r.text).toContain(p.text);
    // With room, the matching sentence and those of the turns around it come back, a repeated one (the filler said
    // again and again) only once; the turns that match nothing and answer nothing stay out (the relevance floor).
    const wide = await memory.recall({ user: U, session: 's2', query: 'What is the name of the greyhound?', memoryBudgetTokens: 10_000 });
    expect(wide.text).toContain('I adopted a greyhound called Biscuit from the shelter.');
    for (const f of FILLER) expect(wide.text.split(f).length - 1, f).toBeLessThanOrEqual(1);
    expect(wide.passages.map((p) => p.turnIds[0])).toEqual([`t${FILLER.length - 1}`, `t${FILLER.length}`, `t${FILLER.length + 1}`]);
  });

  it('ranks first what the person the question names said, and never recalls a sentence on the name alone', async () => {
    // Two people with the same hobby: the question names Carol, so her sentence outranks Dave's equal one.
    const turns = [
      'I bake sourdough bread every Sunday morning.',
      'I bake sourdough bread every Sunday evening.',
      ...FILLER,
    ];
    for (const [i, text] of turns.entries()) {
      await memory.appendTurn({ user: U, session: 's1', role: i % 2 === 0 ? 'Dave' : 'Carol', text, at: T0 + i * 1000, turnId: `t${i}` });
    }
    await memory.endSession({ user: U, session: 's1' });
    const tight = await memory.recall({ user: U, session: 's2', query: 'When does Carol bake sourdough bread?', memoryBudgetTokens: 24 });
    expect(tight.passages.map((p) => p.turnIds[0])).toEqual(['t1']);
    const forDave = await memory.recall({ user: U, session: 's2', query: 'When does Dave bake sourdough bread?', memoryBudgetTokens: 24 });
    expect(forDave.passages.map((p) => p.turnIds[0])).toEqual(['t0']);
    // With room, Carol's filler turns (t3, t5: they match only her name, and answer nothing) stay out.
    const wide = await memory.recall({ user: U, session: 's2', query: 'When does Carol bake sourdough bread?', memoryBudgetTokens: 10_000 });
    const scores = new Map(wide.passages.map((p) => [p.turnIds[0], p.score]));
    expect(scores.get('t1')).toBeGreaterThan(scores.get('t0')!);
    expect(wide.text).not.toContain(FILLER[1]);
    expect(wide.text).not.toContain(FILLER[3]);
  });

  it('does not score a speaker\'s name as a word of the sentences: a greeting naming them is not evidence', async () => {
    const turns = ['Thanks so much, Carol! Good night.', 'I bake sourdough bread every Sunday morning.', ...FILLER];
    for (const [i, text] of turns.entries()) {
      await memory.appendTurn({ user: U, session: 's1', role: i % 2 === 0 ? 'Dave' : 'Carol', text, at: T0 + i * 1000, turnId: `t${i}` });
    }
    await memory.endSession({ user: U, session: 's1' });
    const r = await memory.recall({ user: U, session: 's2', query: 'What does Carol bake?', memoryBudgetTokens: 10_000 });
    const scores = new Map(r.passages.map((p) => [p.turnIds[0], p.score]));
    expect(scores.get('t1')).toBeGreaterThan(0);
    // Dave's greeting comes back only as the neighbour of Carol's answer, never on its own match of "Carol".
    expect(scores.get('t0') ?? 0).toBeLessThanOrEqual(0.5 * scores.get('t1')! + 1e-9);
    // A question that is nothing but a name still matches it.
    const only = await memory.recall({ user: U, session: 's2', query: 'Carol', memoryBudgetTokens: 10_000 });
    expect(only.text).toContain('Thanks so much, Carol!');
  });

  it('keeps sentences that differ only in a number: they are different facts, not repeats', async () => {
    const turns = ['The greyhound collar cost 4 euros in March.', 'The greyhound collar cost 9 euros in May.', ...FILLER];
    for (const [i, text] of turns.entries()) {
      await memory.appendTurn({ user: U, session: 's1', role: 'Alice', text, at: T0 + i * 1000, turnId: `t${i}` });
    }
    await memory.endSession({ user: U, session: 's1' });
    const r = await memory.recall({ user: U, session: 's2', query: 'greyhound collar cost', memoryBudgetTokens: 10_000 });
    expect(r.text).toContain('cost 4 euros');
    expect(r.text).toContain('cost 9 euros');
  });

  it('splits a chunk whose turns span several lines into turns and sentences, keeping the line breaks it recalls', async () => {
    const turns = [...FILLER, `Here is my shopping list:\n- bread\n- food for the greyhound called Biscuit\n`, ...FILLER];
    for (const [i, text] of turns.entries()) {
      await memory.appendTurn({ user: U, session: 's1', role: i % 2 === 0 ? 'Alice' : 'Bob', text, at: T0 + i * 1000, turnId: `t${i}` });
    }
    await memory.endSession({ user: U, session: 's1' });
    const r = await memory.recall({ user: U, session: 's2', query: 'What is the name of the greyhound?', memoryBudgetTokens: 40 });
    const evidence = r.passages.find((p) => p.turnIds.includes(`t${FILLER.length}`));
    expect(evidence, r.text).toBeDefined();
    expect(evidence!.turnIds).toEqual([`t${FILLER.length}`]);
    // The matching line, not the whole turn; a line kept with it stays on its own line.
    expect(evidence!.text.startsWith('Alice: … ')).toBe(true);
    expect(evidence!.text.endsWith('\n- food for the greyhound called Biscuit') || evidence!.text === 'Alice: … - food for the greyhound called Biscuit').toBe(true);
    expect(evidence!.text).not.toContain('shopping list');
    expect(r.tokenCount).toBeLessThanOrEqual(40);
    const wide = await memory.recall({ user: U, session: 's2', query: 'Which shopping list had bread and greyhound food?', memoryBudgetTokens: 10_000 });
    expect(wide.text).toContain('Alice: Here is my shopping list:\n- bread\n- food for the greyhound called Biscuit');
    expect(wide.passages.every((p) => p.turnIds.length === 1)).toBe(true);
  });

  it('a question naming a date prefers what was said that day', async () => {
    const days = [
      { session: 'march', at: Date.UTC(2024, 2, 1), fact: 'I cooked pasta for dinner.' },
      { session: 'april', at: Date.UTC(2024, 3, 10), fact: 'I cooked a curry for dinner, a spicy one.' },
    ];
    for (const d of days) {
      for (const [i, text] of [...FILLER, d.fact, ...FILLER].entries()) {
        await memory.appendTurn({ user: U, session: d.session, role: 'Alice', text, at: d.at + i * 1000, turnId: `${d.session}${i}` });
      }
      await memory.endSession({ user: U, session: d.session });
    }
    const budget = 30;
    const plain = await memory.recall({ user: U, session: 'now', query: 'What did Alice cook for dinner?', memoryBudgetTokens: budget });
    expect(plain.text).toContain('pasta');
    expect(plain.text).not.toContain('curry');
    for (const query of ['What did Alice cook for dinner on 10 April, 2024?', 'What did Alice cook for dinner on April 10th 2024?']) {
      const dated = await memory.recall({ user: U, session: 'now', query, memoryBudgetTokens: budget });
      expect(dated.text, query).toContain('[2024-04-10]');
      expect(dated.text, query).toContain('curry');
      expect(dated.text, query).not.toContain('pasta');
    }
  });

  it('recalls a chunk whose text is not one line per turn whole', async () => {
    const text = 'Summary: Alice adopted a greyhound. She named it Biscuit.\nIt likes the park.\nShe walks it daily.';
    await store.write(U, [{ op: 'put', sessionId: 'old', kind: 'memory', text, keywords: ['greyhound'], tokenCount: 20, createdAt: T0, provenance: ['a', 'b'] }]);
    const r = await memory.recall({ user: U, session: 's3', query: 'greyhound' });
    expect(r.passages).toHaveLength(1);
    expect(r.passages[0]?.turnIds).toEqual(['a', 'b']);
    expect(r.text).toBe(text);
  });
});
