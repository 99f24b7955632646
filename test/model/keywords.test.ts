import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { extractKeywords, termsOf, DEFAULT_KEYWORD_LIMIT } from '../../src/model/keywords.js';

describe('extractKeywords', () => {
  const text =
    'user: I moved to Berlin last May. Berlin is great for cafes.\n' +
    'assistant: Noted that you live in Berlin now; you mentioned cafes and your cat Miso.';

  it('is deterministic', () => {
    expect(extractKeywords(text)).toEqual(extractKeywords(text));
  });

  it('ranks frequent terms first and drops stop words and role labels', () => {
    const keywords = extractKeywords(text);
    expect(keywords[0]).toBe('berlin');
    expect(keywords).toContain('cafes');
    expect(keywords).toContain('miso');
    for (const stop of ['the', 'to', 'is', 'user', 'assistant', 'you', 'and']) expect(keywords).not.toContain(stop);
  });

  it('returns lower-cased, distinct keywords, at most the limit', () => {
    const keywords = extractKeywords('Memory memories MEMORY database Databases', 24);
    // `memory` and `memories` share a stem: one keyword, in its most frequent surface form.
    expect(keywords).toEqual(['memory', 'database']);
    expect(extractKeywords(text, 2)).toHaveLength(2);
    expect(extractKeywords(text, 0)).toEqual([]);
  });

  it('keeps identifiers whole', () => {
    const keywords = extractKeywords('Upgrade node.js and gpt-4o on 2024-05-01.');
    expect(keywords).toEqual(expect.arrayContaining(['node.js', 'gpt-4o', '2024-05-01', 'upgrade']));
  });

  it('satisfies the MetaResult contract for arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (input) => {
        const keywords = extractKeywords(input);
        expect(keywords.length).toBeLessThanOrEqual(DEFAULT_KEYWORD_LIMIT);
        expect(new Set(keywords).size).toBe(keywords.length);
        for (const k of keywords) expect(k).toBe(k.toLowerCase());
        expect(extractKeywords(input)).toEqual(keywords);
      }),
    );
  });

  it('rejects a negative limit', () => {
    expect(() => extractKeywords(text, -1)).toThrowError(/limit/);
  });
});

describe('termsOf', () => {
  it('stems plain words so inflections meet', () => {
    expect(termsOf('memories')).toEqual(termsOf('memory'));
    expect(termsOf('The databases were running')).toEqual(['databas', 'run']);
  });
});

describe('extractKeywords weighting', () => {
  it('ranks bare numbers such as the compress date line below words of equal frequency', () => {
    expect(extractKeywords('[2024-05-01]\nuser: My cat Miso sees the vet')).toEqual(['miso', 'cat', 'sees', 'vet', '2024-05-01']);
  });
});
