/**
 * Online relocation after a recall (the Akashic paper, Algorithm 2 lines 3–10): COLOCATE over the metadata and co-access
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
import { trustedCalls } from '../engine/internal-seams.js';
import type { ChunkRecord } from '../record/chunk-record.js';
import type { ChunkRef } from '../api/chunk-input.js';
import { parseRefString, refString } from '../api/key-strings.js';
import type { CheckedModel } from './model-calls.js';

/** Whether online relocation ran after a recall, and what it did. */
export type RelocationOutcome =
  | {
      readonly status: 'skipped';
      readonly reason: 'disabled' | 'retrieval-disabled' | 'too-few' | 'colocated' | 'rate-limited' | 'not-recurring';
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

/** Knobs of the online relocation decision. */
export interface OnlineRelocationParams {
  /** One COLOCATE per this many recalls of a user; 0 disables online relocation. */
  readonly every: number;
  /** τ_assoc of COLOCATE. */
  readonly tauAssoc: number;
  /**
   * A pair of chunks counts as co-accessed only once requests have materialized it together at least this many
   * times (1 = the first co-access already counts). Relocating a group seen together once pays only if the group
   * recurs, which on measured traces most do not.
   */
  readonly minRecurrence: number;
}

/** What one recall's relocation did. */
export type RelocationRun = Exclude<RelocationOutcome, { readonly status: 'scheduled' }>;

/**
 * The online relocation decision (what to move after a recall), the one place AkashicMemory and the benchmarks
 * take it from: `admit` applies the cheap skip rules, `run` the recurrence filter, the rate limit and COLOCATE, then
 * hands each group to the engine's commit (`AkashicStore.relocate`).
 */
export class OnlineRelocation {
  readonly params: OnlineRelocationParams;
  readonly #limiter: RelocationLimiter;

  constructor(params: OnlineRelocationParams) {
    this.params = params;
    this.#limiter = new RelocationLimiter(params.every);
  }

  /**
   * Counts the recall and applies the rules that need no I/O: nothing with relocation disabled, with fewer than two
   * chunks, or when they already sit in as few blocks as `capacity` allows. null = go on with `run`.
   */
  admit(userId: string, chunkCount: number, blocksTouched: number, capacity: number): Extract<RelocationRun, { status: 'skipped' }> | null {
    if (!this.#limiter.enabled) return { status: 'skipped', reason: 'disabled' };
    this.#limiter.recall(userId);
    if (chunkCount < 2) return { status: 'skipped', reason: 'too-few' };
    if (blocksTouched <= Math.ceil(chunkCount / capacity)) return { status: 'skipped', reason: 'colocated' };
    return null;
  }

  /**
   * Keeps the co-access pairs seen together at least `minRecurrence` times; without any, nothing moves and no rate
   * limit token is spent (a set that never recurred does not use up the budget of one that does). Then the user's
   * token, COLOCATE over the recalled chunks with those pairs, and one engine relocation per group.
   */
  async run(store: AkashicStore, model: CheckedModel, userId: string, chunks: readonly ChunkRecord[]): Promise<RelocationRun> {
    const refs: ChunkRef[] = chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
    const stats = await store[trustedCalls].coAccess(userId, refs);
    const min = this.params.minRecurrence;
    const pairs = min <= 1 ? stats.pairs : new Map([...stats.pairs].filter(([, n]) => n >= min));
    if (pairs.size === 0) return { status: 'skipped', reason: 'not-recurring' };
    if (!this.#limiter.take(userId)) return { status: 'skipped', reason: 'rate-limited' };
    const metas = chunks.map((c) => ({
      id: refString(c.sessionId, c.chunkId),
      sessionId: c.sessionId,
      createdAt: c.createdAt,
      tokenCount: c.tokenCount,
      keywords: c.keywords,
      ...(c.embedding === undefined || c.embedding === null ? {} : { embedding: c.embedding }),
    }));
    const groups = await model.colocate(metas, { accesses: stats.accesses, pairs }, this.params.tauAssoc);
    let moved = 0;
    for (const g of groups) moved += (await store[trustedCalls].relocate(userId, g.map(parseRefString))).moved;
    return { status: 'ran', groups: groups.length, moved };
  }
}
