import { describe, expect, it } from 'vitest';
import { WeightedMemo } from '../../src/util/weighted-memo.js';

describe('WeightedMemo', () => {
  it('returns what was set until the weight bound forgets the least recently used', () => {
    const memo = new WeightedMemo<string, number>(100);
    memo.set('a', 1, 30);
    memo.set('b', 2, 30);
    expect(memo.get('a')).toBe(1);
    memo.set('c', 3, 30);
    memo.set('d', 4, 30);
    // Every live entry is still found or forgotten whole; the total kept never exceeds the bound.
    const kept = ['a', 'b', 'c', 'd'].filter((k) => memo.get(k) !== undefined);
    expect(kept.length).toBeLessThanOrEqual(3);
    expect(memo.get('d')).toBe(4);
  });

  it('keeps an entry used recently across a generation change', () => {
    const memo = new WeightedMemo<string, number>(40);
    memo.set('hot', 1, 10);
    for (let i = 0; i < 20; i++) {
      memo.set(`k${i}`, i, 10);
      expect(memo.get('hot')).toBe(1);
    }
    expect(memo.size).toBeLessThanOrEqual(4);
  });

  it('does not keep an entry heavier than half the bound, and replaces a key in place', () => {
    const memo = new WeightedMemo<string, number>(10);
    memo.set('big', 1, 6);
    expect(memo.get('big')).toBeUndefined();
    memo.set('x', 1, 2);
    memo.set('x', 2, 2);
    expect(memo.get('x')).toBe(2);
    expect(memo.size).toBe(1);
    memo.clear();
    expect(memo.get('x')).toBeUndefined();
  });
});
