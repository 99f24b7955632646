/** Small text formatters shared by the human-readable output of the CLI, the demo and the reports. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `1536` → `1.5 KiB`. */
export function formatBytes(n: number | null): string {
  if (n === null) return 'n/a';
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${UNITS[u]}`;
}

/** A ratio with two decimals, or `n/a` for null (e.g. amplification before any write). */
export function formatRatio(r: number | null, suffix = '×'): string {
  return r === null ? 'n/a' : `${r.toFixed(2)}${suffix}`;
}

export function formatPercent(r: number): string {
  return `${(r * 100).toFixed(0)}%`;
}

/** Labels of the ten φ buckets of StoreStats.phiHistogram: `[0.0,0.1)` … `[0.9,1.0]`. */
export function phiBucketLabel(i: number): string {
  const lo = (i / 10).toFixed(1);
  const hi = ((i + 1) / 10).toFixed(1);
  return i === 9 ? `[${lo},${hi}]` : `[${lo},${hi})`;
}

/**
 * Horizontal text bars, one per value, scaled so the largest is `width` characters.
 * A non-zero value always gets at least one character, so it is never mistaken for zero.
 */
export function textBars(labels: readonly string[], values: readonly number[], width = 40): string[] {
  const max = Math.max(0, ...values);
  const labelWidth = Math.max(0, ...labels.map((l) => l.length));
  const countWidth = Math.max(1, ...values.map((v) => String(v).length));
  return values.map((v, i) => {
    const n = max === 0 ? 0 : Math.max(v > 0 ? 1 : 0, Math.round((v / max) * width));
    return `${(labels[i] ?? '').padEnd(labelWidth)}  ${String(v).padStart(countWidth)}  ${'█'.repeat(n)}`;
  });
}
