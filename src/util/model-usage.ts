/**
 * Cost receipts of model calls. A model implementation reports the usage of the requests one call sent with
 * `reportModelUsage` (the OpenAI-compatible client does, from the server's `usage`); whoever made the call collects
 * it with `collectModelUsage`, which runs the call in its own AsyncLocalStorage scope, so concurrent calls never mix
 * their figures. A call that reports nothing is costed by the caller (the tokenizer's estimate).
 *
 * `UsageLedger` keeps the running totals: per operation, per model call and per user, since it was made.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModelCallKind, ModelCallReceipt, ModelOperationKind, ModelUsageReport, ModelUsageStats, UsageKind, UsageTotals } from '../api/model-usage.js';

export type { ModelCallKind, ModelCallReceipt, ModelOperationKind, ModelUsageReport, ModelUsageStats, UsageKind, UsageTotals } from '../api/model-usage.js';

/** The kind a call's usage is totalled under: its operation, except embedder calls, which have their own. */
export function usageKindOf(operation: ModelOperationKind, call: ModelCallKind): UsageKind {
  return call === 'embed' ? 'embedding' : operation;
}

/** The sum of what one call reported; null when it reported nothing. */
export interface CollectedUsage {
  /** Whether any report gave token figures (else the caller estimates them). */
  tokensReported: boolean;
  promptTokens: number;
  completionTokens: number;
  retries: number;
  model: string | undefined;
  local: boolean;
}

const scope = new AsyncLocalStorage<{ usage: CollectedUsage | null }>();

/**
 * Called by a model implementation inside one of its calls: adds the usage of a request to the call's receipt.
 * Outside a collecting caller it does nothing.
 */
export function reportModelUsage(report: ModelUsageReport): void {
  const slot = scope.getStore();
  if (slot === undefined) return;
  const u = (slot.usage ??= { tokensReported: false, promptTokens: 0, completionTokens: 0, retries: 0, model: undefined, local: report.local === true });
  if (report.promptTokens !== undefined || report.completionTokens !== undefined) u.tokensReported = true;
  u.promptTokens += finite(report.promptTokens ?? 0);
  u.completionTokens += finite(report.completionTokens ?? 0);
  u.retries += finite(report.retries ?? 0);
  if (report.model !== undefined) u.model = report.model;
  u.local &&= report.local === true;
}

/** Runs `fn` in its own usage scope and returns what it reported (null: nothing), settled or not. */
export async function collectModelUsage<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; failed: boolean; usage: CollectedUsage | null }> {
  const slot: { usage: CollectedUsage | null } = { usage: null };
  try {
    const value = await scope.run(slot, fn);
    return { value, failed: false, usage: slot.usage };
  } catch (error) {
    return { error, failed: true, usage: slot.usage };
  }
}

function finite(n: number): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

const operation = new AsyncLocalStorage<{ receipts: ModelCallReceipt[]; onReceipt: ((r: ModelCallReceipt) => void) | undefined }>();

/**
 * Runs one operation (a compaction, a recall, a GC pass) and gathers the receipts of the model calls made inside
 * it (`noteReceipt`), whether it succeeded or failed. `onReceipt`, when given, also sees each receipt as the call
 * ends (before the operation goes on), so its usage can be persisted with the operation's own commit.
 */
export async function withReceipts<T>(
  fn: () => Promise<T>,
  onReceipt?: (r: ModelCallReceipt) => void,
): Promise<{ value?: T; error?: unknown; failed: boolean; receipts: ModelCallReceipt[] }> {
  const receipts: ModelCallReceipt[] = [];
  try {
    const value = await operation.run({ receipts, onReceipt }, fn);
    return { value, failed: false, receipts };
  } catch (error) {
    return { error, failed: true, receipts };
  }
}

/** Adds a model call's receipt to the operation around it (`withReceipts`); returns false when there is none. */
export function noteReceipt(r: ModelCallReceipt): boolean {
  const op = operation.getStore();
  if (op === undefined) return false;
  op.receipts.push(r);
  op.onReceipt?.(r);
  return true;
}

type MutableTotals = { -readonly [K in keyof UsageTotals]: number };

function emptyTotals(): MutableTotals {
  return { calls: 0, failedCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0, latencyMs: 0 };
}

function add(t: MutableTotals, r: ModelCallReceipt): void {
  t.calls++;
  if (!r.ok) t.failedCalls++;
  t.promptTokens += r.promptTokens;
  t.completionTokens += r.completionTokens;
  t.retries += r.retries;
  t.latencyMs += r.latencyMs;
}

/** Sums receipts. */
export function sumReceipts(receipts: readonly ModelCallReceipt[]): UsageTotals {
  const t = emptyTotals();
  for (const r of receipts) add(t, r);
  return t;
}

/**
 * Running totals since construction, in memory. Users are kept up to `maxUsers` (the oldest is forgotten first).
 * Embedder calls are totalled under the `embedding` kind (`usageKindOf`), whatever operation made them.
 */
export class UsageLedger {
  readonly #total = emptyTotals();
  readonly #byOperation = new Map<UsageKind, MutableTotals>();
  readonly #byCall = new Map<ModelCallKind, MutableTotals>();
  readonly #byUser = new Map<string, MutableTotals>();
  readonly #maxUsers: number;

  constructor(maxUsers = 10_000) {
    this.#maxUsers = maxUsers;
  }

  /** Adds one operation's receipts, charged to `user` (null: no user, e.g. a GC pass over several). */
  note(operation: ModelOperationKind, user: string | null, receipts: readonly ModelCallReceipt[]): void {
    if (receipts.length === 0) return;
    let perUser: MutableTotals | undefined;
    if (user !== null) {
      perUser = this.#byUser.get(user);
      if (perUser === undefined) {
        if (this.#byUser.size >= this.#maxUsers) this.#byUser.delete(this.#byUser.keys().next().value!);
        perUser = emptyTotals();
        this.#byUser.set(user, perUser);
      }
    }
    for (const r of receipts) {
      add(this.#total, r);
      add(get(this.#byOperation, usageKindOf(operation, r.call)), r);
      add(get(this.#byCall, r.call), r);
      if (perUser !== undefined) add(perUser, r);
    }
  }

  /** A snapshot; later calls do not change it. */
  snapshot(): ModelUsageStats {
    return {
      total: { ...this.#total },
      byOperation: Object.fromEntries([...this.#byOperation].map(([k, v]) => [k, { ...v }])),
      byCall: Object.fromEntries([...this.#byCall].map(([k, v]) => [k, { ...v }])),
      byUser: Object.fromEntries([...this.#byUser].map(([k, v]) => [k, { ...v }])),
    };
  }
}

function get<K>(m: Map<K, MutableTotals>, k: K): MutableTotals {
  let t = m.get(k);
  if (t === undefined) m.set(k, (t = emptyTotals()));
  return t;
}
