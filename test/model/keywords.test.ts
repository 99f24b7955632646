import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { contentWordsOf, dateTermsOf, extractKeywords, forgetKeywordListTerms, isCalendarTerm, keywordTerms, termsAndKeywordsOf, termsOf, DEFAULT_KEYWORD_LIMIT } from '../../src/model/keywords.js';

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

describe('termsOf dates', () => {
  it('reads a written date in its usual orders as its ISO day, which also matches its month and year', () => {
    const day = ['2022-05-25', '2022-05', '2022'];
    for (const text of ['25 May, 2022', 'May 25, 2022', 'May 25th 2022', 'the 25th of May 2022', 'on 2022-05-25']) {
      expect(termsOf(text), text).toEqual(expect.arrayContaining(day));
      expect(termsOf(text).filter(isCalendarTerm), text).toEqual(['2022-05-25', '2022-05']);
    }
    expect(termsOf('What did Nate do on 25 May, 2022?')).toEqual(['nate', ...day]);
    expect(termsOf('in January 2024')).toEqual(['2024-01', '2024']);
    expect(termsOf('[2024-01-04]')).toEqual(['2024-01-04', '2024-01', '2024']);
    expect(dateTermsOf(Date.UTC(2024, 0, 4, 23, 59))).toEqual(['2024-01-04', '2024-01', '2024']);
  });

  it('leaves what is not a date as words', () => {
    expect(termsOf('32 May 2022').filter(isCalendarTerm)).toEqual([]);
    expect(termsOf('in 2023')).toEqual(['2023']);
    expect(isCalendarTerm('2023')).toBe(false);
    // A keyword list is one keyword per line: its lines are never read as one date.
    expect(termsOf('may\n2022\nparis')).toEqual(['2022', 'pari']);
    expect(dateTermsOf(Number.NaN)).toEqual([]);
  });
});

describe('extractKeywords weighting', () => {
  it('ranks bare numbers such as the compress date line below words of equal frequency', () => {
    expect(extractKeywords('[2024-05-01]\nuser: My cat Miso sees the vet')).toEqual(['miso', 'cat', 'sees', 'vet', '2024-05-01']);
  });
});

describe('termsAndKeywordsOf', () => {
  it('gives termsOf and extractKeywords of the same text from one tokenization', () => {
    const word = fc.constantFrom('Berlin', 'berlin', 'moved', 'cafes', 'Miso', "Alice's", 'gpt-4o', '2024-05-01', 'the', 'memories', 'memory', '4', '\u2019s', 'July', '7th', '7', '2023', 'of');
    const text = fc.array(fc.tuple(word, fc.constantFrom(' ', '. ', '\n', ', ', ': ')), { maxLength: 40 }).map((ps) => ps.map(([w, s]) => w + s).join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 8 }), (t, limit) => {
        const both = termsAndKeywordsOf(t, limit);
        expect(both.terms).toEqual(termsOf(t));
        expect(both.keywords()).toEqual(extractKeywords(t, limit));
      }),
      { numRuns: 300 },
    );
    expect(() => termsAndKeywordsOf('x', -1)).toThrow(/keyword limit/);
  });
});

