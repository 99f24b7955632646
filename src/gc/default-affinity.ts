import type { AffinityChunk, AffinityModel, CoAccessStats } from '../api/affinity-model.js';
import { associationComponents, exactTerms } from './association.js';

/**
 * The deterministic default of LLMGROUP: two chunks are affine when they were recalled together often
 * (pair count over the smaller access count) or share keywords (Jaccard), by the engine's one association rule
 * (association.ts) over keywords as stored. Groups are the connected components of the pairs at or above
 * `threshold`; no model call, no randomness.
 */
export class DefaultAffinityModel implements AffinityModel {
  /** No model call: its cost receipts carry 0 tokens. */
  readonly local = true;
  readonly threshold: number;

  constructor(threshold = 0.5) {
    this.threshold = threshold;
  }

  async group(chunks: readonly AffinityChunk[], coAccess: CoAccessStats): Promise<string[][]> {
    return associationComponents(chunks, coAccess, this.threshold, exactTerms).map((g) => g.map((c) => c.id));
  }
}
