import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/util/bounded-memo.js';

describe('BoundedMemo', () => {
  it('never holds more than its bound, and returns only what was set for a key', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 60 })), { maxLength: 400 }), (max, ops) => {
        const memo = new BoundedMemo<number, string>(max);
        for (const [isSet, k] of ops) {
          if (isSet) memo.set(k, `v${k}`);
          else {
            const v = memo.get(k);
            if (v !== undefined) expect(v).toBe(`v${k}`);
          }
          expect(memo.size).toBeLessThanOrEqual(max);
        }
      }),
    );
  });

  it('keeps an entry used within the last half-bound insertions, however many other keys pass through', () => {
    const memo = new BoundedMemo<string, number>(100);
    memo.set('hot', 1);
    for (let i = 0; i < 10_000; i++) {
      memo.set(`cold-${i}`, i);
      // Used every 40 insertions (less than half the bound): it must never be forgotten.
      if (i % 40 === 0) expect(memo.get('hot')).toBe(1);
    }
    expect(memo.get('hot')).toBe(1);
    // A key not used since 100 insertions ago is gone.
    expect(memo.get('cold-0')).toBeUndefined();
    expect(memo.get('cold-9999')).toBe(9999);
  });

  it('forgets every entry on clear, and fills again after', () => {
    const memo = new BoundedMemo<string, number>(8);
    for (let i = 0; i < 6; i++) memo.set(`k${i}`, i);
    expect(memo.size).toBe(6);
    memo.clear();
    expect(memo.size).toBe(0);
    for (let i = 0; i < 6; i++) expect(memo.get(`k${i}`)).toBeUndefined();
    memo.set('k0', 10);
    expect(memo.get('k0')).toBe(10);
  });

  it('rejects a bound below 2', () => {
    expect(() => new BoundedMemo(1)).toThrow(RangeError);
    expect(() => new BoundedMemo(2.5)).toThrow(RangeError);
  });
});
