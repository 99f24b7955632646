import { describe, expect, it } from 'vitest';
import { createTokenizer } from '../../src/model/tokenizer.js';
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
});
