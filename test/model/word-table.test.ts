import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isAkashicError } from '../../src/errors.js';
import { encodeWordTable, WordTable } from '../../src/model/word-table.js';
import { dot, offlineWordVectors } from '../../src/model/word-vectors.js';

const DIMS = 8;

function unit(v: readonly number[]): number[] {
  const n = Math.hypot(...v);
  return n === 0 ? v.map(() => 0) : v.map((x) => x / n);
}

describe('word-vector table', () => {
  it('decodes every word to a unit vector within 8-bit precision of its source, rank = row', () => {
    const word = fc.stringMatching(/^[a-zà-ÿ'.-]{1,12}$/u);
    const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: DIMS, maxLength: DIMS }).filter((v) => v.some((x) => Math.abs(x) > 1e-3));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(word, vector), { selector: ([w]) => w, minLength: 1, maxLength: 40 }), (rows) => {
        const table = new WordTable(encodeWordTable(rows.map(([w, v]) => ({ word: w, vector: v })), DIMS));
        expect(table.size).toBe(rows.length);
        expect(table.dimensions).toBe(DIMS);
        for (const [i, [w, v]] of rows.entries()) {
          expect(table.rank(w)).toBe(i);
          const got = table.vector(w)!;
          expect(Math.abs(dot(got, got) - 1)).toBeLessThan(1e-5);
          expect(dot(got, Float32Array.from(unit(v)))).toBeGreaterThan(0.99);
          expect(table.vector(w)).toBe(got); // decoded once, then shared
        }
        expect(table.vector('not-a-word-in-the-table!')).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });

  it('refuses bytes that are not a whole table of this version with AKASHIC_CORRUPTION', () => {
    const good = encodeWordTable([{ word: 'lisbon', vector: [1, 0, 0, 0, 0, 0, 0, 0] }], DIMS);
    const damaged = [good.subarray(0, 10), good.subarray(0, good.length - 1), Uint8Array.from(good, (b, i) => (i === 0 ? b ^ 1 : b)), Uint8Array.from(good, (b, i) => (i === 4 ? 9 : b))];
    for (const bytes of damaged) {
      let caught: unknown;
      try {
        new WordTable(bytes);
      } catch (err) {
        caught = err;
      }
      expect(isAkashicError(caught) && caught.code === 'AKASHIC_CORRUPTION').toBe(true);
    }
  });

  it('the shipped table holds the vocabulary the embedded model expects, nearest words still near', () => {
    const vectors = offlineWordVectors();
    expect(vectors, 'the build writes the table').not.toBeNull();
    expect(vectors!.size).toBe(50_000);
    expect(vectors!.dimensions).toBe(100);
    expect(vectors!.rank('the')).toBe(0);
    const near = dot(vectors!.vector('kitten')!, vectors!.vector('cat')!);
    const far = dot(vectors!.vector('kitten')!, vectors!.vector('mortgage')!);
    expect(near).toBeGreaterThan(far + 0.3);
  });
});
