/** Small order statistics for benchmark figures. Empty inputs give null: a figure that was not measured. */

export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** The q-quantile (0..1) by the nearest-rank method: an observed value, never an interpolation. */
export function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function median(xs: readonly number[]): number | null {
  return quantile(xs, 0.5);
}

/** a ÷ b, or null when either is missing or b is 0. */
export function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/** Rounds for output (figures are measurements, not exact values). */
export function round(x: number | null, digits = 3): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
