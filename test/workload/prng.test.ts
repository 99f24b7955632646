import { describe, expect, it } from 'vitest';
import { createPrng, deriveSeed } from '../../src/lab/workload/prng.js';

describe('createPrng', () => {
  const draw = (seed: number, n: number) => {
    const rng = createPrng(seed);
    return Array.from({ length: n }, () => rng.next());
  };

  it('repeats its sequence for a seed and differs between seeds', () => {
    expect(draw(42, 100)).toEqual(draw(42, 100));
    expect(draw(42, 100)).not.toEqual(draw(43, 100));
  });

  it('draws in [0, 1) and covers the range', () => {
    const xs = draw(7, 10_000);
    for (const x of xs) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });

  it('int() includes both bounds and nothing outside them', () => {
    const rng = createPrng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(rng.int(3, 6));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('shuffle() returns a permutation and leaves the input alone', () => {
    const input = Object.freeze([1, 2, 3, 4, 5, 6, 7, 8]);
    const out = createPrng(9).shuffle(input);
    expect([...out].sort()).toEqual([...input]);
    expect(out).not.toBe(input);
  });
});

describe('deriveSeed', () => {
  it('gives distinct sub-seeds for distinct streams and seeds', () => {
    const seeds = new Set<number>();
    for (let seed = 0; seed < 20; seed++) {
      for (let stream = 0; stream < 50; stream++) seeds.add(deriveSeed(seed, stream));
    }
    expect(seeds.size).toBe(1000);
  });
});
