/**
 * Online relocation after a recall (seed 000, Algorithm 2 lines 3–10): COLOCATE over the metadata and co-access
 * statistics of the chunks one request materialized together, then `AkashicStore.relocate` for each group it returns
 * (out of place, one atomic batch per group).
 *
 * Rate limit. Relocation rewrites chunks, and with an LLM model COLOCATE is a model call, so both are bounded per
 * user by a recall-counted token bucket: capacity 1, refilled by 1/`every` per recall. A user's first eligible recall
 * may relocate; after that at most one COLOCATE per `every` recalls, each moving at most p chunks. Hence online
 * relocation writes at most p/`every` chunk records per recall on average. Recalls that cannot gain anything (fewer
 * than two chunks, or already in as few blocks as they can be) take no token.
 * @internal
 */
import type { AkashicStore } from '../engine/akashic-store.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import type { ChunkRef } from '../store/chunk-input.js';
import { parseRefString, refString } from '../store/keys.js';
import type { CheckedModel } from './model-calls.js';

/** Whether online relocation ran after a recall, and what it did. */
export type RelocationOutcome =
  | {
      readonly status: 'skipped';
      readonly reason: 'disabled' | 'retrieval-disabled' | 'too-few' | 'colocated' | 'rate-limited';
    }
  /** Started in the background (`relocateSync` off); errors go to `onBackgroundError`. */
  | { readonly status: 'scheduled' }
  | {
      readonly status: 'ran';
      /** Groups COLOCATE returned (each of at least two chunks). */
      readonly groups: number;
      /** Chunks rewritten into fresh blocks. */
      readonly moved: number;
    };

/** Per-user token bucket counted in recalls. */
export class RelocationLimiter {
  readonly #every: number;
  /** Users below full credit; a missing user has full credit, so the map only holds recently active users. */
  readonly #credit = new Map<string, number>();

  constructor(every: number) {
    this.#every = every;
  }

  get enabled(): boolean {
    return this.#every > 0;
  }

  /** Adds one recall's refill. */
  recall(userId: string): void {
    const c = this.#credit.get(userId);
    if (c === undefined) return;
    const next = c + 1 / this.#every;
    // Compare with a little slack: ten additions of 0.1 make 0.9999999999999999.
    if (next >= 1 - 1e-9) this.#credit.delete(userId);
    else this.#credit.set(userId, next);
  }

  /** Takes the user's token if the bucket holds one. */
  take(userId: string): boolean {
    if (!this.enabled || this.#credit.has(userId)) return false;
    this.#credit.set(userId, 0);
    return true;
  }
}

/** Why a recall did not relocate (the decision's verdict before any model call). */
export type RelocationSkipReason = 'disabled' | 'too-few' | 'colocated' | 'rate-limited';

/** Knobs of the online relocation decision. */
export interface OnlineRelocationParams {
  /** One COLOCATE per this many recalls of a user; 0 disables online relocation. */
  readonly every: number;
  /** τ_assoc of COLOCATE. */
  readonly tauAssoc: number;
  /**
   * A pair of chunks counts as co-accessed only once requests have materialized it together at least this many
   * times (1 = the first co-access already counts). Relocating a group seen together once pays only if the group
   * recurs, which most do not.
   */
  readonly minRecurrence: number;
}

/**
 * The online relocation decision (what to move after a recall), the one place AkashicMemory and the benchmarks
 * take it from. `admit` applies the skip rules and the rate limit; `groups` runs COLOCATE over the recalled chunks
 * with co-access counts below `minRecurrence` ignored. The commit is the engine's (`AkashicStore.relocate`).
 */
export class OnlineRelocation {
  readonly params: OnlineRelocationParams;
  readonly #limiter: RelocationLimiter;

  constructor(params: OnlineRelocationParams) {
    this.params = params;
    this.#limiter = new RelocationLimiter(params.every);
  }

  get enabled(): boolean {
    return this.#limiter.enabled;
  }

  /**
   * Counts the recall and decides whether it may relocate: not with fewer than two chunks, not when they already sit
   * in as few blocks as `capacity` allows, not without a token of the user's rate limit. null = go ahead.
   */
  admit(userId: string, chunkCount: number, blocksTouched: number, capacity: number): RelocationSkipReason | null {
    if (!this.#limiter.enabled) return 'disabled';
    this.#limiter.recall(userId);
    if (chunkCount < 2) return 'too-few';
    if (blocksTouched <= Math.ceil(chunkCount / capacity)) return 'colocated';
    if (!this.#limiter.take(userId)) return 'rate-limited';
    return null;
  }

  /** The groups to move together (each of at least two chunks), from COLOCATE over recurring co-access. */
  async groups(store: AkashicStore, model: CheckedModel, userId: string, chunks: readonly ChunkRecord[]): Promise<ChunkRef[][]> {
    const refs: ChunkRef[] = chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
    const stats = await store.coAccess(userId, refs);
    const min = this.params.minRecurrence;
    const pairs = min <= 1 ? stats.pairs : new Map([...stats.pairs].filter(([, n]) => n >= min));
    if (pairs.size === 0 && min > 1) return [];
    const metas = chunks.map((c) => ({
      id: refString(c.sessionId, c.chunkId),
      sessionId: c.sessionId,
      createdAt: c.createdAt,
      tokenCount: c.tokenCount,
      keywords: c.keywords,
    }));
    const groups = await model.colocate(metas, { accesses: stats.accesses, pairs }, this.params.tauAssoc);
    return groups.map((g) => g.map(parseRefString));
  }

  /** `groups`, then the engine's relocation of each; returns what ran. */
  async run(store: AkashicStore, model: CheckedModel, userId: string, chunks: readonly ChunkRecord[]): Promise<{ groups: number; moved: number }> {
    const groups = await this.groups(store, model, userId, chunks);
    let moved = 0;
    for (const g of groups) moved += (await store.relocate(userId, g)).moved;
    return { groups: groups.length, moved };
  }
}
