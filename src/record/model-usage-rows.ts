/**
 * Persisted model-usage totals: the rows an Accounting record carries (`model_usage`, docs/format.md "Accounting"),
 * one per (usage kind, call kind). Rows are kept sorted by kind then call, with no duplicates, and are immutable:
 * adding makes a new array.
 */

import type { ModelCallKind, ModelCallReceipt, UsageKind, UsageTotals } from '../api/model-usage.js';

/**
 * The usage kinds a row may name (stored as these strings: frozen, new ones are only added): the operation that
 * made the call, or `embedding` for every embedder call.
 */
export const USAGE_KINDS = ['compaction', 'recall', 'relocation', 'gc', 'embedding'] as const satisfies readonly UsageKind[];

/** The call kinds a row may name (stored as these strings: frozen, new ones are only added). */
export const USAGE_CALLS = ['compress', 'buildMeta', 'select', 'jointCompact', 'colocate', 'group', 'scorePassages', 'embed'] as const satisfies readonly ModelCallKind[];

/** Totals of the calls of one kind and call kind. Every figure is a non-negative integer. */
export interface ModelUsageRow {
  readonly kind: string;
  readonly call: string;
  readonly calls: number;
  readonly failedCalls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly retries: number;
  /** Sum of the calls' latencies, microseconds. */
  readonly latencyUs: number;
}

/** The figures of a row, in record order (the kind and call are its key). */
export const USAGE_ROW_FIGURES = ['calls', 'failedCalls', 'promptTokens', 'completionTokens', 'retries', 'latencyUs'] as const satisfies readonly (keyof ModelUsageRow)[];

function compareRows(a: { kind: string; call: string }, b: { kind: string; call: string }): number {
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.call === b.call ? 0 : a.call < b.call ? -1 : 1;
}

/** `a` plus `b` (`sign` -1: minus), sorted, rows that end all zero dropped. Neither input is changed. */
export function addUsageRows(a: readonly ModelUsageRow[], b: readonly ModelUsageRow[], sign: 1 | -1 = 1): ModelUsageRow[] {
  if (b.length === 0) return a.slice();
  const byKey = new Map<string, { -readonly [K in keyof ModelUsageRow]: ModelUsageRow[K] }>();
  for (const r of a) byKey.set(`${r.kind}\u0000${r.call}`, { ...r });
  for (const r of b) {
    const key = `${r.kind}\u0000${r.call}`;
    const t = byKey.get(key);
    if (t === undefined) {
      const fresh = { ...r };
      for (const f of USAGE_ROW_FIGURES) fresh[f] = sign * r[f];
      byKey.set(key, fresh);
    } else for (const f of USAGE_ROW_FIGURES) t[f] += sign * r[f];
  }
  return [...byKey.values()].filter((r) => USAGE_ROW_FIGURES.some((f) => r[f] !== 0)).sort(compareRows);
}

/**
 * What is wrong with persisted rows, or null: an unknown kind or call, a figure that is not a non-negative safe
 * integer, more failed calls than calls, rows out of order or repeated.
 */
export function usageRowsProblem(rows: readonly ModelUsageRow[]): string | null {
  const kinds: readonly string[] = USAGE_KINDS;
  const calls: readonly string[] = USAGE_CALLS;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (!kinds.includes(r.kind)) return `unknown usage kind ${JSON.stringify(r.kind)}`;
    if (!calls.includes(r.call)) return `unknown model call ${JSON.stringify(r.call)}`;
    for (const f of USAGE_ROW_FIGURES) if (!Number.isSafeInteger(r[f]) || r[f] < 0) return `${r.kind}/${r.call} ${f} is ${r[f]}`;
    if (r.failedCalls > r.calls) return `${r.kind}/${r.call} has ${r.failedCalls} failed calls of ${r.calls}`;
    if (i > 0 && compareRows(rows[i - 1]!, r) >= 0) return `rows out of order or repeated at ${r.kind}/${r.call}`;
  }
  return null;
}

function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}

/** One call's receipt as a row of `kind` (latency rounded to the microsecond, figures to integers). */
export function receiptRow(kind: UsageKind, r: ModelCallReceipt): ModelUsageRow {
  return {
    kind,
    call: r.call,
    calls: 1,
    failedCalls: r.ok ? 0 : 1,
    promptTokens: count(r.promptTokens),
    completionTokens: count(r.completionTokens),
    retries: count(r.retries),
    latencyUs: count(r.latencyMs * 1000),
  };
}

/** The totals of rows, as the public figures (latency in ms). */
export function rowTotals(rows: Iterable<ModelUsageRow>): UsageTotals {
  let calls = 0;
  let failedCalls = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let retries = 0;
  let latencyUs = 0;
  for (const r of rows) {
    calls += r.calls;
    failedCalls += r.failedCalls;
    promptTokens += r.promptTokens;
    completionTokens += r.completionTokens;
    retries += r.retries;
    latencyUs += r.latencyUs;
  }
  return { calls, failedCalls, promptTokens, completionTokens, retries, latencyMs: latencyUs / 1000 };
}
