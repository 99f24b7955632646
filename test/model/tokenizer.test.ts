import { describe, expect, it } from 'vitest';
import { COUNT_SLICE_CHARS, countEachYielding, countTokensYielding, createTokenizer, MAX_UNSPACED_RUN, YieldingCounter } from '../../src/model/tokenizer.js';
import { isAkashicError } from '../../src/errors.js';

describe('createTokenizer', () => {
  it('defaults to o200k_base and counts real BPE tokens', () => {
    const tok = createTokenizer();
    expect(tok.name).toBe('o200k_base');
    expect(tok.count('')).toBe(0);
    expect(tok.count('hello world')).toBe(2);
  });

  it('supports cl100k_base, whose counts differ from o200k_base on non-English text', () => {
    const o200k = createTokenizer('o200k_base');
    const cl100k = createTokenizer('cl100k_base');
    expect(cl100k.name).toBe('cl100k_base');
    const text = 'Привет, как дела? これは日本語のテキストです。';
    expect(cl100k.count(text)).toBeGreaterThan(o200k.count(text));
  });

  it('counts special-token markers in user text as plain text instead of throwing', () => {
    const tok = createTokenizer();
    expect(tok.count('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('rejects an unknown encoding with AKASHIC_INVALID_ARGUMENT', () => {
    let caught: unknown;
    try {
      // @ts-expect-error -- deliberately outside the TokenizerEncoding union
      createTokenizer('p50k_base');
    } catch (err) {
      caught = err;
    }
    expect(isAkashicError(caught, 'AKASHIC_INVALID_ARGUMENT')).toBe(true);
  });

  /** Deterministic CJK text without whitespace (a BPE worst case: one pre-tokenized piece). */
  const cjk = (n: number, seed: number): string => {
    let x = seed;
    let out = '';
    for (let i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      out += String.fromCharCode(0x4e00 + (x % 3000));
    }
    return out;
  };

  it('counts every unspaced run longer than 64 characters from its first 64, the first run of a text included', () => {
    const tok = createTokenizer();
    const first = cjk(5000, 1);
    const second = cjk(3000, 2);
    const extrapolated = (run: string): number => Math.ceil((tok.count(run.slice(0, MAX_UNSPACED_RUN)) * run.length) / MAX_UNSPACED_RUN);
    // The first run used to be skipped by the regex's leftover lastIndex and counted exactly: quadratic BPE work.
    expect(tok.count(first)).toBe(extrapolated(first));
    expect(tok.count(`hi ${first} and ${second} bye`)).toBe(tok.count('hi ') + extrapolated(first) + tok.count(' and ') + extrapolated(second) + tok.count(' bye'));
  });

  it('counts in slices that let the event loop run, with the same counts as count() for short texts', async () => {
    const tok = createTokenizer();
    const texts = Array.from({ length: 40 }, (_, i) => `turn ${i}: ${'the quick brown fox '.repeat(20)}`);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      expect(await countEachYielding(tok, texts)).toEqual(texts.map((t) => tok.count(t)));
    } finally {
      clearInterval(timer);
    }
    // 40 texts of ~410 characters: more than one slice of COUNT_SLICE_CHARS, so timers ran in between.
    expect(texts.join('').length).toBeGreaterThan(2 * COUNT_SLICE_CHARS);
    expect(ticks).toBeGreaterThan(0);
    // An unspaced text is cut into slices (never inside a surrogate pair) and counted without scanning back to its start.
    const long = cjk(COUNT_SLICE_CHARS * 3 + 5, 3);
    expect(await countTokensYielding(tok, long)).toBeGreaterThan(0);
  });
});

describe('YieldingCounter', () => {
  it('counts any subset of texts, in any order, as countEachYielding counts them', async () => {
    const tok = createTokenizer();
    const long = 'The lake was calm. '.repeat(Math.ceil((3 * COUNT_SLICE_CHARS) / 19));
    const texts = ['Alice: we moved to Lisbon in May.', ' we moved', '', long, ` ${long}`, 'x'.repeat(COUNT_SLICE_CHARS - 1), '🙂 emoji'];
    const all = await countEachYielding(tok, texts);
    expect(all[0]).toBe(tok.count(texts[0]!));
    expect(all[3]).toBe(await countTokensYielding(tok, long));
    const counter = new YieldingCounter(tok);
    for (const i of [4, 0, 6, 3, 5, 1, 2]) expect(await counter.count(texts[i]!)).toBe(all[i]);
  });
});
