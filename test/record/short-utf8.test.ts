import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../src/record/short-utf8.js';

describe('utf8Bytes', () => {
  const encoder = new TextEncoder();
  it('gives the bytes TextEncoder gives, for ASCII, non-ASCII, lone surrogates and long strings', () => {
    const any = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }));
    fc.assert(
      fc.property(any, (s) => {
        expect(Buffer.from(utf8Bytes(s)).equals(Buffer.from(encoder.encode(s)))).toBe(true);
      }),
      { numRuns: 2000 },
    );
    for (const s of ['', 'a', 'x'.repeat(64), 'x'.repeat(65), 'caf\u00e9', '\ud800', 'ok\u007f', '\u0080']) {
      expect(Buffer.from(utf8Bytes(s)).equals(Buffer.from(encoder.encode(s)))).toBe(true);
    }
  });
});
