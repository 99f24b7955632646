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

/** COLOCATE and relocate; returns what ran. */
export async function colocateAndRelocate(
  store: AkashicStore,
  model: CheckedModel,
  tauAssoc: number,
  userId: string,
  chunks: readonly ChunkRecord[],
): Promise<{ groups: number; moved: number }> {
  const refs: ChunkRef[] = chunks.map((c) => ({ sessionId: c.sessionId, chunkId: c.chunkId }));
  const stats = await store.coAccess(userId, refs);
  const metas = chunks.map((c) => ({
    id: refString(c.sessionId, c.chunkId),
    sessionId: c.sessionId,
    createdAt: c.createdAt,
    tokenCount: c.tokenCount,
    keywords: c.keywords,
  }));
  const groups = await model.colocate(metas, stats, tauAssoc);
  let moved = 0;
  for (const g of groups) {
    const r = await store.relocate(userId, g.map(parseRefString));
    moved += r.moved;
  }
  return { groups: groups.length, moved };
}
