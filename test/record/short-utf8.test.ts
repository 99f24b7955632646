import fc from 'fast-check';
import * as flatbuffers from 'flatbuffers';
import { describe, expect, it } from 'vitest';
import { createUtf8String, utf8Bytes } from '../../src/record/short-utf8.js';
import { scratchBuilder } from '../../src/record/scratch-builder.js';

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

describe('createUtf8String', () => {
  it('lays out the same bytes as createString, in a fresh builder and in the reused scratch builder', () => {
    const any = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }));
    fc.assert(
      fc.property(fc.array(any, { maxLength: 20 }), (strings) => {
        const build = (b: flatbuffers.Builder, add: (b: flatbuffers.Builder, s: string) => number): Buffer => {
          const offsets = strings.map((s) => add(b, s));
          b.startVector(4, offsets.length, 4);
          for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]!);
          b.finish(b.endVector());
          return Buffer.from(b.asUint8Array());
        };
        const expected = build(new flatbuffers.Builder(16), (b, s) => b.createString(s));
        expect(build(new flatbuffers.Builder(16), createUtf8String).equals(expected)).toBe(true);
        expect(build(scratchBuilder(), createUtf8String).equals(expected)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
