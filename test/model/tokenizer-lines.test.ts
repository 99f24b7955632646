import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countByLines, createTokenizer, minTokens, type TokenizerEncoding } from '../../src/model/tokenizer.js';

/** Pieces that stress the pre-tokenizers around line breaks: words, numbers, punctuation, slashes, spaces, runs. */
const PIECES = [
  'word', 'Word', 'WORD', 'é', 'naïve', "it's", "DON'T", '42', '2023', '12345', '.', '!', '?', '...', ',', ':', '/', '//',
  '-', '—', '"', '(', ')', '[', ']', ' ', '  ', '\t', '\n', '\n\n', '\n\n\n', '\r\n', ' \n', '\n ', '東京', '🙂', '👍🏽',
  'e\u0301', '²', 'Ⅻ', 'ǅ', '\u00a0', '\u3000', '\u2028', '\x01', 'x'.repeat(70), 'ab1'.repeat(30), '<|endoftext|>', 'Caroline: ', '[2023-05-08]', '… ',
];

const texts = fc.array(fc.constantFrom(...PIECES), { minLength: 0, maxLength: 40 }).map((xs) => xs.join(''));

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
