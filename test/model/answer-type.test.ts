import { describe, expect, it } from 'vitest';
import { answerShapeWords, asksForName, namesSomething } from '../../src/model/answer-type.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';

describe('answer types', () => {
  it('reads which, where and who questions, and questions for a name, as asking for something named', () => {
    for (const q of ['Which places has Hollis traveled to?', 'Where does Kaia work now?', 'Who moved to Lisbon?', "What is the name of Bob's dog?", "Whose sister is Rosa?"]) {
      expect(asksForName(q), q).toBe(true);
    }
    for (const q of ['When did Gael move?', 'What did Audrey make?', 'How long has Bob lived there?', 'Why did she leave?']) {
      expect(asksForName(q), q).toBe(false);
    }
  });

  it('finds a name inside a sentence, but not a first word, I, a day or a month', () => {
    expect(namesSomething('I just got back from Meandmer!')).toBe(true);
    expect(namesSomething('We spent a long weekend in the Theatane Coast.')).toBe(true);
    expect(namesSomething('Jet lag hit me hard, I slept through two alarms.')).toBe(false);
    expect(namesSomething('Honestly, see you on Monday in May.')).toBe(false);
    expect(namesSomething('Great. Thanks!')).toBe(false);
  });
});

describe('words that give the shape of an answer', () => {
  it('are the count before a plural noun and the order words of a question', () => {
    expect(answerShapeWords('Which two places has Hollis traveled to most recently?')).toEqual(['two', 'most', 'recently']);
    expect(answerShapeWords('Which were the first three races Wren ran?')).toEqual(['first', 'three']);
    expect(answerShapeWords('What are the latest books Ada read?')).toEqual(['latest']);
  });

  it('are none in a question without them, in a count that is the question, or in a statement', () => {
    expect(answerShapeWords('Which places has Wren traveled to?')).toEqual([]);
    expect(answerShapeWords('How many children does Melanie have?')).toEqual([]);
    expect(answerShapeWords('What did Melanie do last weekend?')).toEqual([]);
    expect(answerShapeWords('I ran two races recently.')).toEqual([]);
  });

  it('are not matched: a sentence sharing only them with the question scores nothing', async () => {
    const model = new EmbeddedModel({ denseSignal: false });
    const [chatter, fact] = await model.scorePassages({ text: 'Which two races has Wren run most recently?', keywords: ['two', 'races', 'recently'] }, [
      'I slept through two alarms recently.',
      'I ran the Harbour races today.',
    ]);
    expect(chatter).toBe(0);
    expect(fact!).toBeGreaterThan(0);
  });
});

describe('passage scores for a question asking for something named', () => {
  const model = new EmbeddedModel({ denseSignal: false });

  it('weigh a matching passage that names something above an equal one that does not', async () => {
    const passages = ['The trip was long and the trip was fun.', 'The trip to Meandmer was long and fun.'];
    const [plain, named] = await model.scorePassages({ text: 'Which trip was fun?', keywords: [] }, passages);
    expect(named!).toBeGreaterThan(plain!);
    // The same passages for a question that asks for no name: the name changes nothing beyond BM25.
    const [a, b] = await model.scorePassages({ text: 'How was the trip?', keywords: [] }, ['The trip was fun.', 'The trip was Meandmer.']);
    expect(a).toBeCloseTo(b!, 9);
  });

  it('never lifts a passage without a shared word above one with a shared word (word vectors on)', async () => {
    const dense = new EmbeddedModel();
    const scores = await dense.scorePassages({ text: 'Which places has Hollis traveled to?', keywords: [] }, [
      'We traveled by train.',
      'I just got back from Meandmer, where we hiked.',
    ]);
    expect(scores[0]!).toBeGreaterThan(1);
    expect(scores[1]!).toBeLessThan(1);
  });
});
