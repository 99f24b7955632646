import { describe, expect, it } from 'vitest';
import { ChunkPieceCache } from '../../src/memattention/chunk-pieces.js';
import { chronological } from '../../src/memattention/recall.js';
import { selectSentencePassages } from '../../src/memattention/sentence-passages.js';
import type { ChunkRecord } from '../../src/record/chunk-record.js';
import { tokenizer } from './fixtures.js';

/** A verbatim chunk of one turn. */
function chunk(text: string): ChunkRecord {
  return {
    userId: 'u', sessionId: 's', chunkId: '01HZZZZZZZZZZZZZZZZZZZZZZZ', version: 1, createdAt: 0, updatedAt: 0, tokenCount: 0,
    kind: 'memory', text: `Alice: ${text}`, keywords: [], attributes: {}, payload: null, supersedes: [], provenance: ['t0'],
  } as ChunkRecord;
}

/** The same content words as SHORT (biscuit, greyhound), at many more tokens. */
const LONG = `${'Biscuit the greyhound, the greyhound Biscuit, '.repeat(4)}is a greyhound.`;
const SHORT = 'Biscuit is a greyhound.';
/** Scores in text order: the long sentence ranks first. */
const scores = async (texts: readonly string[]): Promise<number[]> => texts.map((_, i) => (i === 0 ? 2 : 1));

describe('sentence recall leaves out repeats of sentences ranked before, kept or not', () => {
  it('leaves out a sentence repeating the content words of a better-ranked one too large for the budget', async () => {
    // Room for the short sentence (and its speaker), not for the long one.
    const budget = tokenizer.count(`Alice: ${SHORT}`) + 2;
    expect(tokenizer.count(LONG)).toBeGreaterThan(budget);
    const r = await selectSentencePassages([chunk(`${LONG} ${SHORT}`)], scores, budget, new ChunkPieceCache(tokenizer), chronological);
    expect(r.text).toBe('');
    expect(r.passages).toEqual([]);
    // The same short sentence after a better-ranked one with other content words is kept.
    const other = 'Rex the collie, my collie Rex, is the collie we call Rex, and Rex is a collie indeed, said everyone.';
    const kept = await selectSentencePassages([chunk(`${other} ${SHORT}`)], scores, budget, new ChunkPieceCache(tokenizer), chronological);
    expect(kept.text).toBe(`Alice: … ${SHORT}`);
    expect(kept.tokenCount).toBeLessThanOrEqual(budget);
  });
});
