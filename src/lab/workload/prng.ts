/**
 * A small seeded pseudo-random generator for workloads. Benchmarks and recall evaluations must be repeatable
 * across runs and machines, which `Math.random` is not; statistical quality beyond "looks shuffled" is not needed.
 */

/** Deterministic random source. Same seed, same sequence, on every platform. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. Requires `min <= max`. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** A uniformly chosen element. Requires a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** A new array with the elements in random order; the input is left as it was. */
  shuffle<T>(items: readonly T[]): T[];
}

/**
 * Creates a mulberry32 generator (32-bit state, period 2^32), fast enough to draw every word of a million-turn
 * workload.
 *
 * @example
 * ```ts
 * const rng = createPrng(42);
 * rng.int(1, 6); // the same die roll on every run
 * ```
 */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      // The caller guarantees a non-empty array, so the index is always in range.
      return items[Math.floor(next() * items.length)] as T;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        const tmp = out[i] as T;
        out[i] = out[j] as T;
        out[j] = tmp;
      }
      return out;
    },
  };
}

/**
 * Derives the seed of sub-stream `stream` of `seed` (a murmur3-finaliser hash), so that, for example,
 * user 7 of a run is the same whether or not users 0–6 were generated first.
 */
export function deriveSeed(seed: number, stream: number): number {
  // mix32 is a bijection, so two seeds never give the same sub-seed for one stream, nor two streams for one seed.
  return mix32((mix32(seed >>> 0) + Math.imul(stream + 1, 0x9e3779b9)) >>> 0);
}

function mix32(x: number): number {
  let h = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
