import { AkashicError } from '../../errors.js';
import type { AnyLevel } from '../../api/store-options.js';

/**
 * A batch precondition for a partitioned backend: the batch applies only while `partition` is at `version`
 * (a decimal string; '0' for a partition that holds nothing), and moves the version in the same atomic step;
 * otherwise nothing of it applies and the write fails with `AKASHIC_CONFLICT`. Passed as the `expectVersion` option
 * of a chained batch's `write`, with a `versions` map the backend fills with each written partition's new version.
 */
export interface Fence {
  readonly partition: string;
  readonly version: string;
}

/**
 * What a backend whose atomic unit is one partition (`partitionOf` in keys.ts; a Redis hash slot) offers so that
 * several processes can share one store: a version per partition that every batch writing the partition moves,
 * and batches fenced on it. A backend announces it with `db.supports.partitionVersions === true` and a
 * `partitionVersion` method. Capability, not class: classic-level and memory-level have none (one process holds
 * the store; every write is serialized by the store's write lock, so a version check could never fail).
 */
export interface PartitionFencing {
  /** The current version of `partition` ('0' when it holds nothing). Reads the latest acknowledged state. */
  partitionVersion(partition: string): Promise<string>;
  /**
   * The values of `rootKeys` (keys of the root database, family prefix included; every one in `partition`) and the
   * version they are valid at. A backend with a `readAtVersion` method reads both at one instant (Redis: one script,
   * one round trip); otherwise the version is read first and the values after, so a commit between the two makes
   * the reader's next fenced batch fail (safe, one retry).
   */
  readAtVersion(partition: string, rootKeys: readonly string[]): Promise<{ version: string; values: (Buffer | undefined)[] }>;
}

type ReadAtVersion = (partition: string, keys: readonly string[]) => Promise<{ version: string | number; values: (Buffer | undefined)[] }>;

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
  // A backend may give the version as a number or a decimal string; the engine compares strings.
  const partitionVersion = async (p: string): Promise<string> => String(await (candidate.partitionVersion as (p: string) => Promise<number | string>).call(db, p));
  const native = (db as unknown as { readAtVersion?: ReadAtVersion }).readAtVersion;
  const readAtVersion: PartitionFencing['readAtVersion'] =
    typeof native === 'function'
      ? async (p, keys) => {
          const r = await native.call(db, p, keys);
          return { version: String(r.version), values: r.values };
        }
      : async (p, keys) => {
          const version = await partitionVersion(p);
          const values = keys.length === 0 ? [] : ((await db.getMany([...keys], { keyEncoding: 'utf8', valueEncoding: 'buffer' } as never)) as (Buffer | undefined)[]);
          return { version, values };
        };
  return { partitionVersion, readAtVersion };
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
