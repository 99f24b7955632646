import { AkashicError } from '../../errors.js';
import type { AnyLevel } from '../../api/store-options.js';

/**
 * A batch precondition for a partitioned backend: the batch applies only while `partition` is at `version`, and
 * bumps it by one in the same atomic step; otherwise nothing of it applies and the write fails with
 * `AKASHIC_CONFLICT`. Passed as the `fence` option of a chained batch's `write`.
 */
export interface Fence {
  readonly partition: string;
  readonly version: number;
}

/**
 * What a backend whose atomic unit is one partition (`partitionOf` in keys.ts; a Redis hash slot) offers so that
 * several processes can share one store: a version per partition, checked and bumped by every fenced batch. A
 * backend announces it with `db.supports.partitionVersions === true`, a `partitionVersion` method (a decimal string
 * or a number) and an `expectVersion: { partition, version }` option of a chained batch's `write`. Capability, not
 * class: classic-level and memory-level have none (one process holds the store; every write is serialized by the
 * store's write lock, so a version check could never fail).
 */
export interface PartitionFencing {
  /** The current version of `partition`: 0 before its first fenced batch. Reads the latest acknowledged state. */
  partitionVersion(partition: string): Promise<number>;
}

/**
 * Whether the backend applies a batch atomically only within one partition (`db.supports.partitions === true`, or
 * fencing, which implies it): the engine then writes each user's changes as a batch of its own.
 */
export function isPartitioned(db: AnyLevel): boolean {
  const supports = db.supports as unknown as Record<string, unknown>;
  return supports['partitions'] === true || partitionFencing(db) !== null;
}

/** The backend's partition fencing, or null when it has none. */
export function partitionFencing(db: AnyLevel): PartitionFencing | null {
  const supports = db.supports as unknown as Record<string, unknown>;
  const candidate = db as unknown as Partial<PartitionFencing>;
  if (supports['partitionVersions'] !== true || typeof candidate.partitionVersion !== 'function') return null;
  return { partitionVersion: async (p) => Number(await (candidate.partitionVersion as (p: string) => Promise<number | string>).call(db, p)) };
}

/** True for the error a backend rejects a fenced batch with when its partition moved. */
export function isConflict(err: unknown): boolean {
  return err instanceof AkashicError ? err.code === 'AKASHIC_CONFLICT' : (err as { code?: unknown } | null)?.code === 'AKASHIC_CONFLICT';
}

/** The conflicts of fences (not a caller's `expectVersion`, which is AKASHIC_CONFLICT too). */
const FENCE_CONFLICTS = new WeakSet<AkashicError>();

/** The AKASHIC_CONFLICT the engine raises when a partition moved under a write (retried: fenced-write.ts). */
export function fenceConflict(message: string, cause?: unknown): AkashicError {
  const err = new AkashicError('AKASHIC_CONFLICT', message, cause === undefined ? undefined : { cause });
  FENCE_CONFLICTS.add(err);
  return err;
}

/** True for a conflict of a fence (another process moved the partition), as opposed to any other conflict. */
export function isFenceConflict(err: unknown): boolean {
  return err instanceof AkashicError && FENCE_CONFLICTS.has(err);
}
