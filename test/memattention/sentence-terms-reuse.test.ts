import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ChunkPieceCache } from '../../src/memattention/chunk-pieces.js';
import { chronological } from '../../src/memattention/recall.js';
import { selectSentencePassages } from '../../src/memattention/sentence-passages.js';
import { EmbeddedModel } from '../../src/model/embedded-model.js';
import { termsOf } from '../../src/model/keywords.js';
import type { ChunkRecord } from '../../src/record/chunk-record.js';
import { tokenizer } from './fixtures.js';

/** Words of many kinds: plain, capitalized, stop words, numbers, identifiers, dates, apostrophes and punctuation. */
const WORD = fc.constantFrom(
  'Alice', 'moved', 'to', 'Lisbon', 'in', 'May', 'the', 'greyhound', "Bob's", 'works', 'at', 'Globex', 'now', 'paid',
  '4', '5', '2023', '7 July, 2023', 'July 7th 2023', 'v2', 'X-19', 'running', 'runs', 'ran', 'café', 'naïve', 'it',
  'is', 'sunny', 'and', 'we', 'went', 'hiking', 'databases', 'were', "don't", 'I', 'a', 'dog', 'cat', '42',
);
const SENTENCE = fc
  .tuple(fc.array(WORD, { minLength: 1, maxLength: 12 }), fc.constantFrom('.', '!', '?', ''))
  .map(([words, end]) => `${words.join(' ')}${end}`);
/** A verbatim chunk: a date line, then turns of a few sentences each. */
const CHUNK_TEXT = fc
  .array(fc.tuple(fc.constantFrom('alice', 'bob', 'user', 'assistant'), fc.array(SENTENCE, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 5 })
  .map((turns) => `[2024-05-01]\n${turns.map(([who, ss]) => `${who}: ${ss.join(' ')}`).join('\n')}`);

function chunk(text: string, i: number): ChunkRecord {
  const turns = text.split('\n').length - 1;
  return {
    userId: 'u', sessionId: 's', chunkId: `01HZZZZZZZZZZZZZZZZZZZZZZ${i}`, version: 1, createdAt: 1_700_000_000_000 + i, updatedAt: 0, tokenCount: 0,
    kind: 'memory', text, keywords: [], attributes: {}, payload: null, supersedes: [],
    provenance: Array.from({ length: turns }, (_, k) => `t${i}-${k}`),
  } as ChunkRecord;
}

describe('sentence recall reuses the terms the embedded model made while scoring', () => {
  it('holds termsOf(text) for every passage it scored, and nothing for a passage it did not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(SENTENCE, { minLength: 1, maxLength: 20 }), async (passages) => {
        const model = new EmbeddedModel({ denseSignal: false });
        await model.scorePassages({ text: 'where does Alice work now?', keywords: [] }, passages);
        for (const p of passages) expect(model.knownTerms(p)).toEqual(termsOf(p));
        expect(model.knownTerms(`${passages[0]!} never scored`)).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('gives each sentence the same repeat key with the model terms as with termsOf', () => {
    fc.assert(
      fc.property(CHUNK_TEXT, (text) => {
        const general = new ChunkPieceCache(tokenizer).of(chunk(text, 0));
        const reused = new ChunkPieceCache(tokenizer).of(chunk(text, 0));
        // A provider holding termsOf's terms in new arrays, as the model's memo does.
        const held = new Map(reused.pieces.map((x) => [x.text, [...termsOf(x.text)]]));
        for (let i = 0; i < general.pieces.length; i++) {
          expect(reused.repeatKey(i, (t) => held.get(t) ?? termsOf(t))).toBe(general.repeatKey(i));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('selects the same passages with the model terms as with termsOf', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(CHUNK_TEXT, { minLength: 1, maxLength: 4 }), fc.integer({ min: 8, max: 200 }), fc.boolean(), async (texts, budget, dated) => {
        const ranked = texts.map((t, i) => chunk(t, i));
        const query = { text: 'Where does Alice work now, and what did Bob pay in July 2023?', keywords: [] };
        let reusedTerms = 0;
        const run = async (reuse: boolean) => {
          const model = new EmbeddedModel({ denseSignal: false });
          const score = (passages: readonly string[]) => model.scorePassages(query, passages);
          const known = (t: string): readonly string[] => {
            const held = model.knownTerms(t);
            if (held !== undefined) reusedTerms++;
            return held ?? termsOf(t);
          };
          return selectSentencePassages(ranked, score, budget, new ChunkPieceCache(tokenizer), chronological, dated, 0, () => false, reuse ? known : termsOf);
        };
        const [general, reused] = [await run(false), await run(true)];
        expect(reused).toEqual(general);
        // Undated, the scored texts are the sentences themselves: every key of a kept sentence is made from held terms.
        if (!dated && general.passages.length > 0) expect(reusedTerms).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });
});
