import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AkashicStore } from '../../src/engine/akashic-store.js';
import { AkashicMemory } from '../../src/memattention/memory.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { termsOf } from '../../src/model/keywords.js';
import { offlineWordVectors } from '../../src/model/word-vectors.js';
import { memoryStore } from './fixtures.js';

/** A fact said by the user and a question about it that shares no content word with it (checked below). */
const PAIRS: readonly (readonly [fact: string, question: string])[] = [
  ['I moved to Lisbon last week.', 'Where does she live?'],
  ['My daughter just started kindergarten.', 'How old is the child?'],
  ['I adopted a puppy from the shelter.', 'Does she have a pet?'],
  ['I work as a nurse at the city hospital.', 'What is her job?'],
  ['We got married in June.', 'When was the wedding?'],
  ['I play the violin in an orchestra.', 'Which instrument does she practise?'],
  ['My car broke down on the highway.', 'What happened to the vehicle?'],
  ['I am learning Japanese before my trip to Tokyo.', 'Which language is she studying?'],
  ['My brother lives in Canada.', 'Where is her sibling based?'],
  ['I quit smoking two months ago.', 'Did she give up cigarettes?'],
  ['I bought a new laptop yesterday.', 'What computer did she purchase?'],
  ['I jog five miles every morning.', 'What exercise does she do daily?'],
  ['My grandmother passed away in March.', 'Did a relative die?'],
  ['I am reading a novel by Tolstoy.', 'Which book is she into?'],
  ['I planted tomatoes in the garden.', 'What vegetables is she growing?'],
  ['We are expecting a baby in the spring.', 'Is she pregnant?'],
  ['I got promoted to senior engineer.', 'Did her career advance?'],
  ['My favourite band is Radiohead.', 'What music does she enjoy?'],
  ['I broke my leg skiing.', 'Was she injured?'],
  ['I am saving money to buy a house.', 'Is she planning to purchase a home?'],
  ['I take the train to the office.', 'How does she commute to work?'],
  ['My cat is called Whiskers.', 'What is her kitten named?'],
  ['I studied physics at university.', 'What did she major in at college?'],
  ['I have been feeling anxious and cannot sleep.', 'Does she suffer from insomnia or stress?'],
  ['I cooked lasagna for dinner.', 'What meal did she make in the evening?'],
  ['We flew to Paris for our anniversary.', 'Where did the couple travel?'],
  ['I am training for a marathon.', 'Which race is she preparing for?'],
  ['My son plays soccer on Saturdays.', 'What sport does the boy do at weekends?'],
  ['I lost my wallet on the bus.', 'What did she misplace?'],
  ['My doctor said my blood pressure is too high.', 'What did the physician tell her about her health?'],
];

const U = 'alice';
/** Chunks a recall may pick here: 3 of 30, so chance alone would find a tenth. */
const TOP_P = 3;

async function shareRecalled(memory: AkashicMemory, sessions: readonly string[]): Promise<number> {
  let found = 0;
  for (const [i, [, question]] of PAIRS.entries()) {
    const r = await memory.recall({ user: U, session: 'asking', scope: 'user', query: question, topP: TOP_P });
    if (r.passages.some((p) => p.sessionId === sessions[i])) found++;
  }
  return found / PAIRS.length;
}

describe('meaning without shared words (offline default)', () => {
  let store: AkashicStore;
  let dense: AkashicMemory;
  let lexical: AkashicMemory;
  const sessions = PAIRS.map((_, i) => `fact-${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    ({ store } = await memoryStore());
    dense = new AkashicMemory(store, { relocateEveryRecalls: 0 });
    lexical = new AkashicMemory(store, { model: new EmbeddedModel({ denseSignal: false }), relocateEveryRecalls: 0 });
    for (const [i, [fact]] of PAIRS.entries()) {
      await dense.appendTurn({ user: U, session: sessions[i]!, role: 'user', text: fact });
      await dense.endSession({ user: U, session: sessions[i]! });
    }
  }, 60_000);

  afterAll(async () => {
    await dense.close();
    await lexical.close();
    await store.close();
  });

  it('the pairs share no content word', () => {
    for (const [fact, question] of PAIRS) {
      const shared = termsOf(question).filter((t) => new Set(termsOf(fact)).has(t));
      expect(shared, `${fact} / ${question}`).toEqual([]);
    }
  });

  it('the offline default recalls most facts from a question in other words; lexical recall finds none', async () => {
    expect(offlineWordVectors(), 'the build writes the word-vector table').not.toBeNull();
    const share = await shareRecalled(dense, sessions);
    const lexicalShare = await shareRecalled(lexical, sessions);
    console.log(`paraphrase pairs recalled in the top ${TOP_P} of ${PAIRS.length}: offline default ${share.toFixed(2)}, lexical only ${lexicalShare.toFixed(2)}`);
    expect(lexicalShare).toBe(0);
    expect(share).toBeGreaterThanOrEqual(0.5);
  }, 60_000);
});

describe('the README example', () => {
  it('recalls the Lisbon turn for "Where does Alice live?" with the defaults', async () => {
    const { store } = await memoryStore();
    const memory = new AkashicMemory(store);
    try {
      await memory.appendTurn({ user: 'alice', session: 's1', role: 'user', text: 'I moved to Lisbon last week.' });
      await memory.endSession({ user: 'alice', session: 's1' });
      const r = await memory.recall({ user: 'alice', session: 's2', query: 'Where does Alice live?', scope: 'user' });
      expect(r.text).toContain('user: I moved to Lisbon last week.');
      expect(r.passages).toHaveLength(1);
      expect(r.blocksTouched).toBe(1);
    } finally {
      await memory.close();
      await store.close();
    }
  }, 60_000);
});
