/**
 * The events of AkashicStore (`store.on(name, listener)`): one per GC pass, per expiry sweep that deleted chunks,
 * per relocation, and per failure of background GC. Emitted synchronously after the operation settled; nothing is
 * built when nothing listens.
 */
import type { AkashicError } from '../errors.js';
import type { GcReport } from './reports.js';
import type { ModelCallReceipt, UsageTotals } from './model-usage.js';

/** What every store event carries. */
export interface StoreEventBase {
  /** Unique id of this operation (a ULID). */
  readonly id: string;
  /** ms since the epoch. */
  readonly startedAt: number;
  readonly durationMs: number;
}

/** A GC pass that finished (background or `gc()`), with its report and the affinity model's grouping calls. */
export interface GcEvent extends StoreEventBase {
  /** The user the pass was limited to, or null (every user). */
  readonly user: string | null;
  readonly background: boolean;
  readonly report: GcReport;
  /** Blocks the pass read (its victims) and wrote. */
  readonly blocksTouched: number;
  readonly modelCalls: readonly ModelCallReceipt[];
  readonly usage: UsageTotals;
}

/** An expiry sweep that deleted chunks. */
export interface ExpiryEvent extends StoreEventBase {
  readonly expired: number;
  /** Expiry index entries that pointed at nothing current (removed). */
  readonly stale: number;
  /** True when more expired chunks remain for the next sweep. */
  readonly more: boolean;
}

/** One relocation (`relocate`): a set of chunks rewritten together. */
export interface StoreRelocationEvent extends StoreEventBase {
  readonly user: string;
  readonly chunks: number;
  readonly moved: number;
}

/** Background work of the store that failed (a background GC pass). */
export interface StoreErrorEvent extends StoreEventBase {
  readonly operation: 'gc';
  readonly error: AkashicError;
}

/** Event name → event of AkashicStore. */
export interface StoreEvents {
  readonly gc: GcEvent;
  readonly expiry: ExpiryEvent;
  readonly relocation: StoreRelocationEvent;
  readonly error: StoreErrorEvent;
}
