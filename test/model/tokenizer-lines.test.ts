import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countByLines, countUncut, createTokenizer, minTokens, type TokenizerEncoding } from '../../src/model/tokenizer.js';

/** Pieces that stress the pre-tokenizers around line breaks: words, numbers, punctuation, slashes, spaces, runs. */
const PIECES = [
  'word', 'Word', 'WORD', 'é', 'naïve', "it's", "DON'T", '42', '2023', '12345', '.', '!', '?', '...', ',', ':', '/', '//',
  '-', '—', '"', '(', ')', '[', ']', ' ', '  ', '\t', '\n', '\n\n', '\n\n\n', '\r\n', ' \n', '\n ', '東京', '🙂', '👍🏽',
  'e\u0301', '²', 'Ⅻ', 'ǅ', '\u00a0', '\u3000', '\u2028', '\x01', 'x'.repeat(70), 'ab1'.repeat(30), '<|endoftext|>', 'Caroline: ', '[2023-05-08]', '… ',
];

const texts = fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 40 }).map((xs) => xs.join(''));

describe('count: a text counted word by word, each word once (same counts as the text counted whole)', () => {
  const require = createRequire(import.meta.url);
  const plain = { disallowedSpecial: new Set<string>() };
  const library = {
    o200k_base: (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: (t: string, o: typeof plain) => number }).countTokens,
    cl100k_base: (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: (t: string, o: typeof plain) => number }).countTokens,
  };
  for (const encoding of ['o200k_base', 'cl100k_base'] as TokenizerEncoding[]) {
    const tok = createTokenizer(encoding);

    it(`equals the count of the whole text, and the library's where no run is extrapolated (${encoding})`, () => {
      fc.assert(
        fc.property(texts, (text) => {
          // Twice: the second count is made from remembered words.
          const first = tok.count(text);
          expect(tok.count(text)).toBe(first);
          expect(first).toBe(countUncut(encoding, text));
          if (!/\S{65,}/u.test(text)) expect(first).toBe(library[encoding](text, plain));
        }),
        { numRuns: 3000, seed: 28 },
      );
    });
  }

  it('counts prose, chat lines and repeated words as the library does', () => {
    const tok = createTokenizer();
    const texts = [
      'Caroline: I went to the LGBTQ support group yesterday and it was so powerful.',
      '[2023-05-08]\nMelanie:  Wow!  That   sounds great —  really\t great.\n\nCaroline: Thanks, Mel .',
      'the the the the  the\u00a0the \u3000the',
      'naïve café déjà vu, 東京 and 🙂 👍🏽 at 12345 o\'clock; it\'s DON\'T <|endoftext|> done',
    ];
    for (const text of texts) expect(tok.count(text)).toBe(library.o200k_base(text, plain));
  });
});

describe('countByLines (a text counted as the sum of its lines) and minTokens (a lower bound)', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as TokenizerEncoding[]) {
    const tok = createTokenizer(encoding);

    it(`sums to the exact count of the whole text, which minTokens does not exceed (${encoding})`, () => {
      fc.assert(
        fc.property(texts, (text) => {
          const parts: string[] = [];
          const n = countByLines(tok, text, (part) => {
            parts.push(part);
            return tok.count(part);
          });
          expect(parts.join('')).toBe(text);
          expect(n).toBe(tok.count(text));
          expect(minTokens(tok, text)).toBeLessThanOrEqual(n);
        }),
        { numRuns: 3000, seed: 27 },
      );
    });
  }

  it('cuts a recall text into its lines, and counts a foreign tokenizer whole', () => {
    const tok = createTokenizer();
    const text = '[2023-05-08]\nCaroline: I went to a support group.\nMelanie: Wow!\n\n[2023-06-01]\nCaroline: Thanks';
    const parts: string[] = [];
    countByLines(tok, text, (part) => {
      parts.push(part);
      return tok.count(part);
    });
    expect(parts).toEqual(['[2023-05-08]\n', 'Caroline: I went to a support group.\n', 'Melanie: Wow!\n\n', '[2023-06-01]\n', 'Caroline: Thanks']);
    // A line ending in a letter or digit is cut from its line breaks, so it is counted as it is.
    const words: string[] = [];
    countByLines(tok, 'alpha beta\n\ngamma 42\nDelta', (part) => {
      words.push(part);
      return tok.count(part);
    });
    expect(words).toEqual(['alpha beta', '\n\n', 'gamma 42', '\n', 'Delta']);
    const foreign = { name: 'per-char', count: (t: string) => t.length };
    expect(countByLines(foreign, text, () => 0)).toBe(text.length);
    expect(minTokens(tok, 'one two  three')).toBe(3);
    expect(minTokens(foreign, 'one two three')).toBe(0);
  });
});
