import type { ModelCallReceipt, ModelOperationKind, ModelUsageStats } from '../api/model-usage.js';
import { receiptRow } from '../record/model-usage-rows.js';
import { UsageLedger, usageKindOf } from '../util/model-usage.js';

/** Where persisted usage goes: the store core's per-user pending totals (`StoreCore.noteModelUsage`). */
export interface UsageSink {
  noteModelUsage(userId: string, rows: readonly ReturnType<typeof receiptRow>[]): void;
}

/**
 * The store's model usage, fed one receipt at a time as each model call ends: kept since open in memory (per call
 * kind and user, for `AkashicMemory.stats()`), and charged to the user's accounting, which persists it with the
 * user's next commit (`UsageSink`). A call that names no user (none does today) is kept in memory only.
 * @internal
 */
export class ModelUsageRecorder {
  readonly #sink: UsageSink;
  readonly #sinceOpen = new UsageLedger();

  constructor(sink: UsageSink) {
    this.#sink = sink;
  }

  /** Records one call of `operation`, charged to `user`. */
  record(operation: ModelOperationKind, user: string | null, r: ModelCallReceipt): void {
    this.#sinceOpen.note(operation, user, [r]);
    if (user !== null) this.#sink.noteModelUsage(user, [receiptRow(usageKindOf(operation, r.call), r)]);
  }

  /** A receipt callback for `withReceipts` that records each call of `operation` charged to `user`. */
  recorder(operation: ModelOperationKind, user: string | null): (r: ModelCallReceipt) => void {
    return (r) => this.record(operation, user, r);
  }

  /** The totals since the store was opened, in this process. */
  sinceOpen(): ModelUsageStats {
    return this.#sinceOpen.snapshot();
  }
}
