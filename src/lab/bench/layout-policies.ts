/**
 * The layout policies of the Akashic paper §5.4, replayed on one trace and differing only in placement. Each is a small set
 * of switches over the same engine: whether co-access is recorded, which relocation runs after a request, whether
 * writes are placed semantically, and whether affinity GC runs.
 */

export const POLICY_NAMES = ['append-only', 'semantic-only', 'akashic', 'no-relocation', 'no-gc', 'aggressive-relocation'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

export interface PolicySpec {
  /** Record which chunks each request materialized together (feeds COLOCATE and GC's grouping). */
  readonly coAccess: boolean;
  /**
   * After a request: 'colocate' = the model's COLOCATE at τ_assoc under the per-user rate limit, as AkashicMemory
   * does; 'every-set' = relocate the whole request set whenever it spans more blocks than its lower bound.
   */
  readonly relocation: 'none' | 'colocate' | 'every-set';
  /** At write time, relocate each new chunk together with its most similar prior chunks. */
  readonly semanticPlacement: boolean;
  /** Affinity GC passes at θ. */
  readonly gc: boolean;
}

export const POLICIES: Readonly<Record<PolicyName, PolicySpec>> = {
  'append-only': { coAccess: false, relocation: 'none', semanticPlacement: false, gc: false },
  'semantic-only': { coAccess: false, relocation: 'none', semanticPlacement: true, gc: true },
  akashic: { coAccess: true, relocation: 'colocate', semanticPlacement: false, gc: true },
  'no-relocation': { coAccess: true, relocation: 'none', semanticPlacement: false, gc: true },
  'no-gc': { coAccess: true, relocation: 'colocate', semanticPlacement: false, gc: false },
  'aggressive-relocation': { coAccess: true, relocation: 'every-set', semanticPlacement: false, gc: true },
};

/** Engine and layer parameters a replay runs with (the library defaults unless a sweep changes one). */
export interface LayoutParams {
  readonly blockCapacity: number;
  /** θ of GC. */
  readonly gcThreshold: number;
  /** GC also merges sealed blocks filled below this fraction (the store's gc.mergeBelowFill). */
  readonly gcMergeBelowFill: number;
  /** Victims per GC pass (the store's gc.maxBlocksPerPass default). */
  readonly gcMaxBlocks: number;
  /** A GC pass runs after every this many trace events a store sees (the background timer, made deterministic). */
  readonly gcEveryEvents: number;
  /** τ_assoc of COLOCATE. */
  readonly tauAssoc: number;
  /** One COLOCATE per this many recalls of a user (AkashicMemory's rate limit). */
  readonly relocateEveryRecalls: number;
  /** Co-accesses a pair needs before online relocation moves it (AkashicMemory's relocateMinRecurrence). */
  readonly relocateMinRecurrence: number;
}
