/**
 * Internal seams of AkashicMemory (not in the package barrel), in the manner of `engine/internal-seams.ts`.
 *
 * - `idleCompactions`: the idle timer's compactions as events, so callers (tests) wait for one instead of polling.
 * @internal
 */
import type { CompactionResult } from './compactor.js';

/** `memory[idleCompactions]`: compactions started by the idle timer (`idleCompactMs`). @internal */
export const idleCompactions = Symbol('akashic.idleCompactions');

export interface IdleCompactions {
  /**
   * Settles with the next idle compaction to finish after this call: what it compacted (empty when the turns were
   * compacted meanwhile), or its error (which also goes to `onBackgroundError`).
   */
  next(): Promise<CompactionResult[]>;
}