describe('tokenizing ASCII text', () => {
  it('finds the same words as in text that is not ASCII', () => {
    // ASCII text is scanned character by character, other text with the word pattern: a text and the same text with
    // a one-character non-ASCII word appended (dropped as too short) give the same words, terms and keywords.
    const piece = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
      fc.constantFrom(' ', '  ', '\n', '.', '..', "'", "'s", '-', '_', ',', '!', '?', ':', '"', '(', ')', '/', '#', '7 July, 2023', 'July 2023', 'node.js', 'gpt-4o', '2024-05-01', "don't", 'a.b.', '-x-', '_y_'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const other = `${text} é`;
        expect(termsOf(text)).toEqual(termsOf(other));
        expect(contentWordsOf(text)).toEqual(contentWordsOf(other));
        expect(extractKeywords(text, 64)).toEqual(extractKeywords(other, 64));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('keywordTerms', () => {
  it('gives termsOf of the keywords one per line, on the lower-case fast path and off it', () => {
    // Lower-case words take a path that does not tokenize; other keywords are tokenized one by one. Both must give
    // the terms of the list tokenized as one text: stop words, one-letter and over-long words, empty lines, and lists
    // with capitals, digits, dates, apostrophes or other characters.
    const lower = fc.oneof(
      fc.constantFrom('memories', 'running', 'the', 'and', 'a', '', 'x'.repeat(64), 'y'.repeat(65), 'berlin', 'cafes', 'databases', 'july', 'may'),
      fc.stringMatching(/^[a-z]{0,70}$/),
    );
    const other = fc.constantFrom('Berlin', "alice's", 'gpt-4o', '2024-05-01', 'July 7, 2023', '7 july 2023', 'ﬁle', 'e\u0301', 'a\nb', ' ', '１２');
    const list = fc.oneof(fc.array(lower, { maxLength: 30 }), fc.array(fc.oneof(lower, other), { maxLength: 30 }));
    fc.assert(
      fc.property(list, (l) => {
        expect(keywordTerms(l)).toEqual(termsOf(l.join('\n')));
      }),
      { numRuns: 500 },
    );
    // A list longer than the tokenizer reads is cut as one text.
    const long = Array.from({ length: 3000 }, (_, i) => 'word' + 'abcdefghij'[i % 10]!.repeat(1 + (i % 5)));
    expect(long.join('\n').length).toBeGreaterThan(16 * 1024);
    expect(keywordTerms(long)).toEqual(termsOf(long.join('\n')));
  });

  it('gives termsOf of the keywords one per line for keywords of any characters, met once or again', () => {
    // Keywords are read one by one (a word or a date never spans a line break): any text, line breaks and
    // characters that normalization changes included, read the same as the list tokenized as one text; a keyword
    // met before (its terms remembered by word) reads the same in every list and position.
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('July', '7', '7th', 'of', '2023', ' ', ',', '\n', "'s", '\u2019s', 'ﬁ', 'e\u0301', '１２', 'K', 'ſ', '-', '.', 'Ä'),
    );
    const keyword = fc.oneof(fc.array(piece, { maxLength: 6 }).map((p) => p.join('')), fc.stringMatching(/^[a-z]{0,70}$/));
    fc.assert(
      fc.property(fc.array(keyword, { maxLength: 20 }), fc.array(keyword, { maxLength: 20 }), (a, b) => {
        expect(keywordTerms(a)).toEqual(termsOf(a.join('\n')));
        expect(keywordTerms([...b, ...a])).toEqual(termsOf([...b, ...a].join('\n')));
        forgetKeywordListTerms();
        expect(keywordTerms([...a, ...b])).toEqual(termsOf([...a, ...b].join('\n')));
      }),
      { numRuns: 500 },
    );
    // A date written in one keyword, and its words split over keywords (never a date across lines).
    expect(keywordTerms(['moved', 'July 7, 2023', 'berlin'])).toEqual(['move', '2023-07-07', '2023-07', '2023', 'berlin']);
    expect(keywordTerms(['July 7,', '2023'])).toEqual(termsOf('July 7,\n2023'));
  });

  it('forgets what it met by content when told (as a cold read does), and still gives the same terms', () => {
    const list = ['berlin', 'gardens', 'cafes', 'memory', 'alice'];
    const first = keywordTerms(list);
    // Met by content: a new list object with the same keywords gets the very terms array kept.
    expect(keywordTerms([...list])).toBe(first);
    forgetKeywordListTerms();
    const again = keywordTerms([...list]);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('tells apart lists alike in length, characters and first, middle and last keywords', () => {
    // Such lists share a memo key; each is still served its own terms, also after more of them than the key keeps.
    const lists = ['gardens', 'running', 'swimming', 'painting', 'drawings', 'readings'].map((second) => ['berlin', second, 'cafes', 'memory', 'alice']);
    for (let round = 0; round < 2; round++) {
      for (const l of lists) expect(keywordTerms(l)).toEqual(termsOf(l.join('\n')));
      for (const l of lists) expect(keywordTerms(Object.freeze([...l]))).toEqual(termsOf(l.join('\n')));
    }
    const list = ['berlin', 'gardens', 'cafes', 'memory', 'alice'];
    expect(keywordTerms(list)).toEqual(termsOf(list.join('\n')));
    list[1] = 'running'; // same length: the key is unchanged, the content is not
    expect(keywordTerms(list)).toEqual(termsOf('berlin\nrunning\ncafes\nmemory\nalice'));
  });

  it('serves a frozen list kept between calls by its object, and a list changed in place afresh', () => {
    const frozen = Object.freeze(['gardens', 'running', 'berlin']);
    expect(keywordTerms(frozen)).toEqual(termsOf(frozen.join('\n')));
    expect(keywordTerms(frozen)).toBe(keywordTerms(frozen));
    const list = ['gardens', 'running', 'berlin'];
    expect(keywordTerms(list)).toEqual(termsOf(list.join('\n')));
    list[1] = 'swimming';
    expect(keywordTerms(list)).toEqual(termsOf('gardens\nswimming\nberlin'));
    list.push('databases');
    expect(keywordTerms(list)).toEqual(termsOf(list.join('\n')));
  });
});
